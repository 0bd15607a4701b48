import type { Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { openRealFolder } from '../tenancy/fs';
import { fsError, isInside } from './confine';

export interface FileEntry {
  name: string;
  /** Relative to the scope root. */
  path: string;
  isDirectory: boolean;
  /** Bytes of a file; 0 for a directory. */
  size: number;
  /** ISO 8601. */
  lastModified: string;
}

/** Entries stat'ed at once; bounds open work on a huge directory. */
const BATCH = 64;

/**
 * The entries of a real directory inside the scope: directories first, then files, each group
 * by name (code-unit order, the same on every platform). A link that stays inside the scope is
 * shown as what it points to; one leading outside (or dangling) is shown as itself (a small
 * file), so a listing never reveals anything about the outside.
 */
export async function listDirectory(rootReal: string, dirReal: string, rel: string): Promise<FileEntry[]> {
  // The folder checked, opened once: a link swapped in on the way meanwhile is refused, not listed.
  let folder: ReturnType<typeof openRealFolder>;
  try {
    folder = openRealFolder(dirReal);
  } catch (error) {
    throw fsError(error, rel);
  }
  const entries: FileEntry[] = [];
  try {
    let names: string[];
    try {
      names = await readdir(folder.base);
    } catch (error) {
      throw fsError(error, rel);
    }
    for (let i = 0; i < names.length; i += BATCH) {
      const batch = await Promise.all(names.slice(i, i + BATCH).map((name) => describe(rootReal, `${folder.base}/${name}`, name, rel)));
      for (const entry of batch) if (entry) entries.push(entry);
    }
  } finally {
    folder.close();
  }
  return entries.sort((a, b) => (a.isDirectory !== b.isDirectory ? (a.isDirectory ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function describe(rootReal: string, path: string, name: string, rel: string): Promise<FileEntry | null> {
  let stats: Stats;
  try {
    stats = await lstat(path);
    if (stats.isSymbolicLink()) stats = (await followInside(rootReal, path)) ?? stats;
  } catch {
    return null; // removed while listing
  }
  const isDirectory = stats.isDirectory();
  return { name, path: rel ? `${rel}/${name}` : name, isDirectory, size: isDirectory ? 0 : stats.size, lastModified: stats.mtime.toISOString() };
}

async function followInside(rootReal: string, path: string): Promise<Stats | null> {
  try {
    const target = await realpath(path);
    return isInside(rootReal, target) ? await stat(target) : null;
  } catch {
    return null;
  }
}
