/**
 * Nothing of a service outlives it (issue 38, finding 3): a server that forks children and
 * grandchildren, stopped, crashed, killed, killed while its wrapper cannot record, orphaned by a
 * killed wrapper, and ended while no controller watched; each time no process of its group is
 * left once `exited` settles (or, with no handle at all, once the wrapper recorded the end).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { closeSync, constants, existsSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { reattach } from '../../../../src/core/supervisor/process';
import { groupMembers } from '../../../../src/core/supervisor/process/process-group';
import { pidAlive } from '../../../../src/core/supervisor/process/pid-probe';
import { spawnFixture } from '../../../fixtures/spawn-fixture';
import { forkingServerArgv, groupOf, killSleepers, sleepersOf, uniqueTag } from '../../../support/process-tree';
import { eventually, LineLog, processScope, RUNNER_HOST, within } from './harness';

const scope = processScope('process-tree');
const tags: string[] = [];
afterEach(() => tags.splice(0).forEach(killSleepers));

/** A forking server launched here, its three sleepers up, all in the wrapper's group. */
async function forking(...modes: ('hang' | 'escape')[]) {
  const tag = uniqueTag();
  tags.push(tag);
  const started = await scope.start(forkingServerArgv(tag, ...modes));
  await started.log.waitFor(/Done \(/);
  await eventually(() => sleepersOf(tag).length === 3 + (modes.includes('escape') ? 1 : 0), 'the sleepers');
  return { tag, ...started };
}

describe('the process group of a service', () => {
  test('the wrapper leads a group of its own; the server and everything it forked are in it', async () => {
    const { handle, tag } = await forking();
    expect(groupOf(handle.wrapperPid)).toBe(handle.wrapperPid);
    expect(groupOf(handle.pid)).toBe(handle.wrapperPid);
    for (const pid of sleepersOf(tag)) expect(groupOf(pid)).toBe(handle.wrapperPid);
    expect(groupOf(process.pid)).not.toBe(handle.wrapperPid);
  });

  test('stop: exit 0, and nothing of the group is left once exited settles', async () => {
    const { handle, tag } = await forking();
    handle.write('stop');
    expect(await within(handle.exited, 'exit after stop')).toEqual({ code: 0 });
    expect(sleepersOf(tag)).toEqual([]);
    expect(groupMembers(handle.wrapperPid)).toEqual([]);
  });

  test('crash: its own code, and its children do not outlive it', async () => {
    const { handle, tag } = await forking();
    handle.write('crash');
    expect(await within(handle.exited, 'exit after crash')).toEqual({ code: 3 });
    expect(sleepersOf(tag)).toEqual([]);
    expect(groupMembers(handle.wrapperPid)).toEqual([]);
  });

  test('a kill of a server that ignores stop and SIGTERM: 137, and the whole group is gone', async () => {
    const { handle, log, tag } = await forking('hang');
    handle.write('stop');
    handle.signal('SIGTERM');
    handle.write('still');
    await log.waitFor(/^echo: still$/);
    expect(sleepersOf(tag).length).toBe(3); // SIGTERM is the server's alone
    handle.signal('SIGKILL');
    expect(await within(handle.exited, 'exit after SIGKILL')).toEqual({ code: 137 });
    expect(sleepersOf(tag)).toEqual([]);
  });

  test('SIGKILL reaches the children at once, and the wrapper still records the exit', async () => {
    const { handle, tag } = await forking('hang');
    process.kill(handle.wrapperPid, 'SIGSTOP'); // it cannot record nor end the group now
    try {
      handle.signal('SIGKILL');
      await eventually(() => sleepersOf(tag).length === 0, 'the children to die with the kill');
      expect(pidAlive(handle.wrapperPid)).toBe(true);
    } finally {
      process.kill(handle.wrapperPid, 'SIGCONT');
    }
    expect(await within(handle.exited, 'exit after SIGCONT')).toEqual({ code: 137 });
  });

  test('a wrapper killed before the server ends: the handle ends the orphaned group itself', async () => {
    const { handle, tag } = await forking();
    process.kill(handle.wrapperPid, 'SIGKILL');
    await eventually(() => !pidAlive(handle.wrapperPid), 'the wrapper to die');
    expect(sleepersOf(tag).length).toBe(3); // nobody ended them yet
    process.kill(handle.pid, 'SIGKILL');
    expect(await within(handle.exited, 'the end')).toEqual({ code: null });
    expect(sleepersOf(tag)).toEqual([]);
  });

  test('a child that leaves the group (setsid) is out of reach here: isolation ends it (uid, sandbox)', async () => {
    const { handle, tag } = await forking('escape');
    handle.write('stop');
    expect(await within(handle.exited, 'exit after stop')).toEqual({ code: 0 });
    const left = sleepersOf(tag);
    expect(left.length).toBe(1);
    expect(groupOf(left[0]!)).toBe(left[0]!);
  });
});

describe('the process group after a controller restart', () => {
  async function hosted(name: string, tag: string) {
    const workDir = scope.workDir();
    const host = spawnFixture(RUNNER_HOST, [workDir, name, '--', ...forkingServerArgv(tag)], { cwd: workDir });
    scope.trackPid(host.proc.pid);
    const launched = JSON.parse((await host.waitForLine(/^launched (.*)$/, 5_000))[1]!) as { stateDir: string; pid: number; wrapperPid: number };
    scope.trackPid(launched.pid);
    scope.trackPid(launched.wrapperPid);
    await host.waitForLine(/^line .*Done \(/, 5_000);
    await eventually(() => sleepersOf(tag).length === 3, 'the sleepers');
    await host.kill(); // SIGKILL: the controller is gone, the service is not
    return launched;
  }

  test('re-attached: the same group, and a stop leaves nothing of it', async () => {
    const tag = uniqueTag();
    tags.push(tag);
    const launched = await hosted('regroup', tag);
    const result = await reattach(launched.stateDir);
    if (result.kind !== 'attached') throw new Error(`expected attached, got ${JSON.stringify(result)}`);
    const handle = scope.track(result.handle);
    const log = new LineLog(handle);
    for (const pid of sleepersOf(tag)) expect(groupOf(pid)).toBe(handle.wrapperPid);
    handle.write('hello');
    await log.waitFor(/^echo: hello$/);
    handle.write('stop');
    expect(await within(handle.exited, 'exit after stop')).toEqual({ code: 0 });
    expect(sleepersOf(tag)).toEqual([]);
  });

  test('re-attached: a kill ends the whole group', async () => {
    const tag = uniqueTag();
    tags.push(tag);
    const launched = await hosted('rekill', tag);
    const result = await reattach(launched.stateDir);
    if (result.kind !== 'attached') throw new Error(`expected attached, got ${JSON.stringify(result)}`);
    const handle = scope.track(result.handle);
    handle.signal('SIGKILL');
    expect(await within(handle.exited, 'exit after SIGKILL')).toEqual({ code: 137 });
    expect(sleepersOf(tag)).toEqual([]);
  });

  test('a crash while no controller watches: the wrapper records it and ends the group by itself', async () => {
    const tag = uniqueTag();
    tags.push(tag);
    const launched = await hosted('unwatched', tag);
    const fifo = openSync(join(launched.stateDir, 'stdin.fifo'), constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fifo, 'crash\n');
    closeSync(fifo);
    await eventually(() => existsSync(join(launched.stateDir, 'exit-code')), 'the exit record');
    await eventually(() => sleepersOf(tag).length === 0 && !pidAlive(launched.wrapperPid), 'the group to end');
    expect(await reattach(launched.stateDir)).toEqual({ kind: 'ended', exit: { code: 3 } });
  });
});
