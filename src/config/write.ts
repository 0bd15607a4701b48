import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface AtomicWriteOptions {
  /** File mode of the file written, exactly (the umask does not narrow it); default 0644 less the umask. */
  mode?: number;
  /**
   * fsync the file and its directory, so the new content survives a power loss or kernel crash
   * (default). Without it the write is still atomic and survives the controller being killed:
   * the page cache outlives the process. Worth dropping for files that matter only while this
   * boot lasts (a service's work dir, the list of live processes) and are written often.
   */
  durable?: boolean;
}

/**
 * Writes a file so that a reader (or a crash) sees either the old or the new content, never
 * a mix: temp file in the same directory, (fsync), rename, (fsync the directory).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const { mode = 0o644, durable = true } = options;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  // A random part, so two writers of one file (two processes, or a sync and an async path) never share a temp file.
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(tmp, 'w', mode);
    try {
      if (options.mode !== undefined) fchmodSync(fd, options.mode);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  if (durable) syncDirectory(dir);
}

/** fsync of a folder, so the renames in it are durable; best effort (not every platform opens folders). */
export function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* best effort */
  }
}
