import { readdirSync } from 'node:fs';
import { readProcStat } from './proc-stat';
import { errnoCode } from './errno';
import { commandLine, pidAlive } from './pid-probe';

/**
 * A service's process group: the wrapper runs in its own session (Bun.spawn `detached`), so it
 * leads a group whose id is its pid, and the server and everything it forks without calling
 * setsid/setpgid belong to it. The wrapper ends the group itself once the exit code is written
 * (wrapper-script.ts); these are the controller's side of it: the members (for a kill that
 * reaches the children at once) and a sweep once the end was seen (for a wrapper that was
 * killed before it could).
 *
 * A group id is only trusted while it is provably ours: the wrapper is alive and carries our
 * marker, or the wrapper is gone and no process holds its pid (a pid that is still some
 * process's group id is never handed out again, so members found then are the old group's).
 */
export interface GroupTarget {
  wrapperPid: number;
  marker: string;
}

/** Pids of live (non-zombie) processes whose process group is `pgid`, from /proc; [] where there is no /proc. */
export function groupMembers(pgid: number): number[] {
  if (process.platform !== 'linux' || !Number.isInteger(pgid) || pgid <= 1) return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const stat = readProcStat(pid);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') members.push(pid);
  }
  return members;
}

/**
 * True when no live process is left in the group. kill(-pgid, 0) answers "none at all" without
 * reading /proc (the usual case once the wrapper ended its group); zombies still count for it,
 * so anything else is settled by the members' states.
 */
function groupEmpty(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if (errnoCode(error) === 'ESRCH') return true;
  }
  return groupMembers(pgid).length === 0;
}

/**
 * Whether `pgid` may be signalled as the service's group (see the class comment): `ours`, `other`
 * (the pid went to another program), or `exiting`: the wrapper is past its `kill -KILL 0` and
 * its memory is gone (Linux shows an empty command line) but it is not a zombie yet. That lasts
 * a moment; taking it for "not ours" would skip the wait for the group it has just killed.
 */
type GroupStanding = 'ours' | 'other' | 'exiting';

function standingOf(target: GroupTarget): GroupStanding {
  const { wrapperPid } = target;
  if (!Number.isInteger(wrapperPid) || wrapperPid <= 1 || wrapperPid === process.pid) return 'other';
  if (ownGroup() === wrapperPid) return 'other'; // never the controller's own group
  if (!pidAlive(wrapperPid)) return 'ours';
  const line = commandLine(wrapperPid);
  if (line === undefined) return pidAlive(wrapperPid) ? 'exiting' : 'ours';
  return line.includes(target.marker) ? 'ours' : 'other';
}

function groupIsOurs(target: GroupTarget): boolean {
  return standingOf(target) === 'ours';
}

/**
 * SIGKILL to every member of the group but the wrapper, which must live on to record the exit
 * code (it ends the rest of the group itself right after). One pass over /proc: a child forked
 * meanwhile is caught by the wrapper's own kill at the end. Returns how many were signalled.
 */
export function killGroupMembers(target: GroupTarget): number {
  if (!groupIsOurs(target)) return 0;
  let signalled = 0;
  for (const pid of groupMembers(target.wrapperPid)) {
    if (pid === target.wrapperPid) continue;
    try {
      process.kill(pid, 'SIGKILL');
      signalled++;
    } catch {
      // Ended meanwhile.
    }
  }
  return signalled;
}

/**
 * After the end was seen: SIGKILL to the whole group when anything of it is left (the wrapper
 * normally did this itself; it may have been killed first). The wrapper has recorded the exit
 * (or never will), so it may go too. True when something was signalled.
 */
export function sweepGroup(target: GroupTarget): boolean {
  if (!groupIsOurs(target)) return false;
  if (groupEmpty(target.wrapperPid)) return false;
  try {
    process.kill(-target.wrapperPid, 'SIGKILL');
    return true;
  } catch {
    return false; // ended meanwhile
  }
}

/**
 * The end of a service's group once its end was seen: the sweep, then a wait until no live
 * process is left in it, bounded by `timeoutMs` (a process stuck in the kernel must not hold
 * up the end forever). False when something was still there at the deadline.
 */
export async function endGroup(target: GroupTarget, timeoutMs = 2_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  let standing = standingOf(target);
  for (let wait = 1; standing === 'exiting'; wait = Math.min(wait * 2, 50)) {
    if (performance.now() > deadline) return false;
    await Bun.sleep(wait);
    standing = standingOf(target);
  }
  if (standing === 'other') return true;
  sweepGroup(target);
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    if (groupEmpty(target.wrapperPid)) return true;
    if (performance.now() > deadline) return false;
    await Bun.sleep(wait);
  }
}

let ownPgrp: number | undefined;

/** The controller's own process group (read once). */
function ownGroup(): number | undefined {
  if (ownPgrp === undefined && process.platform === 'linux') ownPgrp = readProcStat(process.pid)?.pgrp;
  return ownPgrp;
}
