import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../../log';
import { describeFetchError, seconds, USER_AGENT } from './upstream/http';
import type { RemoteFile } from './upstream/model';
import { monotonicNow } from '../time/monotonic';

/** How often a running download logs its progress. */
export const PROGRESS_EVERY_MS = 3000;

export interface DownloadOptions {
  /** The whole transfer (answer and body) must finish within this (`[software] download_timeout`). */
  timeoutMs: number;
  log: Logger;
  progressEveryMs?: number;
  /** Default: svc's own, without a contact. */
  userAgent?: string;
}

/** A download that failed; nothing was left at the destination. The message names the upstream and the URL. */
export class DownloadError extends Error {
  constructor(file: RemoteFile, reason: string) {
    super(`could not download ${file.label} from ${file.upstream} (${file.url}): ${reason}`);
    this.name = 'DownloadError';
  }
}

/**
 * Fetches `file` to `dest`: streamed into a temporary file beside it, hashed on the way and
 * checked against the published checksum, flushed, then renamed into place. On any failure
 * the temporary file is removed, so `dest` either is the complete, verified file or is untouched.
 * Progress (percent when the size is known) is logged every few seconds.
 */
export async function downloadFile(file: RemoteFile, dest: string, options: DownloadOptions): Promise<{ bytes: number }> {
  const { log } = options;
  const progressEveryMs = options.progressEveryMs ?? PROGRESS_EVERY_MS;
  await mkdir(dirname(dest), { recursive: true });
  const temp = join(dirname(dest), `.${basename(dest)}.${randomBytes(4).toString('hex')}.part`);
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, options.timeoutMs);
  const failure = (error: unknown): string =>
    timedOut ? `it did not finish within ${seconds(options.timeoutMs)} ([software] download_timeout)` : describeFetchError(error, options.timeoutMs);

  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    let response: Response;
    try {
      response = await fetch(file.url, { headers: { 'user-agent': options.userAgent ?? USER_AGENT }, signal: abort.signal, redirect: 'follow' });
    } catch (error) {
      throw new DownloadError(file, failure(error));
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new DownloadError(file, `it answered HTTP ${response.status}`);
    }
    const total = Number(response.headers.get('content-length')) || 0;
    const hasher = file.checksum ? new Bun.CryptoHasher(file.checksum.algorithm) : null;
    handle = await open(temp, 'wx');
    let bytes = 0;
    let lastReport = monotonicNow();
    log.info({ url: file.url, bytes: total || undefined }, `downloading ${file.label} from ${file.upstream}`);
    try {
      for await (const chunk of response.body) {
        hasher?.update(chunk);
        await writeAll(handle, chunk);
        bytes += chunk.byteLength;
        if (monotonicNow() - lastReport >= progressEveryMs) {
          lastReport = monotonicNow();
          const share = total > 0 ? `${Math.floor((bytes / total) * 100)}% (${mb(bytes)} of ${mb(total)} MB)` : `${mb(bytes)} MB`;
          log.info({ url: file.url }, `downloading ${file.label}: ${share}`);
        }
      }
    } catch (error) {
      throw new DownloadError(file, failure(error));
    }
    if (total > 0 && bytes !== total) throw new DownloadError(file, `it sent ${bytes} of ${total} bytes`);
    if (file.checksum && hasher) {
      const actual = hasher.digest('hex');
      if (actual !== file.checksum.hex) {
        throw new DownloadError(file, `${file.checksum.algorithm.toUpperCase()} mismatch: expected ${file.checksum.hex}, got ${actual}`);
      }
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, dest);
    log.info({ url: file.url, bytes }, `downloaded ${file.label} (${mb(bytes)} MB${file.checksum ? `, ${file.checksum.algorithm.toUpperCase()} verified` : ', no checksum published'})`);
    return { bytes };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    if (error instanceof DownloadError) throw error;
    throw new DownloadError(file, (error as Error).message);
  } finally {
    clearTimeout(timer);
  }
}

async function writeAll(handle: Awaited<ReturnType<typeof open>>, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
    offset += bytesWritten;
  }
}

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}
