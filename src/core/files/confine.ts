import { readlinkSync, type Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ApiError } from '../../errors';
import { openRegular, RefusedEntry, usesProcFds, type OpenedFile } from '../tenancy/fs';
import { joinRel } from './path-syntax';

/**
 * Where a checked relative path lands on disk. Links are allowed only while they stay inside
 * the scope: every existing prefix of the path is resolved with realpath and must be the
 * scope root or below it. A link that cannot be resolved (dangling, a loop) is treated as
 * leading outside: nothing proves otherwise. Callers then act on the resolved real paths, so
 * a link checked here is not followed again by name.
 */

const errnoOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

export const traversalVia = (rel: string) => new ApiError('PATH_TRAVERSAL', `unsafe path: ${rel || '/'} leads outside the scope through a link`);
export const notFound = (rel: string) => new ApiError('PATH_NOT_FOUND', `no such file or directory: ${rel || '/'}`);

/** True when `real` is `root` or inside it (both real paths). */
export function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Maps a file-system error to the API's answer; anything unexpected is rethrown. */
export function fsError(error: unknown, rel: string): unknown {
  switch (errnoOf(error)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return notFound(rel);
    case 'ELOOP':
      return traversalVia(rel);
    case 'EACCES':
    case 'EPERM':
      return new ApiError('FORBIDDEN', `the file system denies the controller access to ${rel || '/'}`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new ApiError('PAYLOAD_TOO_LARGE', 'no space left on the device holding this scope', 507);
    // A directory appeared where a file goes (or the reverse) between the check and the act.
    case 'EISDIR':
    case 'EEXIST':
    case 'ENOTEMPTY':
      return new ApiError('VALIDATION_FAILED', `${rel || '/'} changed while this request ran (a directory is in the way); try again`, 409);
    case 'ENAMETOOLONG':
      return new ApiError('PATH_TRAVERSAL', `unsafe path: ${rel.slice(0, 200)} is longer than the file system allows`);
    default:
      return error;
  }
}

/** The real path of the scope root; null when the folder does not exist (yet). */
export async function realRoot(root: string): Promise<string | null> {
  try {
    return await realpath(root);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw fsError(error, '');
  }
}

export interface Existing {
  /** Real path (no link left in it), inside the scope. */
  real: string;
  stats: Stats;
  /** The real path of the scope root. */
  rootReal: string;
}

/**
 * An existing file or directory: PATH_TRAVERSAL when any link on the way leads outside,
 * PATH_NOT_FOUND when it does not exist (only after the part that exists was found inside,
 * so a link to the outside is never reported as a mere missing file).
 */
export async function resolveExisting(root: string, segments: readonly string[]): Promise<Existing> {
  const rootReal = await realRoot(root);
  if (rootReal === null) throw notFound(joinRel(segments));
  const rel = joinRel(segments);
  let real: string;
  try {
    real = await realpath(join(rootReal, ...segments));
  } catch (error) {
    const code = errnoOf(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fsError(error, rel);
    await assertPrefixInside(rootReal, segments);
    throw notFound(rel);
  }
  if (!isInside(rootReal, real)) throw traversalVia(rel);
  try {
    return { real, stats: await stat(real), rootReal };
  } catch (error) {
    throw fsError(error, rel);
  }
}

/**
 * After a failed realpath: the longest prefix that exists must resolve inside the scope. A
 * prefix that exists as a link but does not resolve is a dangling link: traversal.
 */
async function assertPrefixInside(rootReal: string, segments: readonly string[]): Promise<void> {
  for (let k = segments.length - 1; k >= 1; k--) {
    const prefix = join(rootReal, ...segments.slice(0, k));
    const rel = joinRel(segments.slice(0, k));
    try {
      if (!isInside(rootReal, await realpath(prefix))) throw traversalVia(rel);
      return;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      const code = errnoOf(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fsError(error, rel);
    }
    if (await isLink(prefix)) throw traversalVia(rel);
  }
  // Only the last segment may be missing; a dangling link there is still a link out.
  if (await isLink(join(rootReal, ...segments))) throw traversalVia(joinRel(segments));
}

async function isLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

export interface Leaf {
  /** The real path of the scope root. */
  rootReal: string;
  /** The real path of the parent directory (inside the scope) and the leaf's name in it. */
  dir: string;
  name: string;
  /** `dir/name`: the entry itself, never through a link at the end. */
  path: string;
  /** lstat of the entry; null when it does not exist. */
  entry: Stats | null;
  /** What a write lands on: the entry, or the real path of a link at it (inside the scope). */
  target: string;
  /** stat of `target`; null when it does not exist. */
  targetStats: Stats | null;
}

/**
 * The entry a write or delete acts on: the parent must exist as a directory inside the scope
 * (else PATH_NOT_FOUND); a link at the last segment must resolve inside the scope (else
 * PATH_TRAVERSAL, dangling included), so nothing outside is overwritten or removed through it.
 */
export async function resolveLeaf(root: string, segments: readonly string[]): Promise<Leaf> {
  if (segments.length === 0) throw new Error('resolveLeaf needs a non-empty path');
  const rel = joinRel(segments);
  const parent = await resolveExisting(root, segments.slice(0, -1)).catch((error: unknown) => {
    if (error instanceof ApiError && error.errorCode === 'PATH_NOT_FOUND') throw new ApiError('PATH_NOT_FOUND', `the parent directory of ${rel} does not exist; create it first`);
    throw error;
  });
  if (!parent.stats.isDirectory()) throw new ApiError('PATH_NOT_FOUND', `the parent of ${rel} is a file, not a directory`);
  return inspectLeaf(parent.rootReal, parent.real, segments.at(-1)!, rel);
}

/** The entry `name` in the real directory `dir` of the scope whose real root is `rootReal` (see resolveLeaf). */
export async function inspectLeaf(rootReal: string, dir: string, name: string, rel: string): Promise<Leaf> {
  const path = join(dir, name);
  let entry: Stats | null = null;
  try {
    entry = await lstat(path);
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw fsError(error, rel);
  }
  if (entry === null) return { rootReal, dir, name, path, entry, target: path, targetStats: null };
  if (!entry.isSymbolicLink()) return { rootReal, dir, name, path, entry, target: path, targetStats: entry };
  let target: string;
  try {
    target = await realpath(path);
  } catch {
    throw traversalVia(rel);
  }
  if (!isInside(rootReal, target)) throw traversalVia(rel);
  try {
    return { rootReal, dir, name, path, entry, target, targetStats: await stat(target) };
  } catch (error) {
    throw fsError(error, rel);
  }
}

/**
 * Opens a file found by resolveExisting (`real`: its real path) to read it: never through a
 * link at the end, never waiting on a FIFO or opening a device, and, on Linux, checked to be
 * the very file named (a link swapped in on the way since the check is PATH_TRAVERSAL).
 */
export function openConfinedFile(real: string, rel: string): OpenedFile {
  let file: OpenedFile | null;
  try {
    file = openRegular(real, rel);
  } catch (error) {
    if (error instanceof RefusedEntry) {
      if (error.refusal === 'link') throw traversalVia(rel);
      throw new ApiError('VALIDATION_FAILED', `${rel || '/'} is not a regular file (a pipe, socket or device); it is not read`, 409);
    }
    throw fsError(error, rel);
  }
  if (file === null) throw notFound(rel);
  if (usesProcFds()) {
    let landed: string;
    try {
      landed = readlinkSync(`/proc/self/fd/${file.fd}`);
    } catch (error) {
      file.close();
      throw fsError(error, rel);
    }
    if (landed !== real) {
      file.close();
      throw traversalVia(rel);
    }
  }
  return file;
}
