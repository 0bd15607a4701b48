import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** Where the binary an update replaced is kept: `<binary>.previous` (`svc update --rollback`). */
export function previousOf(binary: string): string {
  return `${binary}.previous`;
}

/**
 * Puts `candidate` (a checked file in the binary's folder) in place of `binary`, keeping the
 * old one as `<binary>.previous`. Each step is a rename inside one folder, so at every moment
 * `binary` is a whole executable: the old one or the new one. The running process keeps its
 * mapped copy of the old file; the next exec loads the new one.
 */
export function installBinary(binary: string, candidate: string): void {
  chmodSync(candidate, 0o755);
  keepAsPrevious(binary);
  renameSync(candidate, binary);
  syncFolder(dirname(binary));
}

/** Swaps `<binary>.previous` and `binary`, so a second rollback undoes the first. */
export function restorePrevious(binary: string): void {
  const previous = previousOf(binary);
  if (!existsSync(previous)) throw new Error(`there is no ${basename(previous)} to go back to (it is kept by the last update)`);
  const aside = hardCopy(binary);
  try {
    renameSync(previous, binary);
  } catch (error) {
    rmSync(aside, { force: true });
    throw error;
  }
  renameSync(aside, previous);
  syncFolder(dirname(binary));
}

function keepAsPrevious(binary: string): void {
  renameSync(hardCopy(binary), previousOf(binary));
}

/** A second name for `file` in its folder (a hard link, else a copy); the caller renames it. */
function hardCopy(file: string): string {
  const aside = join(dirname(file), `.${basename(file)}.aside-${randomBytes(6).toString('hex')}`);
  try {
    linkSync(file, aside);
  } catch {
    copyFileSync(file, aside);
    chmodSync(aside, 0o755);
  }
  return aside;
}

function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // Not every file system lets a folder be synced; the renames are still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
