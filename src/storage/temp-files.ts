import { readdirSync, rmSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { ATOMIC_TEMP_NAME } from '../config/write';

/** A folder to sweep and how deep below it (0: only its own entries). */
export interface SweepRoot {
  dir: string;
  depth: number;
  /** Sub-folder names (at any level) not entered: trees that are not svc's own small files. */
  skip?: readonly string[];
  /** Only the temp files of this file name (a folder svc shares with others, e.g. /etc/svc for --config). */
  only?: string;
}

/**
 * Removes the temp files of atomic writes (`.<name>.<pid>.<hex>.tmp`, see ATOMIC_TEMP_NAME)
 * that a process killed mid-write left in svc's own folders. Only that exact pattern, only
 * files (never a folder or a link's target), and only when the pid in the name is not a live
 * process other than this one: a sync write never leaves a temp file behind in a process
 * still running, so one naming this pid is a previous process's (a container's pid 1 is
 * always pid 1). Returns the paths removed.
 */
export function sweepAtomicTempFiles(roots: readonly SweepRoot[], alive: (pid: number) => boolean = isAlive): string[] {
  const removed: string[] = [];
  const seen = new Set<string>();
  const visit = (dir: string, depth: number, skip: ReadonlySet<string>, only: string | undefined) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // absent or unreadable: whoever uses it reports that
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth > 0 && !skip.has(entry.name)) visit(path, depth - 1, skip, only);
        continue;
      }
      if (!entry.isFile()) continue;
      const match = ATOMIC_TEMP_NAME.exec(entry.name);
      if (!match || (only !== undefined && match[1] !== only)) continue;
      const pid = Number(match[2]);
      if (pid !== process.pid && alive(pid)) continue;
      try {
        rmSync(path, { force: true });
        removed.push(path);
      } catch {
        /* left for the next start */
      }
    }
  };
  for (const root of roots) visit(root.dir, root.depth, new Set(root.skip ?? []), root.only);
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
