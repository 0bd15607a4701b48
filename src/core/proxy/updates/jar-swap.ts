import { randomBytes } from 'node:crypto';
import { copyFile, link, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../../../log';
import { downloadFile } from '../../software/download';
import { syncDirectory } from '../../../config/write';
import type { RemoteFile } from '../../software/upstream/model';

export interface JarSwapOptions {
  /** The whole download (`[software] download_timeout`). */
  timeoutMs: number;
  log: Logger;
  userAgent: string;
  progressEveryMs?: number;
  /** Asked once the download is verified: false (the controller is stopping) abandons the swap, nothing changed. */
  proceed?: () => boolean;
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
  const dir = dirname(jarPath);
  const tag = randomBytes(4).toString('hex');
  const staged = join(dir, `.${basename(jarPath)}.update-${tag}`);
  await downloadFile(file, staged, { timeoutMs: options.timeoutMs, log: options.log, progressEveryMs: options.progressEveryMs, userAgent: options.userAgent });

  let previous: string | null = join(dir, `.${basename(jarPath)}.previous-${tag}`);
  try {
    if (options.proceed && !options.proceed()) throw new Error('the controller is stopping');
    previous = await keepCopy(jarPath, previous);
    await rename(staged, jarPath);
  } catch (error) {
    await unlink(staged).catch(() => undefined);
    if (previous) await unlink(previous).catch(() => undefined);
    throw error;
  }
  syncDirectory(dir);

  const kept = previous;
  return {
    async commit() {
      if (kept) await unlink(kept).catch(() => undefined);
    },
    async undo() {
      if (kept) await rename(kept, jarPath);
      else await unlink(jarPath).catch(() => undefined);
      syncDirectory(dir);
    },
  };
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

/** SHA-256 hex of a file, streamed; null when there is no file. */
export async function sha256OfFile(path: string): Promise<string | null> {
  const file = Bun.file(path);
  if (!(await file.exists())) return null;
  const hasher = new Bun.CryptoHasher('sha256');
  for await (const chunk of file.stream()) hasher.update(chunk);
  return hasher.digest('hex');
}
