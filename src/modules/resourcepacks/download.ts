import { ApiError } from '../../errors';

/**
 * The public pack download (`GET /api/resourcepacks/files/<packUuid>.zip`): which pack a name
 * stands for, and the HTTP answer for one request (validators, conditional GET, single byte
 * ranges), with the file streamed by Bun (sendfile) rather than read into memory.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * How many times a name is percent-decoded when looking for a traversal. The router decodes
 * once; each further round unwraps one more layer (`%252e` → `%2e` → `.`). A name still
 * encoded after this many rounds holds a `%`, so it is no uuid and answers not found anyway.
 */
const DECODE_ROUNDS = 8;

/** A name as it may appear in a message: quoted, control characters escaped, bounded. */
function shown(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/** The name and each successively percent-decoded form of it, until decoding changes nothing or fails. */
function decodedForms(name: string): string[] {
  const forms = [name];
  let current = name;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      break; // malformed escape or invalid UTF-8: what we have is what there is
    }
    if (next === current) break;
    forms.push(next);
    current = next;
  }
  return forms;
}

const escapes = (stem: string) => stem.includes('/') || stem.includes('\\') || stem.includes('..');

/**
 * The pack uuid a download name stands for. Rules (spec): the name must end in `.zip`
 * (lower case, exactly), else RESOURCE_PACK_NOT_FOUND (404 with the error body; the reference
 * sent a bare 404); the name without `.zip` must contain no `/`, no `\`, no `..`, in any of its
 * percent-decoded forms, else PATH_TRAVERSAL (400). A name that passes but is not a uuid
 * (8-4-4-4-12 hex, any case) is RESOURCE_PACK_NOT_FOUND. Returns the lower-case uuid.
 */
export function packUuidOfFileName(name: string): string {
  if (!name.endsWith('.zip')) {
    throw new ApiError('RESOURCE_PACK_NOT_FOUND', `no resource pack file ${shown(name)}: pack files are named <packUuid>.zip`);
  }
  const stem = name.slice(0, -'.zip'.length);
  if (decodedForms(stem).some(escapes)) {
    throw new ApiError('PATH_TRAVERSAL', `resource pack file name ${shown(name)} may not contain "/", "\\" or ".."`);
  }
  if (!UUID.test(stem)) {
    throw new ApiError('RESOURCE_PACK_NOT_FOUND', `no resource pack file ${shown(name)}: pack files are named <packUuid>.zip`);
  }
  return stem.toLowerCase();
}

export interface PackFile {
  /** The file on disk. */
  path: string;
  /** Its size in bytes, from the same stat as modifiedMs. */
  size: number;
  /** The pack's SHA-1 (hex); the ETag. */
  sha1: string;
  /** Its modification time (ms since the epoch); Last-Modified. */
  modifiedMs: number;
}

/** What to do with a request's Range header. */
type RangeDecision =
  | { kind: 'whole' } // no Range, or one we ignore (RFC 9110 §14.2 lets a server ignore it)
  | { kind: 'part'; start: number; end: number } // inclusive byte positions
  | { kind: 'unsatisfiable' };

const WHOLE: RangeDecision = { kind: 'whole' };

/**
 * Does If-None-Match match our ETag? `*`, or any entity-tag in the list whose opaque part is
 * the SHA-1 (weak comparison, RFC 9110 §13.1.2: `W/"x"` equals `"x"`).
 */
function noneMatchHits(header: string | null, sha1: string): boolean {
  if (header === null) return false;
  if (header.split(',').some((member) => member.trim() === '*')) return true;
  for (const match of header.matchAll(/(?:W\/)?"([^"]*)"/g)) if (match[1] === sha1) return true;
  return false;
}

/**
 * Does If-Range allow the range? RFC 9110 §13.1.5: an entity-tag matches by strong comparison
 * (a weak tag never does); an HTTP-date matches when it is exactly Last-Modified. Bun answers
 * Range on a whole-file Bun.file body itself, comparing If-Range with the same ETag and
 * Last-Modified; deciding the same way here keeps what we decide and what is sent in step.
 */
function ifRangeHolds(header: string, etag: string, modifiedSeconds: number): boolean {
  const value = header.trim();
  if (value === etag) return true;
  if (value.startsWith('"') || value.startsWith('W/')) return false;
  return Date.parse(value) === modifiedSeconds * 1000;
}

/**
 * One `bytes=` range against the size. Whitespace is dropped first (Bun's own parser accepts
 * `bytes = 0 - 9` too, and anything we call malformed must be malformed to Bun as well, or
 * Bun would answer a range we chose to ignore). Several ranges, an unknown unit, a range whose
 * last position is before its first, or anything else malformed → the whole file. A first
 * position at or past the end, or a zero-length suffix, is unsatisfiable.
 */
function parseRange(header: string, size: number): RangeDecision {
  const spec = /^bytes=(.*)$/i.exec(header.replace(/[ \t]+/g, ''))?.[1];
  if (spec === undefined || spec.includes(',')) return WHOLE;
  const suffix = /^-(\d+)$/.exec(spec);
  if (suffix) {
    const length = Number(suffix[1]);
    if (length === 0) return { kind: 'unsatisfiable' };
    // An empty file has no byte positions to name in Content-Range: send it whole (empty).
    if (size === 0) return WHOLE;
    return { kind: 'part', start: Math.max(0, size - length), end: size - 1 };
  }
  const span = /^(\d+)-(\d*)$/.exec(spec);
  if (!span) return WHOLE;
  const start = Number(span[1]);
  const last = span[2] === '' ? Infinity : Number(span[2]);
  if (last < start) return WHOLE; // invalid range-spec: ignored, not refused
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: Math.min(last, size - 1) };
}

/**
 * The download answer for one request. Always: `Content-Type: application/zip`,
 * `Cache-Control: public, max-age=3600`, `ETag: "<sha1>"`, `Accept-Ranges: bytes`,
 * `Last-Modified` (a 304 leaves out Content-Type and Content-Length: RFC 9110 §15.4.5).
 * - `If-None-Match` matching the ETag (`*`, a list containing it, weak or strong) → 304, no body.
 * - A single `Range: bytes=a-b | a- | -n` on a GET → 206 with `Content-Range: bytes a-b/size`;
 *   unsatisfiable → 416 (thrown ApiError VALIDATION_FAILED carrying `Content-Range: bytes *\/size`);
 *   several ranges or a malformed header → the whole file, 200. HEAD ignores Range (it is
 *   defined for GET only, RFC 9110 §14.2).
 * - `If-Range` that does not hold → Range ignored, 200 whole.
 * - Otherwise 200 with `Content-Length: size`.
 * The body is `Bun.file(path)` or a slice of it, which Bun sends with sendfile; Bun sets
 * Content-Length of a file body from the file itself.
 */
export function packFileResponse(request: Request, file: PackFile): Response {
  const etag = `"${file.sha1}"`;
  const modifiedSeconds = Math.floor(file.modifiedMs / 1000);
  const validators = {
    'cache-control': 'public, max-age=3600',
    etag,
    'last-modified': new Date(modifiedSeconds * 1000).toUTCString(),
    'accept-ranges': 'bytes',
  };
  const headers = { ...validators, 'content-type': 'application/zip', 'x-content-type-options': 'nosniff' };

  if (noneMatchHits(request.headers.get('if-none-match'), file.sha1)) {
    return new Response(null, { status: 304, headers: validators });
  }
  if (request.method === 'HEAD') {
    return new Response(null, { status: 200, headers: { ...headers, 'content-length': String(file.size) } });
  }

  const rangeHeader = request.headers.get('range');
  const ifRange = request.headers.get('if-range');
  const decision = rangeHeader === null || (ifRange !== null && !ifRangeHolds(ifRange, etag, modifiedSeconds)) ? WHOLE : parseRange(rangeHeader, file.size);

  if (decision.kind === 'unsatisfiable') {
    throw new ApiError(
      'VALIDATION_FAILED',
      `range ${shown(rangeHeader ?? '')} cannot be served: the pack has ${file.size} bytes (positions 0-${Math.max(0, file.size - 1)}); ask for one range that starts inside the file`,
      416,
      { 'content-range': `bytes */${file.size}` },
    );
  }
  if (decision.kind === 'part') {
    const { start, end } = decision;
    // A 206 with Content-Range is left alone by Bun (its own Range handling is for 200s).
    return new Response(Bun.file(file.path).slice(start, end + 1), {
      status: 206,
      headers: { ...headers, 'content-range': `bytes ${start}-${end}/${file.size}`, 'content-length': String(end - start + 1) },
    });
  }
  return new Response(Bun.file(file.path), { status: 200, headers: { ...headers, 'content-length': String(file.size) } });
}
