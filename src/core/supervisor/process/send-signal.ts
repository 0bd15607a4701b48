import { errnoCode } from './errno';
import { pidAlive } from './pid-probe';
import { killGroupMembers, type GroupTarget } from './process-group';

/**
 * Signals a service. Synchronous: every signal is sent before this returns, nothing is queued.
 *
 * SIGTERM goes to the server process itself (inside a sandbox, the server, not the bubblewrap
 * around it, which would take the sandbox down with SIGKILL); what it forked ends with the group
 * once it has ended (below). SIGKILL goes to the server first, so the exit code is its 137,
 * then to every other member of the process group (its children, grandchildren, bubblewrap)
 * except the wrapper, which must survive to record the exit code and then ends the group itself
 * (wrapper-script.ts).
 *
 * Fallback: when the server's pid cannot be signalled for another reason than "no such
 * process" (EPERM: the pid now belongs to someone else, so ours is gone), the whole process
 * group gets the signal (the wrapper's trap keeps it alive through TERM, so the record still
 * happens unless it is KILL).
 */
export function sendSignal(pid: number, group: GroupTarget, signal: 'SIGTERM' | 'SIGKILL'): void {
  let fallback = false;
  try {
    process.kill(pid, signal);
  } catch (error) {
    fallback = errnoCode(error) !== 'ESRCH';
  }
  if (signal === 'SIGKILL') killGroupMembers(group);
  if (!fallback) return;
  if (!pidAlive(group.wrapperPid)) return; // group leader gone: the group id could be recycled, never guess
  try {
    process.kill(-group.wrapperPid, signal);
  } catch {
    // The group ended meanwhile.
  }
}
