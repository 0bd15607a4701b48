import { randomBytes } from 'node:crypto';
import { readSync } from 'node:fs';
import { copyFile, link, rename, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { Logger } from '../../../log';
import { downloadFile } from '../../software/download';
import { syncDirectory } from '../../../config/write';
import type { RemoteFile } from '../../software/upstream/model';
import { createBreather } from '../../templates/breather';
import { openRegular, RefusedEntry, split, TenantTree, type OpenedFile } from '../../tenancy/fs';

export interface JarSwapOptions {
  /** The whole download (`[software] download_timeout`). */
  timeoutMs: number;
  log: Logger;
  userAgent: string;
  progressEveryMs?: number;
  /** Asked once the download is verified: false (the controller is stopping) abandons the swap, nothing changed. */
  proceed?: () => boolean;
  /**
   * The server's directory the jar lies in (a dedicated proxy's), when it is one: the jar's
   * folder is then reached without following links (tenancy/fs), so a planted
   * `bin -> /etc` is refused rather than written into. Absent for template jars (svc's own).
   */
  within?: string;
}

/** A jar replaced on disk, until the caller keeps or reverts it. */
export interface JarSwap {
  /** Keeps the new jar: drops the copy of the previous one. */
  commit(): Promise<void>;
  /** Puts the previous jar back (removes the new one when there was none before). */
  undo(): Promise<void>;
}

/**
 * Replaces the jar at `jarPath` by `file` so that no reader ever sees a half-written jar:
 * the download goes to a hidden file beside it (downloadFile: streamed to a temporary file,
 * SHA-256 checked against the published one, fsynced, renamed), then one rename puts it in
 * place and the folder is fsynced. A file without a published checksum is refused.
 *
 * Until `commit`, the previous jar stays as a hard link beside it, so `undo` can bring it back
 * when what follows the swap (the version write) fails. On a failure here nothing changed.
 *
 * A rename, never a write into the jar: services share template jars through hard links and a
 * running proxy holds its jar open, so they keep the old file until they restart.
 */
export async function swapJar(file: RemoteFile, jarPath: string, options: JarSwapOptions): Promise<JarSwap> {
  if (!file.checksum) throw new Error(`${file.upstream} published no checksum for ${file.label}: not replacing ${jarPath} with an unverified jar`);
  const place = jarPlace(jarPath, options.within);
  const dir = place.dir;
  const jar = join(dir, place.name);
  const tag = randomBytes(4).toString('hex');
  const staged = join(dir, `.${place.name}.update-${tag}`);
  let previous: string | null = join(dir, `.${place.name}.previous-${tag}`);
  try {
    await downloadFile(file, staged, { timeoutMs: options.timeoutMs, log: options.log, progressEveryMs: options.progressEveryMs, userAgent: options.userAgent });
    try {
      if (options.proceed && !options.proceed()) throw new Error('the controller is stopping');
      previous = await keepCopy(jar, previous);
      await rename(staged, jar);
    } catch (error) {
      await unlink(staged).catch(() => undefined);
      if (previous) await unlink(previous).catch(() => undefined);
      throw error;
    }
  } catch (error) {
    place.close();
    throw error;
  }
  syncDirectory(dir);

  const kept = previous;
  return {
    async commit() {
      try {
        if (kept) await unlink(kept).catch(() => undefined);
      } finally {
        place.close();
      }
    },
    async undo() {
      try {
        if (kept) await rename(kept, jar);
        else await unlink(jar).catch(() => undefined);
        syncDirectory(dir);
      } finally {
        place.close();
      }
    },
  };
}

/** The jar's folder (a path to act in) and name; in a server's directory, its real folder held open until `close`. */
function jarPlace(jarPath: string, within: string | undefined): { dir: string; name: string; close(): void } {
  if (!within) return { dir: dirname(jarPath), name: basename(jarPath), close: () => undefined };
  const rel = relInside(within, jarPath);
  const tree = TenantTree.open(within);
  if (!tree) throw new Error(`${within} does not exist`);
  try {
    const { dir, name } = split(rel);
    const folder = tree.holdFolder(dir, 'create');
    return {
      dir: folder.base,
      name,
      close: () => {
        folder.release();
        tree.close();
      },
    };
  } catch (error) {
    tree.close();
    if (error instanceof RefusedEntry) throw new Error(`not replacing ${jarPath}: ${error.message}`, { cause: error });
    throw error;
  }
}

function relInside(root: string, path: string): string {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${path} is not inside ${root}`);
  return rel.split(sep).join('/');
}

/** A second name for the jar (a hard link; a copy where links are refused); null when there is no jar yet. */
async function keepCopy(jarPath: string, copy: string): Promise<string | null> {
  try {
    await link(jarPath, copy);
    return copy;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    await copyFile(jarPath, copy);
    return copy;
  }
}

/**
 * SHA-256 hex of a file, read in chunks; null when there is no file, or none svc reads: a
 * link, a FIFO (never opened), and, in a server's directory (`within`), a file with other
 * hard links (see tenancy/fs). Such a jar is then simply not the release.
 */
export async function sha256OfFile(path: string, within?: string): Promise<string | null> {
  let file: OpenedFile | null = null;
  let tree: TenantTree | null = null;
  try {
    if (within) {
      tree = TenantTree.open(within);
      file = tree?.openRead(relInside(within, path)) ?? null;
    } else {
      file = openRegular(path);
    }
  } catch (error) {
    if (!(error instanceof RefusedEntry)) throw error;
  } finally {
    tree?.close();
  }
  if (file === null) return null;
  try {
    const hasher = new Bun.CryptoHasher('sha256');
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    const breathe = createBreather();
    for (;;) {
      const read = readSync(file.fd, buffer, 0, buffer.length, null);
      if (read === 0) return hasher.digest('hex');
      hasher.update(buffer.subarray(0, read));
      const pause = breathe();
      if (pause) await pause;
    }
  } finally {
    file.close();
  }
}
