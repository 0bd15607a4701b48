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
 * The temp files writeFileAtomic makes: `.<name>.<pid>.<12 hex digits>.tmp`, beside the file.
 * A process killed between creating one and its rename leaves it behind; the controller
 * removes those at start (storage/temp-files.ts), matching exactly this and nothing else.
 */
export const ATOMIC_TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/**
 * A write that failed, named by the file it was for (never the temp file, which the caller
 * never heard of) and the folder when the folder is the problem. `code` is the system's
 * (ENOSPC, EDQUOT, EACCES, …), so callers can tell a full disk from the rest.
 */
export class FileWriteError extends Error {
  override name = 'FileWriteError';
  readonly code: string;

  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    const code = String((cause as NodeJS.ErrnoException).code ?? 'EIO');
    super(describeWriteFailure(path, code, cause), { cause });
    this.code = code;
  }
}

function describeWriteFailure(path: string, code: string, cause: unknown): string {
  switch (code) {
    case 'ENOSPC':
      return `${path} could not be written: no space left on the device (ENOSPC)`;
    case 'EDQUOT':
      return `${path} could not be written: the disk quota is used up (EDQUOT)`;
    case 'EACCES':
    case 'EPERM':
      return `${path} could not be written: the folder ${dirname(path)} does not let this user (uid ${process.getuid?.() ?? '?'}) create files in it (${code}); give the user svc runs as write access to it`;
    case 'EROFS':
      return `${path} could not be written: ${dirname(path)} is on a read-only file system (EROFS)`;
    default: {
      // The system's message names the temp file, which the reader never heard of: not shown.
      const syscall = (cause as NodeJS.ErrnoException).syscall;
      return `${path} could not be written (${code}${syscall ? ` in ${syscall}` : ''})`;
    }
  }
}

/**
 * Writes a file so that a reader (or a crash) sees either the old or the new content, never
 * a mix: temp file in the same directory, (fsync), rename, (fsync the directory). A failure
 * leaves the old file as it was, removes the temp file, and is thrown as a FileWriteError.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const { mode = 0o644, durable = true } = options;
  const dir = dirname(path);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new FileWriteError(path, error);
  }
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
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* the folder refused the temp file in the first place */
    }
    throw new FileWriteError(path, error);
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
