import { inflateRawSync } from 'node:zlib';

/** The data inflated to more than the caller's limit; inflating stopped there. */
export class InflateLimitError extends Error {}

/**
 * Inflates raw DEFLATE data (a zip entry with method 8) with the runtime's zlib, refusing to
 * produce more than `limit` bytes: zlib stops at `maxOutputLength`, so a zip bomb whose header
 * lies about its size costs at most `limit`, never its full size. Throws InflateLimitError past
 * the limit and zlib's error for corrupt or truncated data.
 */
export function inflateBounded(data: Uint8Array, limit: number): Uint8Array {
  try {
    return inflateRawSync(data, { maxOutputLength: Math.max(1, limit) });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new InflateLimitError(`inflates past the ${limit}-byte cap`);
    throw error;
  }
}
