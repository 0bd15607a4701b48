import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

/**
 * Writes a file so that a reader (or a crash) sees either the old or the new content, never
 * a mix: temp file in the same directory, fsync, rename, fsync the directory.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    const fd = openSync(tmp, 'w', mode);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  syncDirectory(dir);
}

function syncDirectory(dir: string): void {
  // Directory fsync makes the rename durable; not every platform allows opening a directory.
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
