import { ApiError } from '../../errors';

export type ContentEncoding = 'utf8' | 'base64';

/** Bytes looked at for NUL bytes: what `git` and `file` look at to call a file binary. */
const SNIFF_BYTES = 8 * 1024;

/**
 * Text is UTF-8 without a NUL byte in its first 8 KiB, valid as a whole; anything else is
 * binary and travels as base64, so no file comes back garbled by a lossy decode. A BOM is kept
 * in the text: writing it back gives the same bytes.
 */
export function encodeContent(bytes: Uint8Array): { content: string; encoding: ContentEncoding } {
  if (!bytes.subarray(0, SNIFF_BYTES).includes(0)) {
    try {
      return { content: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), encoding: 'utf8' };
    } catch {
      /* not UTF-8: binary */
    }
  }
  return { content: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'), encoding: 'base64' };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes a PUT body stands for; malformed base64 is VALIDATION_FAILED (never silently dropped). */
export function decodeContent(content: string, encoding: ContentEncoding = 'utf8'): Uint8Array {
  if (encoding === 'utf8') {
    // A lone surrogate has no UTF-8 form; writing U+FFFD instead would change the text silently.
    if (!content.isWellFormed()) throw new ApiError('VALIDATION_FAILED', 'body field "content" contains a lone surrogate, which UTF-8 cannot hold; send binary data as base64');
    return Buffer.from(content, 'utf8');
  }
  const compact = content.replace(/\s+/g, '');
  if (!BASE64.test(compact)) throw new ApiError('VALIDATION_FAILED', 'body field "content" is not valid base64 (encoding "base64": the RFC 4648 alphabet with "=" padding)');
  return Buffer.from(compact, 'base64');
}
