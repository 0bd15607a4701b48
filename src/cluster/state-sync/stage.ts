import { randomBytes } from 'node:crypto';
import { closeSync, constants, copyFileSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * The folders of one service under the state root, and how a push moves between them:
 *
 *   <name>            the canonical copy (what readers see)
 *   <name>.incoming   a push being staged: hardlinks of unchanged files + uploaded files
 *   <name>.old-<hex>  the previous copy during a swap, removed right after
 *
 *   commit:  <name> ──rename──▶ <name>.old-<hex>
 *            <name>.incoming ──rename──▶ <name>     (fails: the old copy is renamed back)
 *            <name>.old-<hex> ──removed (in the background)
 *
 * Hardlink seeding is safe because nothing writes into a seeded inode: an uploaded file is
 * always created fresh (any link at its path is unlinked first).
 */
export const incomingPath = (root: string, name: string) => join(root, `${name}.incoming`);
export const canonicalPath = (root: string, name: string) => join(root, name);

const OLD = /^(.+)\.old-[0-9a-f]{16}$/;
const INCOMING = /^(.+)\.incoming$/;
/** Temp files of writeFileAtomic next to the canonical copies (the last-push facts). */
const ATOMIC_TEMP = /^\..+\.\d+\.\d+\.tmp$/;

/**
 * Clears what a killed controller left in the state root: every `*.incoming` (a push that never
 * committed) and atomic-write temp files are removed; an `*.old-*` copy is renamed back when its
 * canonical copy is missing (killed between the two renames of a commit), else removed.
 * Returns what was done, for the log.
 */
export function tidyStateRoot(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const done: string[] = [];
  for (const name of names) {
    const path = join(root, name);
    if (INCOMING.test(name) || ATOMIC_TEMP.test(name)) {
      rmSync(path, { recursive: true, force: true });
      done.push(`removed ${name}`);
      continue;
    }
    const old = OLD.exec(name);
    if (!old) continue;
    const canonical = join(root, old[1]!);
    if (!exists(canonical)) {
      renameSync(path, canonical);
      done.push(`restored ${old[1]} from ${name}`);
    } else {
      rmSync(path, { recursive: true, force: true });
      done.push(`removed ${name}`);
    }
  }
  return done;
}

/** A fresh, empty staging folder (any leftover of an earlier attempt removed). */
export function createStage(root: string, name: string): string {
  const stage = incomingPath(root, name);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  return stage;
}

/** Links `rel` of the canonical copy into the stage (a copy where a link is refused). */
export function seedFile(canonical: string, stage: string, rel: string): void {
  const from = join(canonical, rel);
  const to = join(stage, rel);
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
  }
}

/**
 * An uploaded file being written into the stage: created fresh (a seeded link at its path is
 * unlinked, never written through), hashed as it is written, checked against the manifest
 * size as it grows.
 */
export class StagedFile {
  private readonly fd: number;
  private readonly hasher = new Bun.CryptoHasher('sha256');
  private written = 0;

  constructor(
    readonly path: string,
    private readonly expectedSize: number,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    this.fd = openSync(path, 'wx', 0o644);
  }

  /** Writes a chunk; false (nothing written) once the file would outgrow its manifest size. */
  write(chunk: Uint8Array): boolean {
    if (this.written + chunk.byteLength > this.expectedSize) return false;
    let offset = 0;
    while (offset < chunk.byteLength) offset += writeSync(this.fd, chunk, offset);
    this.hasher.update(chunk);
    this.written += chunk.byteLength;
    return true;
  }

  /** Closes the file (flushed to disk) and says what was written. */
  finish(): { size: number; sha256: string } {
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
    }
    return { size: this.written, sha256: this.hasher.digest('hex') };
  }

  abandon(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
  }
}

/**
 * Swaps the stage in as the canonical copy. Returns the old copy's folder (to remove once
 * answered), or null when there was none. On failure the old copy is back in place.
 */
export function swapIn(stage: string, canonical: string): string | null {
  if (!exists(canonical)) {
    renameSync(stage, canonical);
    return null;
  }
  const old = `${canonical}.old-${randomBytes(8).toString('hex')}`;
  renameSync(canonical, old);
  try {
    renameSync(stage, canonical);
  } catch (error) {
    renameSync(old, canonical);
    throw error;
  }
  return old;
}

/** Removes a folder without holding up the caller; a failure leaves it for the next start's tidy-up. */
export function removeLater(path: string, onError: (error: unknown) => void): Promise<void> {
  return rm(path, { recursive: true, force: true }).catch(onError);
}

export function removeNow(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
