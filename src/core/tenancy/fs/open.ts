import { closeSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { codeOf, isMissing, missing } from './errors';
import { usesProcFds } from './proc-fds';
import { FOLDER_FLAGS, READ_FLAGS, RefusedEntry, type OpenedFile } from './rule';

/**
 * Opens a regular file for reading without following a link at the end and without blocking:
 * null when missing; RefusedEntry (named `rel`) for a link or anything but a regular file. For
 * trees svc alone writes (templates, canonical copies); service directories go through
 * TenantTree, which also refuses links on the way and hard links.
 */
export function openRegular(path: string, rel: string = path, quiet = false): OpenedFile | null {
  let fd: number;
  try {
    // Refused by type before any open where possible: opening a device can have effects.
    const before = lstatSync(path);
    if (before.isSymbolicLink()) throw new RefusedEntry(rel, 'link');
    if (!before.isFile()) throw new RefusedEntry(rel, 'special');
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    if (isMissing(error)) return null;
    if (quiet) return null;
    if (error instanceof RefusedEntry) throw error;
    const code = codeOf(error);
    if (code === 'ELOOP') throw new RefusedEntry(rel, 'link');
    if (code === 'ENXIO' || code === 'EISDIR') throw new RefusedEntry(rel, 'special');
    throw error;
  }
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!stats.isFile()) {
    closeSync(fd);
    if (quiet) return null;
    throw new RefusedEntry(rel, 'special');
  }
  let open = true;
  return {
    fd,
    stats,
    path: usesProcFds() ? `/proc/self/fd/${fd}` : path,
    close: () => {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/**
 * A folder found by its real path (no link in it), opened so that entries are reached through
 * it and not by looking the path up again: on Linux through /proc/self/fd, after checking that
 * the folder opened is the one named (a link swapped in on the way since is refused with
 * ELOOP); elsewhere the path itself, checked with lstat.
 */
export function openRealFolder(real: string): { base: string; stats: Stats; close(): void } {
  if (usesProcFds()) {
    const fd = openSync(real, FOLDER_FLAGS);
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) !== real) throw missing(real, 'ELOOP');
      const stats = fstatSync(fd);
      let open = true;
      return {
        base: `/proc/self/fd/${fd}`,
        stats,
        close: () => {
          if (!open) return;
          open = false;
          closeSync(fd);
        },
      };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }
  const stats = lstatSync(real);
  if (stats.isSymbolicLink()) throw missing(real, 'ELOOP');
  if (!stats.isDirectory()) throw missing(real, 'ENOTDIR');
  return { base: real, stats, close: () => undefined };
}

/** Reads a whole open file, at most `max` bytes (more is RefusedEntry too-large: it grew meanwhile). */
export function readAll(fd: number, max: number, rel: string): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    total += read;
    if (total > max) throw new RefusedEntry(rel, 'too-large');
    chunks.push(Buffer.from(buffer.subarray(0, read)));
  }
  return Buffer.concat(chunks, total);
}

/**
 * Splits a relative POSIX path into its folder ('' for the root) and its name. A name that
 * could step elsewhere (empty, `.`, `..`) is a caller's bug: thrown, never joined.
 */
export function split(rel: string): { dir: string; name: string } {
  const slash = rel.lastIndexOf('/');
  const name = slash < 0 ? rel : rel.slice(slash + 1);
  if (name === '' || name === '.' || name === '..' || name.includes('\0')) throw new Error(`${JSON.stringify(rel)} is not a relative path of a service directory`);
  return { dir: slash < 0 ? '' : rel.slice(0, slash), name };
}
