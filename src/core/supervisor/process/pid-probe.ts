import { readFileSync } from 'node:fs';
import { errnoCode } from './errno';

/**
 * True while `pid` is a process that has not ended. A zombie counts as ended: it is dead and
 * only waits for its parent to reap it, which some init processes (containers, VMs) never do,
 * so an orphaned wrapper can stay a zombie forever. Linux reads /proc (one small read, fine for
 * a slow poll); elsewhere kill(pid, 0) is all we have (launchd reaps orphans).
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (process.platform === 'linux') {
    try {
      // "pid (comm) S ...": comm may hold spaces and parens, so the state follows the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state !== 'Z' && state !== 'X' && state !== '';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM'; // exists, but belongs to someone else
  }
}

/**
 * The command line of `pid` with arguments joined by spaces, or undefined when it cannot be
 * read (gone, or a zombie: Linux shows an empty cmdline for one). macOS has no /proc: ask ps,
 * which costs a spawn, so this is for re-attaching, not for polling.
 */
export function commandLine(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (process.platform === 'linux') {
    try {
      const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return raw === '' ? undefined : raw.replaceAll('\0', ' ');
    } catch {
      return undefined;
    }
  }
  const ps = Bun.spawnSync(['ps', '-o', 'command=', '-p', String(pid)], { stdin: 'ignore', stdout: 'pipe', stderr: 'ignore' });
  const text = ps.stdout.toString().trim();
  return ps.exitCode === 0 && text !== '' ? text : undefined;
}

/** The re-attach test: `pid` is alive and its command line carries our random marker (so a recycled pid never passes). */
export function isOurWrapper(pid: number, marker: string): boolean {
  return pidAlive(pid) && (commandLine(pid)?.includes(marker) ?? false);
}
