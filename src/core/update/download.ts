import { chmod, open, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { ReleaseAsset } from './release';

/** A release binary is ~110 MB; anything past this is not one of ours. */
export const MAX_BINARY_BYTES = 512 * 1024 * 1024;

export class DownloadError extends Error {}

/** A small asset (SHA256SUMS, its signature) read whole, refused past `maxBytes`. */
export async function fetchSmallAsset(asset: ReleaseAsset, options: { userAgent: string; maxBytes?: number; fetch?: typeof fetch }): Promise<Uint8Array> {
  const max = options.maxBytes ?? 64 * 1024;
  const response = await get(asset, options.userAgent, 30_000, options.fetch);
  const tooLarge = () => new DownloadError(`${asset.name} is larger than the ${max} bytes such a file can be`);
  if (Number(response.headers.get('content-length') ?? 0) > max) {
    await response.body?.cancel();
    throw tooLarge();
  }
  // Counted while it arrives: a wrong URL serving gigabytes is cut off at the limit, not buffered.
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body ?? []) {
      total += chunk.byteLength;
      if (total > max) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    throw new DownloadError(`${asset.name}: the download broke off (${(error as Error).message})`);
  }
  return Buffer.concat(chunks);
}

/**
 * Streams `asset` into a new file beside `besideFile` (same folder, so the final rename cannot
 * cross file systems), hashing as it goes. The file is flushed to disk before this returns.
 * On any failure (a broken connection, more or fewer bytes than the release lists) the
 * partial file is removed and DownloadError says what happened.
 */
export async function downloadBeside(besideFile: string, asset: ReleaseAsset, options: { userAgent: string; timeoutMs?: number; fetch?: typeof fetch }): Promise<{ path: string; sha256: string; bytes: number }> {
  if (asset.size <= 0 || asset.size > MAX_BINARY_BYTES) throw new DownloadError(`the release lists ${asset.name} as ${asset.size} bytes, which is not a plausible svc binary`);
  const path = join(dirname(besideFile), `.${basename(besideFile)}.download-${randomBytes(6).toString('hex')}`);
  const response = await get(asset, options.userAgent, options.timeoutMs ?? 15 * 60_000, options.fetch);
  const file = await open(path, 'wx', 0o700).catch((error: NodeJS.ErrnoException) => Promise.reject(new DownloadError(`cannot write beside ${besideFile}: ${error.code ?? error.message}`)));
  const hasher = new Bun.CryptoHasher('sha256');
  let bytes = 0;
  try {
    if (!response.body) throw new DownloadError(`${asset.name}: the server sent no body`);
    try {
      for await (const chunk of response.body) {
        bytes += chunk.byteLength;
        if (bytes > asset.size) throw new DownloadError(`${asset.name}: more than the ${asset.size} bytes the release lists`);
        hasher.update(chunk);
        await file.write(chunk);
      }
    } catch (error) {
      if (error instanceof DownloadError) throw error;
      throw new DownloadError(`${asset.name}: the download broke off after ${bytes} bytes (${(error as Error).message})`);
    }
    if (bytes !== asset.size) throw new DownloadError(`${asset.name}: truncated download, ${bytes} of ${asset.size} bytes`);
    await file.sync();
    await file.close();
    // Owner-only until it has passed every check; it is run once (`--version`) before that.
    await chmod(path, 0o700);
    return { path, sha256: hasher.digest('hex'), bytes };
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(path, { force: true });
    throw error;
  }
}

async function get(asset: ReleaseAsset, userAgent: string, timeoutMs: number, fetcher: typeof fetch = fetch): Promise<Response> {
  let response: Response;
  try {
    response = await fetcher(asset.url, { headers: { 'user-agent': userAgent, accept: 'application/octet-stream' }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new DownloadError(`${asset.name}: ${asset.url} did not answer (${(error as Error).message})`);
  }
  if (!response.ok) throw new DownloadError(`${asset.name}: ${asset.url} answered ${response.status} ${response.statusText}`);
  return response;
}
