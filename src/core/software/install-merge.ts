import { lstatSync, readdirSync, renameSync, type Stats } from 'node:fs';
import { join } from 'node:path';

export interface MergeOptions {
  /** Paths (relative, `/`-separated) left where they are: the installer jar and its log. */
  skip: ReadonlySet<string>;
  /**
   * Paths that make svc count the server as installed (`unix_args.txt`, the server jar). They
   * move after everything else, so an interrupted move never looks like a complete install.
   */
  last: readonly string[];
  /** Default renameSync; tests make it fail part-way. */
  rename?: (from: string, to: string) => void;
}

export interface MergeReport {
  /** Files and folders renamed into place (a folder the template lacked counts once). */
  moved: number;
  /** Paths the template already had: its own version stays, the installer's is dropped. */
  kept: string[];
}

/**
 * Moves what an installer wrote in `from` into `into` without overwriting anything: a path
 * `into` already has keeps its own version (a folder both have is merged), everything else is
 * renamed over, a whole folder in one rename when `into` lacks it (`libraries/`). Both must be
 * on one file system (the staging folder is the template's sibling). On any failure the
 * renames done so far are undone, so `into` is as it was, and the error is rethrown.
 */
export function moveInstalled(from: string, into: string, options: MergeOptions): MergeReport {
  const rename = options.rename ?? renameSync;
  const done: { from: string; to: string }[] = [];
  const kept: string[] = [];
  const holdsLast = (rel: string) => options.last.some((path) => path === rel || path.startsWith(`${rel}/`));

  const merge = (src: string, dst: string, rel: string): void => {
    const entries = readdirSync(src, { withFileTypes: true })
      .map((entry) => ({ name: entry.name, rel: rel === '' ? entry.name : `${rel}/${entry.name}`, isDir: entry.isDirectory() }))
      .filter((entry) => !options.skip.has(entry.rel))
      .sort((a, b) => Number(holdsLast(a.rel)) - Number(holdsLast(b.rel)));
    for (const entry of entries) {
      const source = join(src, entry.name);
      const target = join(dst, entry.name);
      const existing = lstatOrNull(target);
      if (existing === null) {
        rename(source, target);
        done.push({ from: source, to: target });
      } else if (entry.isDir && existing.isDirectory()) {
        merge(source, target, entry.rel);
      } else {
        kept.push(entry.rel);
      }
    }
  };

  try {
    merge(from, into, '');
  } catch (error) {
    for (const op of done.reverse()) {
      try {
        renameSync(op.to, op.from);
      } catch {
        // Best effort: the first error is the one worth reporting.
      }
    }
    throw error;
  }
  return { moved: done.length, kept };
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
}
