import { errnoCode } from './errno';
import { pidAlive } from './pid-probe';

/**
 * Signals the server process itself, so the wrapper survives to record 128+n. Synchronous: the
 * signal is delivered before this returns, nothing is queued.
 *
 * Fallback: when the server's pid cannot be signalled for another reason than "no such
 * process" (EPERM: the pid now belongs to someone else, so ours is gone), the whole process
 * group (the wrapper's session: wrapper, server and anything it forked) gets the signal; the
 * wrapper's trap keeps it alive through TERM, so the record still happens unless it is KILL.
 * ESRCH means the server already ended and its wrapper is recording the exit (or has): the
 * group is left alone then, because killing the wrapper would lose the exit code.
 */
export function sendSignal(pid: number, wrapperPid: number, signal: 'SIGTERM' | 'SIGKILL'): void {
  try {
    process.kill(pid, signal);
    return;
  } catch (error) {
    if (errnoCode(error) === 'ESRCH') return;
  }
  if (!pidAlive(wrapperPid)) return; // group leader gone: the group id could be recycled, never guess
  try {
    process.kill(-wrapperPid, signal);
  } catch {
    // The group ended meanwhile.
  }
}
