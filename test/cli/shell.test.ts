import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PtySession } from '../support/pty-session';

const FIXTURE = join(import.meta.dir, '../fixtures/shell-fixture.ts');
const UP = '\x1b[A';
const CTRL_C = '\x03';
const CTRL_D = '\x04';
const CTRL_Q = '\x11';
const CTRL_U = '\x15';

describe('InteractiveShell under a pseudo-terminal', () => {
  let dir: string;
  let historyFile: string;
  const sessions: PtySession[] = [];
  const start = async (extra: string[] = []) => {
    const session = new PtySession(['bun', FIXTURE, historyFile, ...extra], { name: 'the shell fixture' });
    sessions.push(session);
    await session.expect('shell fixture ready');
    await session.expect('svc> ');
    return session;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-shell-'));
    historyFile = join(dir, 'nested', 'dir', 'history');
  });

  afterEach(() => {
    for (const session of sessions.splice(0)) {
      session.proc.kill();
      session.proc.terminal?.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test('runs commands, shows their lines, and exit ends the process with 0', async () => {
    const s = await start();
    s.type('hello\r');
    await s.expect('✓ hello from the fake');
    s.type('fail\r');
    await s.expect('✗ this command always fails');
    s.type('nope\r');
    await s.expect('✗ unknown command: nope');
    s.type('exit\r');
    expect(await s.exitCode()).toBe(0);
  });

  test('streams a slow command line by line and runs a line typed meanwhile after it, re-prompting only then', async () => {
    const s = await start();
    s.type('slow\rhello\r');
    await s.expect('step 1');
    expect(await s.expect('step 2')).not.toContain('svc> ');
    expect(await s.expect('step 3')).not.toContain('svc> ');
    expect(await s.expect('✓ hello from the fake')).not.toContain('svc> ');
    await s.expect('svc> ');
  });

  test('completes with the tab key: a list for several candidates, the word for one', async () => {
    const s = await start();
    s.type('sta\t\t');
    await s.expect(/start +status/);
    s.type(`${CTRL_U}scr\t`);
    await s.expect('svc> screen ');
    s.type('lobby-1\r');
    await s.expect('attached to lobby-1');
  });

  test('prints a notice that arrives while a line is typed above the prompt, keeping the typed text', async () => {
    const s = await start();
    s.type('arm-notice\r');
    await s.expect('svc> ');
    s.type('st\t\t');
    await s.expect('connection lost (test)');
    await s.expect(/^\r?\n?svc> st/);
    await s.expect(/start +status +stop/);
  });

  test('prints events', async () => {
    const s = await start();
    s.type('emit-event\r');
    await s.expect(/\d\d:\d\d:\d\d SERVICE_READY service=lobby-1 group=lobby/);
  });

  test('screen: lines go to the service, its lines come back, Ctrl+Q and :q leave', async () => {
    const s = await start();
    s.type('screen lobby-1\r');
    await s.expect('attached to lobby-1: lines you type go to its console; Ctrl+Q leaves');
    await s.expect('lobby-1 » ');
    s.type('hi\r');
    await s.expect('echo: hi');
    s.type(CTRL_Q);
    await s.expect('detached from lobby-1');
    await s.expect('svc> ');
    s.type('hello\r');
    await s.expect('✓ hello from the fake');

    s.type('screen lobby-1\r');
    await s.expect('lobby-1 » ');
    s.type('exit\r');
    await s.expect('echo: exit');
    s.type(':q\r');
    await s.expect('detached from lobby-1');
    s.type('hello\r');
    await s.expect('✓ hello from the fake');
  });

  test('screen: attach failures, a missing argument, and a detach by the service', async () => {
    const s = await start();
    s.type('screen missing\r');
    await s.expect('✗ no service named missing');
    s.type('screen\r');
    await s.expect('✗ usage: screen <service>');
    s.type('screen gone\r');
    await s.expect('gone » ');
    s.type('anything\r');
    await s.expect('detached from gone: service stopped');
    await s.expect('svc> ');
    s.type('hello\r');
    await s.expect('✓ hello from the fake');
  });

  test('history is kept in a 0600 file and recalled with the up arrow after a restart', async () => {
    const first = await start();
    first.type('hello\r');
    await first.expect('✓ hello from the fake');
    first.type(CTRL_D);
    expect(await first.exitCode()).toBe(0);
    expect(readFileSync(historyFile, 'utf8')).toBe('hello\n');
    expect(statSync(historyFile).mode & 0o777).toBe(0o600);

    const second = await start();
    second.type(UP);
    await second.expect('svc> hello');
    second.type('\r');
    await second.expect('✓ hello from the fake');
  });

  test("as the controller's console, exit words and Ctrl+D print a hint and keep the shell", async () => {
    const s = await start(['--console']);
    s.type(CTRL_D);
    await s.expect('type shutdown to stop the controller');
    s.type('hello\r');
    await s.expect('✓ hello from the fake');
    s.type('quit\r');
    await s.expect('type shutdown to stop the controller');
    s.type(UP);
    await s.expect('svc> quit');
    s.type(`${CTRL_U}${CTRL_C}`);
    expect(await s.exitCode()).toBe(0);
  });
});
