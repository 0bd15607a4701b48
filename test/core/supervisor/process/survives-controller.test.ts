import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reattach } from '../../../../src/core/supervisor/process';
import { pidAlive } from '../../../../src/core/supervisor/process/pid-probe';
import { spawnFixture } from '../../../fixtures/spawn-fixture';
import { DONE, eventually, LineLog, paperArgv, processScope, RUNNER_HOST, within } from './harness';

const scope = processScope('survive');

interface Launched {
  stateDir: string;
  pid: number;
  wrapperPid: number;
}

function parseLaunched(json: string | undefined): Launched {
  const value: unknown = JSON.parse(json ?? 'null');
  if (typeof value !== 'object' || value === null) throw new Error(`bad launched line: ${json}`);
  const { stateDir, pid, wrapperPid } = { stateDir: undefined, pid: undefined, wrapperPid: undefined, ...value };
  if (typeof stateDir !== 'string' || typeof pid !== 'number' || typeof wrapperPid !== 'number') throw new Error(`bad launched line: ${json}`);
  return { stateDir, pid, wrapperPid };
}

describe('a server survives its controller', () => {
  test('host SIGKILLed: the server runs on; reattach gets console, stdin, stop and the exit code', async () => {
    const workDir = scope.workDir();
    const host = spawnFixture(RUNNER_HOST, [workDir, 'survivor', '--', ...paperArgv()], { cwd: workDir });
    scope.trackPid(host.proc.pid);
    const launched = parseLaunched((await host.waitForLine(/^launched (.*)$/, 5_000))[1]);
    scope.trackPid(launched.pid);
    scope.trackPid(launched.wrapperPid);
    expect(launched.stateDir).toBe(join(workDir, '.svc'));
    await host.waitForLine(/^line .*Done \(1\.234s\)!/, 5_000);

    await host.kill(); // SIGKILL: no cleanup of any kind runs in the host
    expect(host.proc.signalCode).toBe('SIGKILL');
    expect(pidAlive(launched.pid)).toBe(true);
    expect(pidAlive(launched.wrapperPid)).toBe(true);

    const result = await reattach(launched.stateDir);
    if (result.kind !== 'attached') throw new Error(`expected attached, got ${JSON.stringify(result)}`);
    const handle = scope.track(result.handle);
    const log = new LineLog(handle);
    expect([handle.name, handle.pid, handle.wrapperPid, handle.stateDir]).toEqual(['survivor', launched.pid, launched.wrapperPid, launched.stateDir]);
    expect(handle.isAlive()).toBe(true);
    // Lines from before the re-attach are context in lastLines, not delivered again.
    expect(handle.lastLines(1)[0]).toMatch(DONE);

    handle.write('say back');
    await log.waitFor(/^\[12:00:00 INFO\]: \[Server\] back$/);
    expect(log.lines[0]).toBe('[12:00:00 INFO]: [Server] back');
    handle.write('stop');
    expect(await within(handle.exited, 'exit after stop')).toEqual({ code: 0 });
    expect(log.lines.at(-1)).toBe('[12:00:00 INFO]: Stopping server');
    expect(readFileSync(handle.logFile, 'utf8')).toContain('Done (1.234s)!');
  });

  test('a server that ends while no controller is attached: reattach reports its exit code', async () => {
    const workDir = scope.workDir();
    const host = spawnFixture(RUNNER_HOST, [workDir, 'crasher', '--', ...paperArgv('--crash-after-ready', '9', '--done-delay-ms', '100')], { cwd: workDir });
    scope.trackPid(host.proc.pid);
    const launched = parseLaunched((await host.waitForLine(/^launched (.*)$/, 5_000))[1]);
    scope.trackPid(launched.pid);
    scope.trackPid(launched.wrapperPid);
    await host.kill();

    // The orphaned wrapper records the crash although nobody watches.
    await eventually(() => existsSync(join(launched.stateDir, 'exit-code')), 'the exit record');
    expect(await reattach(launched.stateDir)).toEqual({ kind: 'ended', exit: { code: 9 } });
    expect(pidAlive(launched.pid)).toBe(false);
  });
});
