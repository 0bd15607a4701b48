import { lstatSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';

/** Longest relative path state sync carries (Linux PATH_MAX). */
export const MAX_REL_PATH = 4096;
const MAX_SEGMENT = 255;

/**
 * Why a relative path from the wire (a manifest key, a `file:` part, a download path) is not
 * one state sync accepts, or null when it is. Accepted: POSIX separators, no empty, `.` or `..`
 * segment, nothing absolute (`/x`, `C:`), no backslash (a separator on Windows agents), no
 * control character (multipart part names cannot carry CR/LF faithfully), at most 4096 bytes.
 */
export function relPathProblem(rel: string): string | null {
  if (rel.length === 0) return 'the path is empty';
  if (Buffer.byteLength(rel) > MAX_REL_PATH) return `the path is longer than ${MAX_REL_PATH} bytes`;
  if (rel.startsWith('/') || /^[a-zA-Z]:/.test(rel)) return 'the path is absolute';
  if (rel.includes('\\')) return 'the path contains a backslash';
  if (/[\u0000-\u001f\u007f]/.test(rel)) return 'the path contains a control character';
  if (/[\ud800-\udfff]/.test(rel.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) return 'the path contains a lone surrogate';
  for (const segment of rel.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return `the path has a "${segment || '//'}" segment`;
    if (Buffer.byteLength(segment) > MAX_SEGMENT) return `a path segment is longer than ${MAX_SEGMENT} bytes`;
  }
  return null;
}

export type Confined = { ok: true; path: string } | { ok: false; reason: 'traversal' | 'missing'; detail: string };

/**
 * Resolves `rel` to a regular file inside `root` without following any link: a link anywhere
 * on the way (or at the end) is refused as traversal, so nothing outside `root` is ever served
 * even if a link was placed inside it by hand. A realpath check backs this up.
 */
export function confinedFile(root: string, rel: string): Confined {
  const problem = relPathProblem(rel);
  if (problem) return { ok: false, reason: 'traversal', detail: problem };
  const segments = rel.split('/');
  let path = root;
  for (let i = 0; i < segments.length; i++) {
    path = join(path, segments[i]!);
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      return { ok: false, reason: 'missing', detail: 'no such file' };
    }
    if (stats.isSymbolicLink()) return { ok: false, reason: 'traversal', detail: `${segments.slice(0, i + 1).join('/')} is a link` };
    const last = i === segments.length - 1;
    if (!last && !stats.isDirectory()) return { ok: false, reason: 'missing', detail: 'no such file' };
    if (last && !stats.isFile()) return { ok: false, reason: 'missing', detail: 'not a regular file' };
  }
  try {
    const realRoot = realpathSync(root);
    if (!realpathSync(path).startsWith(realRoot + sep)) return { ok: false, reason: 'traversal', detail: 'the path leaves the canonical copy' };
  } catch {
    return { ok: false, reason: 'missing', detail: 'no such file' };
  }
  return { ok: true, path };
}
