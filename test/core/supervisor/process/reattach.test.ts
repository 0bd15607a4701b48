import { describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ProcessHandle, reattach } from '../../../../src/core/supervisor/process';
import { pidAlive } from '../../../../src/core/supervisor/process/pid-probe';
import { eventually, echoArgv, LineLog, processScope, within } from './harness';

const scope = processScope('reattach');

async function attach(stateDir: string, fromOffset?: number): Promise<{ handle: ProcessHandle; log: LineLog }> {
  const result = await reattach(stateDir, fromOffset === undefined ? {} : { fromOffset });
  if (result.kind !== 'attached') throw new Error(`expected attached, got ${JSON.stringify(result)}`);
  const handle = scope.track(result.handle);
  return { handle, log: new LineLog(handle) };
}

describe('reattach', () => {
  test('the server never sees EOF on stdin while no controller holds the FIFO', async () => {
    const { handle, log } = await scope.start(echoArgv());
    handle.write('echo first');
    await log.waitFor(/^first$/);
    handle.close(); // our write end of the FIFO is closed now; only the wrapper holds it
    expect(() => handle.write('echo closed')).toThrow(/closed/);
    expect(handle.isAlive()).toBe(true);

    const again = await attach(handle.stateDir);
    again.handle.write('echo second');
    await again.log.waitFor(/^second$/);
    again.handle.close();
    const third = await attach(handle.stateDir);
    third.handle.write('echo third');
    await third.log.waitFor(/^third$/);
    third.handle.write('exit 0');
    expect(await within(third.handle.exited, 'exit')).toEqual({ code: 0 });
    expect(readFileSync(handle.logFile, 'utf8')).toBe('runner-echo ready\nfirst\nsecond\nthird\n');
  });

  test('after the server ended: ended, with the recorded code', async () => {
    const { handle } = await scope.start(echoArgv());
    handle.write('exit 5');
    await within(handle.exited, 'exit');
    expect(await reattach(handle.stateDir)).toEqual({ kind: 'ended', exit: { code: 5 } });
  });

  test('a recorded wrapper pid that is alive but lacks the marker (recycled pid): unknown', async () => {
    const { handle, log } = await scope.start(echoArgv());
    await log.waitFor(/^runner-echo ready$/);
    const recordPath = join(handle.stateDir, 'process.json');
    const record: unknown = JSON.parse(readFileSync(recordPath, 'utf8'));
    writeFileSync(recordPath, JSON.stringify({ ...(typeof record === 'object' ? record : {}), wrapperPid: process.pid }));
    const result = await reattach(handle.stateDir);
    expect(result.kind).toBe('unknown');
    expect(result.kind === 'unknown' && result.reason).toMatch(new RegExp(`pid ${process.pid} is alive but is not`));
  });

  test('no process.json, or a broken one: unknown, saying why', async () => {
    const workDir = scope.workDir();
    expect(await reattach(join(workDir, 'nothing-here'))).toEqual({ kind: 'unknown', reason: expect.stringContaining('no ') });
    writeFileSync(join(workDir, 'process.json'), '{"name": 1}');
    expect(await reattach(workDir)).toEqual({ kind: 'unknown', reason: expect.stringContaining('missing fields') });
    writeFileSync(join(workDir, 'process.json'), 'not json');
    expect(await reattach(workDir)).toEqual({ kind: 'unknown', reason: expect.stringContaining('not valid JSON') });
  });

  test('wrapper SIGKILLed, server still running: unknown; the handle waits for the orphan to end', async () => {
    const { handle, log } = await scope.start(echoArgv());
    await log.waitFor(/^runner-echo ready$/);
    process.kill(handle.wrapperPid, 'SIGKILL');
    await eventually(() => !pidAlive(handle.wrapperPid), 'the wrapper to die');
    const result = await reattach(handle.stateDir);
    expect(result.kind).toBe('unknown');
    expect(result.kind === 'unknown' && result.reason).toMatch(/orphaned server/);
    expect(handle.isAlive()).toBe(true);

    process.kill(handle.pid, 'SIGKILL');
    // Nobody recorded the code: the end is seen by the pid vanishing (slow poll), code unknown.
    expect(await within(handle.exited, 'orphan end')).toEqual({ code: null });
    expect(await reattach(handle.stateDir)).toEqual({ kind: 'ended', exit: { code: null } });
  });

  test('fromOffset re-delivers the log from there; a line cut at the attach point arrives whole', async () => {
    const { handle, log } = await scope.start(echoArgv());
    handle.write('echo one');
    handle.write('part half-');
    await log.waitFor(/^one$/);
    await eventually(() => readFileSync(handle.logFile, 'utf8').endsWith('half-'), 'the partial line in the log');
    handle.close();

    const fromStart = await attach(handle.stateDir, 0);
    const atEnd = await attach(handle.stateDir);
    expect(atEnd.handle.lastLines(5)).toEqual(['runner-echo ready', 'one']);
    atEnd.handle.write('part line');
    atEnd.handle.write('nl');
    await atEnd.log.waitFor(/^half-line$/);
    await fromStart.log.waitFor(/^half-line$/);
    expect(fromStart.log.lines).toEqual(['runner-echo ready', 'one', 'half-line']);
    expect(atEnd.log.lines).toEqual(['half-line']);
    fromStart.handle.close();
    atEnd.handle.write('exit 0');
    expect(await within(atEnd.handle.exited, 'exit')).toEqual({ code: 0 });
  });
});
