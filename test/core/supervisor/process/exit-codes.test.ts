import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DONE, paperArgv, processScope, within } from './harness';

const scope = processScope('exit');

describe('exit codes, as sh reports them', () => {
  test('a crash after READY: its own code, with every line delivered before exited settles', async () => {
    const { handle, log } = await scope.start(paperArgv('--crash-after-ready', '3'));
    expect(await within(handle.exited, 'crash')).toEqual({ code: 3 });
    expect(log.lines.slice(-3)).toEqual([
      '[12:00:00 INFO]: Done (1.234s)! For help, type "help"',
      '[12:00:00 ERROR]: Encountered an unexpected exception',
      '[12:00:00 ERROR]: java.lang.RuntimeException: fake-paper crash requested',
    ]);
    expect(readFileSync(join(handle.stateDir, 'exit-code'), 'utf8')).toBe('3\n');
  });

  test('--exit-immediately 137 (an exit code, not a signal) is 137', async () => {
    const { handle, log } = await scope.start(paperArgv('--exit-immediately', '137'));
    expect(await within(handle.exited, 'exit')).toEqual({ code: 137 });
    expect(log.lines).toEqual([]);
  });

  test('a server that ignores stop and SIGTERM: SIGKILL ends it with 137', async () => {
    const { handle, log } = await scope.start(paperArgv('--hang-on-stop'));
    await log.waitFor(DONE);
    handle.write('stop');
    handle.signal('SIGTERM');
    // Commands are handled in order, so this echo comes after `stop` was ignored; SIGTERM went
    // out before it, and the server still answers.
    handle.write('say still here');
    await log.waitFor(/\[Server\] still here$/);
    expect(handle.isAlive()).toBe(true);

    handle.signal('SIGKILL');
    expect(await within(handle.exited, 'exit after SIGKILL')).toEqual({ code: 137 });
    expect(handle.isAlive()).toBe(false);
  });

  test('SIGTERM on a normal server: it has no handler, so it dies of the signal: 143', async () => {
    const { handle, log } = await scope.start(paperArgv());
    await log.waitFor(DONE);
    handle.signal('SIGTERM');
    expect(await within(handle.exited, 'exit after SIGTERM')).toEqual({ code: 143 });
  });

  test('signal() after the end is a no-op, and exited stays settled with the same value', async () => {
    const { handle } = await scope.start(paperArgv('--exit-immediately', '0'));
    const first = await within(handle.exited, 'exit');
    handle.signal('SIGKILL');
    expect(await handle.exited).toBe(first);
  });
});
