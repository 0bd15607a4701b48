import { afterEach, describe, expect, test } from 'bun:test';
import { commandLine, isOurWrapper, pidAlive } from '../../../../src/core/supervisor/process/pid-probe';
import { eventually } from './harness';

let toKill: number[] = [];
afterEach(async () => {
  for (const pid of toKill) process.kill(pid, 'SIGKILL');
  await eventually(() => toKill.every((pid) => !pidAlive(pid)), 'probe children to end');
  toKill = [];
});

describe('pid probes', () => {
  test('this process is alive and its command line is readable', () => {
    expect(pidAlive(process.pid)).toBe(true);
    expect(commandLine(process.pid)).toMatch(/\bbun\b.*\btest\b/); // bun test ...
  });

  test('nonsense pids are dead', () => {
    expect(pidAlive(0)).toBe(false);
    expect(pidAlive(-1)).toBe(false);
    expect(pidAlive(1.5)).toBe(false);
    expect(commandLine(0)).toBeUndefined();
  });

  test.skipIf(process.platform !== 'linux')('a zombie counts as dead (nobody may ever reap it)', async () => {
    // sh forks a child, then execs a sleep that never reaps it; the child exits only once its
    // parent has become that sleep (so sh cannot reap it first): a zombie.
    const script = 'p=$$; (while [ "$(cat /proc/$p/comm)" != sleep ]; do sleep 0.001; done) & echo $!; exec sleep 30';
    const proc = Bun.spawn(['sh', '-c', script], { stdout: 'pipe' });
    toKill.push(proc.pid);
    const reader = proc.stdout.getReader();
    const first = await reader.read();
    reader.releaseLock();
    const zombie = Number(new TextDecoder().decode(first.value).trim());
    await eventually(() => !pidAlive(zombie), 'the child to become a zombie');
    expect(() => process.kill(zombie, 0)).not.toThrow(); // the kernel still has it
    expect(commandLine(zombie)).toBeUndefined();
  });

  test('isOurWrapper needs the marker in the command line', async () => {
    // `read` is a builtin: sh itself waits on stdin, with no child to outlive the SIGKILL.
    const proc = Bun.spawn(['sh', '-c', 'read x', 'svc-wrapper', 'svc-marker-123'], { stdin: 'pipe' });
    toKill.push(proc.pid);
    await eventually(() => isOurWrapper(proc.pid, 'svc-marker-123'), 'sh to exec (its command line replaces the forked one)');
    expect(isOurWrapper(proc.pid, 'svc-marker-456')).toBe(false);
    expect(isOurWrapper(process.pid, 'svc-marker-123')).toBe(false);
  });
});
