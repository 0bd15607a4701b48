import { Inflate } from 'fflate';

/** The data inflated to more than the caller's limit; inflating stopped there. */
export class InflateLimitError extends Error {}

/**
 * Compressed input is fed to the inflater this many bytes at a time. DEFLATE expands at most
 * ~1032:1, so one push can produce at most ~4 MiB before the limit check in `ondata` runs: a
 * zip bomb whose header lies about its size costs at most `limit` plus that, never its full size.
 */
const PUSH_BYTES = 4096;

/**
 * Inflates raw DEFLATE data (a zip entry with method 8), refusing to produce more than `limit`
 * bytes: throws InflateLimitError as soon as the output passes it. Throws fflate's error for
 * corrupt or truncated data.
 */
export function inflateBounded(data: Uint8Array, limit: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inflater = new Inflate((chunk) => {
    total += chunk.length;
    // Thrown from inside push(): the inflater is abandoned with whatever it had not produced yet.
    if (total > limit) throw new InflateLimitError(`inflates past the ${limit}-byte cap`);
    chunks.push(chunk);
  });
  if (data.length === 0) inflater.push(data, true);
  for (let at = 0; at < data.length; at += PUSH_BYTES) {
    inflater.push(data.subarray(at, at + PUSH_BYTES), at + PUSH_BYTES >= data.length);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
