import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from '../../../../src/core/supervisor/process';
import { pidAlive } from '../../../../src/core/supervisor/process/pid-probe';
import { DONE, echoArgv, paperArgv, processScope, within } from './harness';

const scope = processScope('launch');

describe('launch', () => {
  test('a fake Paper server: Done, say, stop, exit 0, and console.log holds every line', async () => {
    const before = Date.now();
    const { handle, log, workDir } = await scope.start(paperArgv());
    expect(handle.survivesController).toBe(true);
    expect(handle.stateDir).toBe(join(workDir, '.svc'));
    expect(handle.logFile).toBe(join(workDir, '.svc', 'console.log'));
    expect(handle.startedAt.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(handle.pid).not.toBe(handle.wrapperPid);
    expect(handle.isAlive()).toBe(true);

    await log.waitFor(DONE);
    handle.write('say hi');
    await log.waitFor(/^\[12:00:00 INFO\]: \[Server\] hi$/);
    handle.write('stop');
    expect(await within(handle.exited, 'exit after stop')).toEqual({ code: 0 });

    expect(log.lines.at(-1)).toBe('[12:00:00 INFO]: Stopping server');
    expect(readFileSync(handle.logFile, 'utf8')).toBe(`${log.lines.join('\n')}\n`);
    expect(handle.lastLines(2)).toEqual(log.lines.slice(-2));
    expect(handle.isAlive()).toBe(false);
    expect(pidAlive(handle.pid)).toBe(false);
    expect(readFileSync(join(handle.stateDir, 'exit-code'), 'utf8')).toBe('0\n');
  });

  test('process.json records what a later controller needs', async () => {
    const { handle } = await scope.start(echoArgv(), { name: 'lobby' });
    const record: unknown = JSON.parse(readFileSync(join(handle.stateDir, 'process.json'), 'utf8'));
    expect(record).toEqual({
      name: 'lobby',
      marker: expect.stringMatching(/^svc-[0-9a-f-]{36}$/),
      wrapperPid: handle.wrapperPid,
      pid: handle.pid,
      startedAt: handle.startedAt.toISOString(),
      logFile: handle.logFile,
      fifo: join(handle.stateDir, 'stdin.fifo'),
      exitFile: join(handle.stateDir, 'exit-code'),
    });
    const wrapperCmdline = readFileSync(`/proc/${handle.wrapperPid}/cmdline`, 'utf8');
    expect(typeof record === 'object' && record !== null && 'marker' in record && wrapperCmdline.includes(String(record.marker))).toBe(true);
  });

  test('a custom stateDir, relative to the work dir', async () => {
    const { handle, log, workDir } = await scope.start(echoArgv(), { stateDir: 'state/lobby' });
    expect(handle.stateDir).toBe(join(workDir, 'state/lobby'));
    await log.waitFor(/^runner-echo ready$/);
    expect(existsSync(join(workDir, 'state/lobby/stdin.fifo'))).toBe(true);
  });

  test('write refuses line breaks, and refuses once the process has ended', async () => {
    const { handle, log } = await scope.start(echoArgv());
    expect(() => handle.write('say a\nstop')).toThrow(/line break/);
    expect(() => handle.write('say a\rstop')).toThrow(/line break/);
    handle.write('echo still one line');
    await log.waitFor(/^still one line$/);
    handle.write('exit 0');
    await within(handle.exited, 'exit');
    expect(() => handle.write('echo late')).toThrow(/ended/);
  });

  test('lines printed before a listener was added are in lastLines', async () => {
    const { handle, log } = await scope.start(echoArgv());
    handle.write('echo one');
    await log.waitFor(/^one$/);
    const late: string[] = [];
    handle.onLine((line) => late.push(line));
    handle.write('echo two');
    await log.waitFor(/^two$/);
    expect(late).toEqual(['two']);
    expect(handle.lastLines(10)).toEqual(['runner-echo ready', 'one', 'two']);
    expect(handle.lastLines(1)).toEqual(['two']);
    expect(handle.lastLines(0)).toEqual([]);
  });

  test('an unsubscribed listener gets nothing more', async () => {
    const { handle, log } = await scope.start(echoArgv());
    const seen: string[] = [];
    const off = handle.onLine((line) => seen.push(line));
    await log.waitFor(/^runner-echo ready$/);
    off();
    handle.write('echo after');
    await log.waitFor(/^after$/);
    expect(seen).toEqual(['runner-echo ready']);
  });

  test('a state dir in use by a running process is refused; after it ends, relaunch starts a fresh log', async () => {
    const { handle, log, workDir } = await scope.start(echoArgv());
    await log.waitFor(/^runner-echo ready$/);
    await expect(launch({ name: 'again', workDir, argv: echoArgv() })).rejects.toThrow(/in use by running process/);
    handle.write('exit 4');
    expect(await within(handle.exited, 'exit')).toEqual({ code: 4 });

    const second = await scope.start(echoArgv(), { workDir });
    await second.log.waitFor(/^runner-echo ready$/);
    expect(second.log.lines).toEqual(['runner-echo ready']);
    expect(existsSync(join(workDir, '.svc', 'exit-code'))).toBe(false);
    second.handle.write('exit 0');
    expect(await within(second.handle.exited, 'exit')).toEqual({ code: 0 });
  });

  test('a command that does not exist ends with 127 and says why in the console', async () => {
    const { handle, log } = await scope.start(['svc-no-such-command-xyz', 'arg']);
    expect(await within(handle.exited, 'exit')).toEqual({ code: 127 });
    expect(log.lines.join('\n')).toContain('svc-no-such-command-xyz');
  });

  test('empty argv or name is refused before anything is spawned', async () => {
    const workDir = scope.workDir();
    await expect(launch({ name: 'x', workDir, argv: [] })).rejects.toThrow(/argv is empty/);
    await expect(launch({ name: ' ', workDir, argv: echoArgv() })).rejects.toThrow(/name is empty/);
    expect(existsSync(join(workDir, '.svc'))).toBe(false);
  });
});
