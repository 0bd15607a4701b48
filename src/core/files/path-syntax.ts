import { ApiError } from '../../errors';

/** Longest relative path the files API takes (Linux PATH_MAX), and longest segment (NAME_MAX). */
export const MAX_FILES_PATH = 4096;
export const MAX_SEGMENT_BYTES = 255;

const traversal = (why: string) => new ApiError('PATH_TRAVERSAL', `unsafe path: ${why}; send a relative path of plain names separated by "/"`);

export interface SyntaxOptions {
  /** Also refuse what only Windows reads specially (`:` streams, reserved device names). */
  windows?: boolean;
}

const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/**
 * Why one path segment is unsafe, or null. Refused: empty, `.`/`..` and anything made only of
 * dots and spaces (Windows trims trailing dots and spaces, so `.. ` is `..` there), separators
 * (`/`, `\`), control characters (C0, DEL, C1), lone surrogates, a drive prefix (`C:`), more
 * than 255 UTF-8 bytes; with `windows`, also `:` (alternate data streams) and device names.
 */
export function segmentProblem(segment: string, options: SyntaxOptions = {}): string | null {
  if (segment === '') return 'an empty segment ("//" or a leading "/")';
  if (/^[. ]+$/.test(segment)) return `a "${segment}" segment`;
  if (segment.includes('/') || segment.includes('\\')) return 'a separator inside a name';
  if (/[\u0000-\u001f\u007f-\u009f]/.test(segment)) return 'a control character';
  if (/[\ud800-\udfff]/.test(segment.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) return 'a lone surrogate';
  if (/^[A-Za-z]:/.test(segment)) return 'a drive letter';
  if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return `a name longer than ${MAX_SEGMENT_BYTES} bytes`;
  if (options.windows && segment.includes(':')) return 'a ":" (a stream name on Windows)';
  if (options.windows && WINDOWS_DEVICE.test(segment.trimEnd())) return 'a Windows device name';
  return null;
}

/**
 * A decoded relative path as its segments; [] is the scope root. One trailing `/` is allowed
 * (a directory spelled as such); absolute paths, backslashes and every unsafe segment are
 * PATH_TRAVERSAL.
 */
export function splitRelPath(rel: string, options: SyntaxOptions = {}): string[] {
  if (Buffer.byteLength(rel) > MAX_FILES_PATH) throw traversal(`longer than ${MAX_FILES_PATH} bytes`);
  if (rel.includes('\\')) throw traversal('a backslash');
  if (rel.startsWith('/')) throw traversal('an absolute path');
  const trimmed = rel.endsWith('/') ? rel.slice(0, -1) : rel;
  if (trimmed === '') return [];
  const segments = trimmed.split('/');
  for (const segment of segments) {
    const problem = segmentProblem(segment, options);
    if (problem) throw traversal(problem);
  }
  return segments;
}

/**
 * The path part of a request URL (still percent-encoded, as received) as segments. Decoded
 * exactly once: an encoded separator (`%2f`, `%5c`), a malformed or overlong escape
 * (`%c0%ae`, invalid UTF-8) and anything that decodes to another escape (`%252e` → `%2e`:
 * double encoding) are PATH_TRAVERSAL, so no later decoding step can turn a name into `..`.
 */
export function parseRequestPath(raw: string, options: SyntaxOptions = {}): string[] {
  if (raw.length > MAX_FILES_PATH * 3) throw traversal(`longer than ${MAX_FILES_PATH} bytes`);
  if (raw.includes('\\')) throw traversal('a backslash');
  if (/%(2f|5c)/i.test(raw)) throw traversal('an encoded separator');
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw traversal('a malformed percent-escape or invalid (e.g. overlong) UTF-8');
  }
  if (/%[0-9a-f]{2}/i.test(decoded)) throw traversal('a double-encoded character');
  return splitRelPath(decoded, options);
}

/** A file name from an upload (a form field or a part's filename): exactly one safe segment. */
export function parseFileName(name: string, options: SyntaxOptions = {}): string {
  const problem = name.includes('/') || name.includes('\\') ? 'a path instead of a file name' : segmentProblem(name, options);
  if (problem) throw traversal(`file name ${JSON.stringify(name.slice(0, 100))}: ${problem}`);
  return name;
}

/** Segments back to the relative path the API shows ('' for the root). */
export const joinRel = (segments: readonly string[]): string => segments.join('/');

/** Whether this process runs where Windows path rules apply. */
export const WINDOWS_RULES: SyntaxOptions = { windows: process.platform === 'win32' };
