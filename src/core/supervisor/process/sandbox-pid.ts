import { readdirSync, readFileSync } from 'node:fs';
import { readProcStat } from './proc-stat';
import { watchUntil } from './watch-until';

/** Behind the directory watch; the init forks the server within a millisecond or two. */
const POLL_MS = 5;

/**
 * The pid signals must go to when the server runs in a bubblewrap pid namespace. The chain is
 *
 *   wrapper ─ bwrap (server.pid) ─ init (bwrap's "child-pid", pid 1 inside) ─ server
 *
 * The init is `timeout 0` (core/isolation): pid 1 of a namespace only gets the signals it
 * handles, so a server that does not handle SIGTERM would never see ours if it were pid 1
 * itself; as the init's only child it is an ordinary process, and when it ends the init ends,
 * which takes down everything the server left behind. bwrap writes the init's pid (as this pid
 * namespace sees it) to the info file; the server is the init's child. Both links are checked
 * against /proc (the parent of each), so nothing but bwrap's own report is believed.
 *
 * Resolves with the server's pid, or with the init's when the server has already ended (its
 * exit code follows through the wrapper as usual). Rejects when the wrapper ends before the
 * sandbox reported anything (bwrap's own error is then the last line of console.log), or
 * after `timeoutMs`.
 */
export function waitForSandboxedPid(infoPath: string, bwrapPid: number, wrapperExited: Promise<number>, timeoutMs: number): Promise<number> {
  return watchUntil<number>(
    infoPath,
    {
      pollMs: POLL_MS,
      timeoutMs,
      wrapperExited,
      timeoutError: () => new Error(`the sandbox reported no pid in ${infoPath} after ${timeoutMs} ms`),
      exitedError: () => new Error('the sandbox did not start'),
    },
    (final) => {
      const init = readChildPid(infoPath);
      if (init === undefined) return undefined;
      const initParent = parentOf(init);
      if (initParent !== undefined && initParent !== bwrapPid) return { error: new Error(`the sandbox reported pid ${init}, which is not a child of bwrap (${bwrapPid})`) };
      const server = childOf(init);
      if (server !== undefined) return { value: server };
      // The server (and its init) already ended: signals go nowhere, its exit code follows as usual.
      return final || initParent === undefined ? { value: init } : undefined;
    },
  );
}

/** bwrap's `"child-pid"` once the info file holds complete JSON. */
function readChildPid(path: string): number | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof value !== 'object' || value === null || !('child-pid' in value)) return undefined;
    const pid = value['child-pid'];
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // not written yet, or half written
  }
}

/** The parent pid of a live (non-zombie) process, from /proc/<pid>/stat; undefined when it is gone. */
export function parentOf(pid: number): number | undefined {
  const stat = readProcStat(pid);
  return stat && stat.state !== 'Z' ? stat.ppid : undefined;
}

/** A live child of `pid` (the init has exactly one); undefined when there is none. */
export function childOf(pid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const candidate = Number(entry);
    if (!Number.isInteger(candidate) || candidate <= 0) continue;
    const stat = readProcStat(candidate);
    if (stat && stat.ppid === pid && stat.state !== 'Z') return candidate;
  }
  return undefined;
}
