import { lstatSync, realpathSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';

/**
 * The physical absolute path the kernel would reach for `p`: segments are walked one by one, an
 * existing symlink is replaced by its real path before a following `..` applies (path.resolve would
 * apply `..` lexically first). Components that do not exist are appended as they are.
 */
export function physicalPath(p: string): string {
  const parts = (isAbsolute(p) ? p : `${process.cwd()}/${p}`).split('/');
  let current = '/';
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    let info: Stats | undefined;
    try {
      info = lstatSync(next);
    } catch {
      info = undefined; // missing (or unreadable): appended lexically
    }
    current = info?.isSymbolicLink() ? realpathSync(next) : next;
  }
  return current;
}

/**
 * Whether `candidate` (after resolving `..` and symlinks of existing ancestors the way the kernel
 * would) lies inside one of `roots` (also resolved). A path equal to a root counts as inside: the
 * templates and config targets are roots themselves; the caller decides whether a root may be replaced.
 * A symlink loop or any resolution error answers false.
 */
export function insideRoots(candidate: string, roots: readonly string[]): boolean {
  let real: string;
  try {
    real = physicalPath(candidate);
  } catch {
    return false;
  }
  for (const root of roots) {
    let realRoot: string;
    try {
      realRoot = physicalPath(root);
    } catch {
      continue;
    }
    const rel = relative(realRoot, real);
    if (rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`))) return true;
  }
  return false;
}
