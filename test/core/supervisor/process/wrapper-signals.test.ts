import { describe, expect, test } from 'bun:test';
import { DONE, paperArgv, processScope, within } from './harness';

const scope = processScope('wrapper-signals');

describe('the wrapper under signals', () => {
  test('SIGTERM to the whole process group: the server dies, the wrapper survives to record 143', async () => {
    const { handle, log } = await scope.start(paperArgv());
    await log.waitFor(DONE);
    process.kill(-handle.wrapperPid, 'SIGTERM'); // the wrapper leads the group (its own session)
    expect(await within(handle.exited, 'exit')).toEqual({ code: 143 });
  });

  test('the server does not inherit ignored signals: SIGINT still ends it (130)', async () => {
    const { handle, log } = await scope.start(paperArgv());
    await log.waitFor(DONE);
    process.kill(handle.pid, 'SIGINT');
    expect(await within(handle.exited, 'exit')).toEqual({ code: 130 });
  });
});
