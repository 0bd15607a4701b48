/**
 * The controller's own console through the compiled binary. On a pseudo-terminal: a prompt,
 * commands, completion, `screen` on a real service with Ctrl+Q to leave, live events, the
 * history file, `exit` refused with a hint, Ctrl+C clearing the line, then asking before it stops
 * everything. Without a terminal
 * (systemd): no prompt at all.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killGameServers, LineCollector, svcBinary } from '../support/binary';
import { PtySession } from '../support/pty-session';
import { tempDir, waitFor } from '../support/controller';

const TOKEN = 'e2e-terminal-token-0123456789abcdef';
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const CTRL_C = '\x03';
const CTRL_Q = '\x11';
const BANNER = '`help` lists the commands';

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

function workDir(): string {
  const { dir, remove } = tempDir('svc-e2e-term-');
  cleanups.push(remove);
  // Backend ports of their own, away from other suites running at the same time.
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = 0\nrate_limit = 0\n[network]\nname = "testnet"\n[controller]\nbackend_port_start = ${42000 + Math.floor(Math.random() * 2000) * 4}\n[services]\nisolation = "none"\n`);
  return dir;
}

const env = { PATH: process.env.PATH ?? '', SVC_API_TOKEN: TOKEN, TERM: 'xterm-256color', HOME: process.env.HOME ?? '/tmp' };

describe('the terminal console (compiled binary)', () => {
  test('one session: commands, completion, screen, events, history, exit hint, Ctrl+C clears the line, asks, and on y stops the controller and its services', async () => {
    const svc = await svcBinary();
    const dir = workDir();
    const term = new PtySession([svc, '--dir', dir], { env, cwd: dir, cols: 160, name: 'svc' });
    cleanups.push(() => term.kill());
    await term.expect(/API listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
    const url = /API listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(term.output)![1]!;
    await term.expect(BANNER);
    await term.expect('testnet » ');

    term.type('status\r');
    await term.expect('testnet: offline');

    // a group and a service made over the API show up as live events above the prompt
    const api = (path: string, json?: unknown) =>
      fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: json === undefined ? undefined : JSON.stringify(json) });
    const group = { name: 'Lobby', software: 'CUSTOM', version: '1.21.1', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', '--max-lifetime-ms', '120000'], minInstances: 0 };
    expect((await api('/api/groups', group)).status).toBe(201);
    await term.expect('GROUP_CREATED group=Lobby');

    // completion of a command name, then of a group name
    term.type('star\t');
    await term.expect('testnet » start ');
    term.type('L\t');
    // readline appends the completion to the line already on screen
    await term.waitForOutput((o) => o.endsWith('testnet » start Lobby '), 10_000, 'the completed group name');
    term.type('\r');
    // the lifecycle line is printed as it happens (once: not also as an event), the command's own line right after
    await term.expect(/Lobby-1 starting on port \d+ \(pid \d+\)/, 20_000);
    await term.expect('Lobby-1 is READY', 20_000);
    await term.expect(/Lobby-1 is READY on port \d+/);

    term.type('screen Lobby-1\r');
    await term.expect('attached to Lobby-1');
    term.type('say hello-from-the-terminal\r');
    await term.expect('[Server] hello-from-the-terminal');
    term.type(CTRL_Q);
    await term.expect('detached from Lobby-1');
    term.type('version\r');
    await term.expect('svc 0.13.0');

    term.type('exit\r');
    await term.expect('type shutdown to stop the controller');

    const history = join(dir, '.svc_history');
    await waitFor(() => readFileSync(history, 'utf8').includes('version'), { what: 'the history file' });
    expect(readFileSync(history, 'utf8').split('\n')).toEqual(expect.arrayContaining(['status', 'start Lobby', 'screen Lobby-1', 'version']));
    expect(statSync(history).mode & 0o777).toBe(0o600);

    const { pid } = (await (await fetch(`${url}/api/services/Lobby-1`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { pid: number };
    // Ctrl+C with text on the line clears the line, and stops nothing
    term.type('stat');
    await term.expect('testnet » stat');
    term.type(CTRL_C);
    term.type('version\r');
    await term.expect('svc 0.13.0');
    expect(term.output).not.toContain('statversion');
    expect(term.output).not.toContain('(y/N)');
    // on an empty line it asks; anything but y is no, and the server runs on
    term.type(CTRL_C);
    await term.expect('stop the controller and 1 server? (y/N) ');
    term.type('n\r');
    await term.expect('nothing stopped');
    expect(() => process.kill(pid, 0)).not.toThrow();
    // Ctrl+C at the question is no too
    term.type(CTRL_C);
    await term.expect('stop the controller and 1 server? (y/N) ');
    term.type(CTRL_C);
    await term.expect('nothing stopped');
    expect(() => process.kill(pid, 0)).not.toThrow();
    // y stops the controller and its server
    term.type(CTRL_C);
    await term.expect('stop the controller and 1 server? (y/N) ');
    term.type('y\r');
    await term.expect('stopping all services reason=signal SIGINT services=1', 20_000);
    await term.expect('controller stopped');
    expect(await term.exitCode(20_000)).toBe(0);
    // the service went with it
    expect(() => process.kill(pid, 0)).toThrow();
  }, 90_000);

  test('the terminal closing (SIGHUP) ends the controller like a crash: its server keeps running, and the next start re-attaches it', async () => {
    const svc = await svcBinary();
    const dir = workDir();
    mkdirSync(join(dir, 'config/groups'), { recursive: true });
    writeFileSync(
      join(dir, 'config/groups/Lobby.toml'),
      `[group]\nsoftware = "CUSTOM"\nversion = "1.21.1"\nstart_command = [${[process.execPath, FAKE_PAPER, '--port', '{port}', '--max-lifetime-ms', '120000'].map((a) => JSON.stringify(a)).join(', ')}]\n[group.scaling]\nmin_instances = 1\n`,
    );
    const term = new PtySession([svc, '--dir', dir], { env, cwd: dir, name: 'svc' });
    cleanups.push(() => term.kill());
    await term.expect(/Lobby-1 starting on port \d+ \(pid (\d+)\)/, 30_000);
    const pid = Number(/Lobby-1 starting on port \d+ \(pid (\d+)\)/.exec(term.output)![1]);
    cleanups.push(() => killGameServers(dir, [pid]));
    await term.expect('Lobby-1 is READY', 20_000);
    term.proc.terminal!.close();
    await term.proc.exited;
    expect(term.proc.signalCode).toBe('SIGHUP');
    expect(() => process.kill(pid, 0)).not.toThrow();
    const child = Bun.spawn([svc, '--dir', dir], { env: { ...env, SVC_LOG_FORMAT: 'json' }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    cleanups.push(() => child.kill('SIGKILL'));
    const out = new LineCollector(child.stdout);
    const recovered = JSON.parse(await out.waitForLine((l) => l.includes('recovered a running service'), 30_000)) as { service: string; pid: number };
    expect(recovered).toMatchObject({ service: 'Lobby-1', pid });
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);

  test('without a terminal (systemd) there is no prompt and stdin is not read', async () => {
    const svc = await svcBinary();
    const dir = workDir();
    const child = Bun.spawn([svc, '--dir', dir], { env: { ...env, SVC_LOG_FORMAT: 'json' }, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
    cleanups.push(() => child.kill('SIGKILL'));
    const out = new LineCollector(child.stdout);
    await out.waitForLine((l) => l.includes('API listening'), 30_000);
    // a line on stdin is not a command: nothing answers it
    child.stdin.write('status\n');
    await child.stdin.flush();
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    const text = out.lines.join('\n');
    expect(text).toContain('controller stopped');
    expect(text).not.toContain(BANNER);
    expect(text).not.toContain('testnet: offline');
    expect(text).not.toContain('»');
  }, 60_000);
});
