import { open } from 'node:fs/promises';
import { ApiError } from '../../errors';
import { USER_AGENT } from './user-agent';

export type HashName = 'sha1' | 'sha512' | 'md5';

/** A file a pack lists: where it comes from and what it must hash to. */
export interface ExpectedFile {
  /** Where it goes (`mods/sodium.jar`), for messages. */
  label: string;
  url: string;
  /** Lower-case hex digests; at least one must be given, every one given is checked. */
  hashes: Partial<Record<HashName, string>>;
  /** Declared size in bytes, checked when known. */
  size?: number | null;
}

export interface DownloadOptions {
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * Downloads `file` to `dest`, streamed (memory stays flat), hashing as it goes; the result
 * is kept only when every given hash (and the size, when declared) matches. A download that
 * cannot be verified is refused before it starts. Upstream trouble is MODPACK_UPLOAD_FAILED
 * (502); a file that is not what the pack says is MODPACK_INVALID. Returns the byte count.
 */
export async function download(file: ExpectedFile, dest: string, options: DownloadOptions): Promise<number> {
  const wanted = (Object.entries(file.hashes) as [HashName, string | undefined][]).filter((e): e is [HashName, string] => typeof e[1] === 'string' && e[1] !== '');
  if (wanted.length === 0) throw new ApiError('MODPACK_INVALID', `${file.label}: the pack gives no hash to verify its download by`);
  if (file.size != null && file.size > options.maxBytes) throw new ApiError('MODPACK_INVALID', `${file.label}: declares ${file.size} bytes, over the ${options.maxBytes}-byte limit`);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const failed = (reason: string) => {
    options.signal?.throwIfAborted();
    const why = timeout.aborted ? `timed out after ${Math.round(options.timeoutMs / 1000)} s ([software] download_timeout)` : reason;
    return new ApiError('MODPACK_UPLOAD_FAILED', `${file.label}: download from ${file.url} failed: ${why}`, 502);
  };
  let response: Response;
  try {
    response = await fetch(file.url, { signal, headers: { 'user-agent': USER_AGENT, ...options.headers }, redirect: 'follow' });
  } catch (error) {
    throw failed((error as Error).message);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw failed(`the server answered ${response.status}`);
  }
  const hashers = wanted.map(([name, hex]) => ({ name, hex: hex.toLowerCase(), hasher: new Bun.CryptoHasher(name) }));
  const out = await open(dest, 'w');
  let bytes = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw failed((error as Error).message);
      }
      if (chunk.done) break;
      const value = chunk.value;
      bytes += value.length;
      if (bytes > options.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new ApiError('MODPACK_INVALID', `${file.label}: the download passes the ${options.maxBytes}-byte limit`);
      }
      for (const h of hashers) h.hasher.update(value);
      for (let at = 0; at < value.length; ) at += (await out.write(value, at, value.length - at, null)).bytesWritten;
    }
  } finally {
    await out.close();
  }
  if (file.size != null && bytes !== file.size) throw new ApiError('MODPACK_INVALID', `${file.label}: downloaded ${bytes} bytes where the pack declares ${file.size}`);
  for (const h of hashers) {
    const got = h.hasher.digest('hex');
    if (got !== h.hex) throw new ApiError('MODPACK_INVALID', `${file.label}: ${h.name} mismatch: the pack says ${h.hex}, the download from ${file.url} hashes to ${got}`);
  }
  return bytes;
}
