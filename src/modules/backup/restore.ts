/**
 * Restoring a backup archive (a tar.zst: relative entries, `dir/` directory entries, regular files
 * with mode and mtime, and a trailing `MANIFEST.sha256` in the sha256sum format that is not restored).
 *
 * Safety contract, unlike the reference (which overwrote in place, kept extra files, restored no
 * mode or mtime):
 * - every entry is checked before anything is written for it; links, devices, absolute paths and
 *   `..` segments are refused with BACKUP_RESTORE_FAILED naming the entry;
 * - the archive is extracted into a staging directory beside the target and swapped in with two
 *   renames, so the target is either the old tree or the backup's tree, never a mixture;
 * - the trailing manifest is required and every file's SHA-256 is checked against it. Bun's zstd
 *   decompressor ends silently on a truncated frame (oven-sh/bun#33413) and tar-stream accepts a
 *   tar cut at an entry boundary, so the manifest is what proves the archive is complete.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  lstatSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  chmodSync,
  type Stats,
} from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createZstdDecompress } from 'node:zlib';
import { extract, type Header } from 'tar-stream';
import { syncDirectory } from '../../core/files/atomic-write';
import { ApiError } from '../../errors';
import { RESTORE_FOLDER_PREFIX } from './restore-folders';

export interface RestoreOutcome {
  /** Regular files written (for a dry run: that would be written), the manifest excluded. */
  filesExtracted: number;
  /** Relative paths of regular files in archive order (for a dry run also directories, with a trailing '/'); manifest excluded. */
  files: string[];
}

export const MANIFEST_NAME = 'MANIFEST.sha256';
/** The restore answers 409 (the reference's status for every restore failure), not the code's default. */
const RESTORE_FAILED_STATUS = 409;
/** A manifest larger than this is not read into memory (about 500 000 files' worth of lines). */
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;
const STAGING_PREFIX = RESTORE_FOLDER_PREFIX;
const OLD_PREFIX = `${RESTORE_FOLDER_PREFIX}old-`;
/**
 * The random parts differ in length (16 hex for staging, 12 for the old tree), so a staging dir of
 * a target named `old-x` can never be mistaken for the old tree of a target named `x`.
 */
const STAGING_RE = /^\.svc-restore-(.+)-([0-9a-f]{16})$/;
const OLD_RE = /^\.svc-restore-old-(.+)-([0-9a-f]{12})$/;

const fail = (message: string): ApiError => new ApiError('BACKUP_RESTORE_FAILED', message, RESTORE_FAILED_STATUS);
const refuse = (name: string, reason: string): ApiError => fail(`Archive entry ${JSON.stringify(name)} refused: ${reason}`);
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

type Kind = 'file' | 'directory';
interface CheckedEntry {
  kind: Kind;
  /** Normalized relative path ('/' separated, no '.' or empty segments); never empty. */
  rel: string;
}

/**
 * Checks one header against the refusal rules and normalizes its path. Returns null for the
 * archive root itself (`./`), which has nothing to restore.
 */
function checkHeader(header: Header): CheckedEntry | null {
  const name = header.name;
  if (name.length === 0) throw refuse(name, 'empty name');
  if (name.includes('\0')) throw refuse(name, 'the name contains a NUL');
  if (name.includes('\\')) throw refuse(name, 'the name contains a backslash');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw refuse(name, 'absolute path');
  const segments = name.split('/');
  if (segments.includes('..')) throw refuse(name, "the path contains a '..' segment");
  if (header.type !== 'file' && header.type !== 'directory') throw refuse(name, `entry type ${header.type} is not restored (only files and directories)`);
  const rel = segments.filter((s) => s !== '' && s !== '.').join('/');
  if (header.type === 'file' && name.endsWith('/')) throw refuse(name, 'a file entry with a directory name');
  if (rel === '') {
    if (header.type === 'directory') return null;
    throw refuse(name, 'a file entry naming the archive root');
  }
  return { kind: header.type, rel };
}

/** The archive's own sha256sum lines, parsed tolerantly: `<hex>  <path>` or `<hex> *<path>`, sha256sum's `\` escaping undone. */
function parseManifest(text: string): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (let line of text.split('\n')) {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() === '') continue;
    let escaped = false;
    if (line.startsWith('\\')) {
      escaped = true;
      line = line.slice(1);
    }
    const match = /^([0-9a-fA-F]{64}) [ *](.*)$/.exec(line);
    if (!match) throw fail(`Archive manifest has a malformed line: ${JSON.stringify(line.slice(0, 200))}`);
    let path = match[2] ?? '';
    if (escaped) path = path.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c));
    path = path
      .split('/')
      .filter((s) => s !== '' && s !== '.')
      .join('/');
    const list = byPath.get(path) ?? [];
    list.push((match[1] ?? '').toLowerCase());
    byPath.set(path, list);
  }
  return byPath;
}

/** Every regular file must be listed with its hash, and the manifest may list nothing else. */
function verifyAgainstManifest(manifest: Map<string, string[]>, written: readonly { rel: string; sha256: string }[]): void {
  for (const { rel, sha256 } of written) {
    const hashes = manifest.get(rel);
    if (!hashes || hashes.length === 0) throw fail(`Archive file ${JSON.stringify(rel)} is not listed in ${MANIFEST_NAME}`);
    const at = hashes.indexOf(sha256);
    if (at < 0) throw fail(`Checksum mismatch: ${rel}`);
    hashes.splice(at, 1);
  }
  for (const [rel, hashes] of manifest) {
    if (hashes.length > 0) throw fail(`Missing file in archive: ${rel} (listed in ${MANIFEST_NAME}; the archive is truncated or damaged)`);
  }
}

/**
 * The physical absolute path the kernel would reach for `p`: segments are walked one by one, an
 * existing symlink is replaced by its real path before a following `..` applies (path.resolve would
 * apply `..` lexically first). Components that do not exist are appended as they are.
 */
function physicalPath(p: string): string {
  const parts = (isAbsolute(p) ? p : `${process.cwd()}/${p}`).split('/');
  let current = '/';
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    let info: Stats | undefined;
    try {
      info = lstatSync(next);
    } catch {
      info = undefined; // missing (or unreadable): appended lexically
    }
    current = info?.isSymbolicLink() ? realpathSync(next) : next;
  }
  return current;
}

/**
 * Whether `candidate` (after resolving `..` and symlinks of existing ancestors the way the kernel
 * would) lies inside one of `roots` (also resolved). A path equal to a root counts as inside: the
 * templates and config targets are roots themselves; the caller decides whether a root may be replaced.
 * A symlink loop or any resolution error answers false.
 */
export function insideRoots(candidate: string, roots: readonly string[]): boolean {
  let real: string;
  try {
    real = physicalPath(candidate);
  } catch {
    return false;
  }
  for (const root of roots) {
    let realRoot: string;
    try {
      realRoot = physicalPath(root);
    } catch {
      continue;
    }
    const rel = relative(realRoot, real);
    if (rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`))) return true;
  }
  return false;
}

/**
 * Removes a tree even when it holds directories without owner write or execute permission
 * (restored modes may be read-only): on EACCES/EPERM every directory is made 0700 and it retries.
 */
async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    await openUpDirectories(path);
    await rm(path, { recursive: true, force: true });
  }
}

async function openUpDirectories(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isDirectory()) return;
  await chmod(path, 0o700);
  for (const name of await readdir(path)) await openUpDirectories(join(path, name));
}

function removeTreeSync(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    const openUp = (p: string): void => {
      const info = lstatSync(p, { throwIfNoEntry: false });
      if (!info?.isDirectory()) return;
      chmodSync(p, 0o700);
      for (const name of readdirSync(p)) openUp(join(p, name));
    };
    openUp(path);
    rmSync(path, { recursive: true, force: true });
  }
}

/**
 * Streams the archive's entries to `handle` one at a time (each entry's body must be consumed
 * before the next arrives). Errors from the handler win over the pipeline's "premature close"
 * that destroying the streams causes; a corrupt archive surfaces as "Archive unreadable".
 */
async function forEachEntry(
  archive: string,
  signal: AbortSignal | undefined,
  handle: (header: Header, body: AsyncIterable<Uint8Array>) => Promise<void>,
): Promise<void> {
  const extractor = extract();
  let pipeError: unknown;
  const piped = pipeline(createReadStream(archive), createZstdDecompress(), extractor, signal ? { signal } : {}).catch((error: unknown) => {
    pipeError = error;
  });
  try {
    for await (const entry of extractor) {
      signal?.throwIfAborted();
      try {
        await handle(entry.header, bytesOf(entry));
      } catch (error) {
        // A file-system call failing while writing (ENOSPC, EACCES…) is the disk's fault, not the archive's.
        const syscall = (error as NodeJS.ErrnoException).syscall;
        throw typeof syscall === 'string' && syscall !== 'read' ? fail(`Restore failed: ${messageOf(error)}`) : error;
      }
    }
  } catch (error) {
    extractor.destroy();
    await piped;
    if (error instanceof ApiError) throw error;
    if (signal?.aborted) throw fail('Restore aborted');
    throw fail(`Archive unreadable: ${messageOf(pipeError ?? error)}`);
  }
  await piped;
  if (signal?.aborted) throw fail('Restore aborted');
  if (pipeError) throw fail(`Archive unreadable: ${messageOf(pipeError)}`);
}

/** tar-stream's entry bodies are typed as unknown chunks; they are Buffers. */
async function* bytesOf(body: AsyncIterable<unknown>): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) {
    if (!(chunk instanceof Uint8Array)) throw new Error('tar entry yielded a non-binary chunk');
    yield chunk;
  }
}

interface DirectoryMeta {
  mode: number;
  mtime: Date | null;
}

/**
 * Restores `archive` so that `target` holds exactly its content (extra files are gone: a restore is
 * the backup's state).
 * dryRun: reads and checks every entry (same refusals, same manifest check), writes nothing;
 * `filesExtracted` then counts the files that would be written.
 * Otherwise: extracts into `<dirname(target)>/.svc-restore-<basename>-<16 hex>` (created 0700),
 * restoring permission bits (setuid/setgid/sticky dropped) and mtimes (directories' after their
 * content), fsyncs, then swaps: target → `.svc-restore-old-<basename>-<12 hex>`, staging → target,
 * then removes the old one. A target that does not exist yet is simply created by the rename (its
 * parent is created); an existing target's own mode is kept. A symlinked target is resolved first,
 * so the real directory is replaced and the link stays. On ANY failure (bad entry, disk error,
 * corrupt archive, abort) the staging dir is removed and the target is untouched.
 * Refuses (ApiError BACKUP_RESTORE_FAILED, 409, message naming the entry) an entry whose path is
 * absolute, contains a `..` segment, a backslash or a NUL, whose type is not file/directory, that
 * would land outside the staging dir, or that collides with an earlier entry of the other kind.
 * A corrupt or truncated archive, or one without its trailing manifest → BACKUP_RESTORE_FAILED.
 * Callers must not run two restores of one target at once.
 */
export async function restoreArchive(archive: string, target: string, options: { dryRun: boolean; signal?: AbortSignal; keep?: readonly string[] }): Promise<RestoreOutcome> {
  const { dryRun, signal, keep = [] } = options;
  if (signal?.aborted) throw fail('Restore aborted');
  let realTarget: string;
  try {
    realTarget = physicalPath(target);
  } catch (error) {
    throw fail(`Restore target ${target} cannot be resolved: ${messageOf(error)}`);
  }
  if (realTarget === '/') throw fail('Restore target cannot be the filesystem root');
  const targetInfo = await lstat(realTarget).catch(() => undefined);
  if (targetInfo && !targetInfo.isDirectory()) throw fail(`Restore target ${realTarget} exists and is not a directory`);

  const parent = dirname(realTarget);
  const base = basename(realTarget);
  let staging: string | null = null;
  if (!dryRun) {
    try {
      await mkdir(parent, { recursive: true });
      staging = join(parent, `${STAGING_PREFIX}${base}-${randomBytes(8).toString('hex')}`);
      await mkdir(staging, { mode: 0o700 });
    } catch (error) {
      throw fail(`Restore failed: cannot create the staging directory beside ${realTarget}: ${messageOf(error)}`);
    }
  }

  try {
    const outcome = await extractAll(archive, staging, signal);
    if (staging === null) return outcome;
    signal?.throwIfAborted();
    await chmod(staging, targetInfo ? targetInfo.mode & 0o7777 : 0o755);
    await syncDirectory(staging);
    await swapIn(staging, realTarget, Boolean(targetInfo), keep);
    staging = null; // it is the target now
    return outcome;
  } catch (error) {
    if (staging !== null) await removeTree(staging).catch(() => undefined);
    if (error instanceof ApiError) throw error;
    if (signal?.aborted) throw fail('Restore aborted');
    throw fail(`Restore failed: ${messageOf(error)}`);
  }
}

/**
 * Reads every entry, checks it, and (with a staging dir) writes it there. The manifest is
 * recognized as the LAST root entry named MANIFEST.sha256: an earlier one is a real file of the
 * backed-up tree, so a root MANIFEST.sha256 is held aside (in memory for its text, in a side file
 * when writing) until the next entry shows whether it was last.
 */
async function extractAll(archive: string, staging: string | null, signal: AbortSignal | undefined): Promise<RestoreOutcome> {
  const kinds = new Map<string, Kind>();
  const listed: string[] = [];
  const fileSet = new Set<string>();
  const listedDirectories = new Set<string>();
  const written: { rel: string; sha256: string }[] = [];
  const directories = new Map<string, DirectoryMeta>();
  const sideName = `.svc-restore-manifest-${randomBytes(8).toString('hex')}`;
  let pending: { sha256: string; text: string | null } | null = null;

  const destinationOf = (rel: string, name: string): string => {
    if (staging === null) return rel;
    const path = resolve(staging, rel);
    if (!path.startsWith(staging + sep)) throw refuse(name, 'it resolves outside the restore directory');
    return path;
  };

  const recordFile = (rel: string, sha256: string): void => {
    written.push({ rel, sha256 });
    if (!fileSet.has(rel)) {
      fileSet.add(rel);
      listed.push(rel);
    }
  };

  /** The held-aside MANIFEST.sha256 was not the last entry: it is a real file. */
  const promotePending = async (): Promise<void> => {
    if (!pending) return;
    const held = pending;
    pending = null;
    if (kinds.get(MANIFEST_NAME) === 'directory') throw refuse(MANIFEST_NAME, 'a file entry where the archive already has a directory');
    kinds.set(MANIFEST_NAME, 'file');
    if (staging !== null) await rename(join(staging, sideName), join(staging, MANIFEST_NAME));
    recordFile(MANIFEST_NAME, held.sha256);
  };

  /** Ancestors must be directories (or not yet seen); records them as directories. */
  const claimParents = (rel: string, name: string): void => {
    const segments = rel.split('/');
    for (let i = 1; i < segments.length; i++) {
      const ancestor = segments.slice(0, i).join('/');
      if (kinds.get(ancestor) === 'file') throw refuse(name, `its parent ${ancestor} is a file in this archive`);
      kinds.set(ancestor, 'directory');
      if (!directories.has(ancestor)) directories.set(ancestor, { mode: 0o755, mtime: null });
    }
  };

  await forEachEntry(archive, signal, async (header, body) => {
    await promotePending();
    const checked = checkHeader(header);
    if (checked === null) {
      for await (const _ of body) signal?.throwIfAborted(); // a root entry: nothing to keep
      return;
    }
    const { kind, rel } = checked;
    if (rel === sideName) throw refuse(header.name, 'reserved name');
    const path = destinationOf(rel, header.name);
    claimParents(rel, header.name);
    const seen = kinds.get(rel);
    if (seen !== undefined && seen !== kind) throw refuse(header.name, `a ${kind} entry where the archive already has a ${seen}`);
    kinds.set(rel, kind);
    const mode = (header.mode ?? (kind === 'directory' ? 0o755 : 0o644)) & 0o777;
    const mtime = header.mtime instanceof Date && !Number.isNaN(header.mtime.getTime()) ? header.mtime : null;

    if (kind === 'directory') {
      for await (const _ of body) signal?.throwIfAborted();
      if (staging === null && !listedDirectories.has(rel)) {
        listedDirectories.add(rel);
        listed.push(`${rel}/`);
      }
      directories.set(rel, { mode, mtime });
      if (staging !== null) await mkdir(path, { recursive: true, mode: 0o700 });
      return;
    }

    const isManifestCandidate = rel === MANIFEST_NAME;
    const hash = createHash('sha256');
    const keep: Uint8Array[] | null = isManifestCandidate && header.size <= MANIFEST_MAX_BYTES ? [] : null;
    if (staging === null) {
      for await (const chunk of body) {
        signal?.throwIfAborted();
        hash.update(chunk);
        keep?.push(chunk);
      }
    } else {
      const destination = isManifestCandidate ? join(staging, sideName) : path;
      await mkdir(dirname(destination), { recursive: true, mode: 0o700 });
      if (seen === 'file') await rm(destination, { force: true }); // a duplicate entry: the later one wins
      const handle = await open(destination, 'wx', 0o600);
      try {
        for await (const chunk of body) {
          signal?.throwIfAborted();
          hash.update(chunk);
          keep?.push(chunk);
          await handle.write(chunk);
        }
        await handle.chmod(mode);
        if (mtime) await handle.utimes(mtime, mtime);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    const sha256 = hash.digest('hex');
    if (isManifestCandidate) {
      kinds.delete(rel); // decided by the next entry (or the end)
      pending = { sha256, text: keep ? Buffer.concat(keep).toString('utf8') : null };
    } else {
      recordFile(rel, sha256);
    }
  });

  const manifest = pending as { sha256: string; text: string | null } | null;
  if (!manifest) throw fail(`Archive has no trailing ${MANIFEST_NAME}: it is truncated or not a backup archive`);
  if (manifest.text === null) throw fail(`Archive ${MANIFEST_NAME} is larger than ${MANIFEST_MAX_BYTES} bytes`);
  verifyAgainstManifest(parseManifest(manifest.text), written);

  if (staging !== null) {
    await rm(join(staging, sideName), { force: true });
    // Deepest first, so a parent's mtime is set after its children changed it and a read-only
    // parent is made read-only only after its children are done.
    const ordered = [...directories].sort((a, b) => b[0].split('/').length - a[0].split('/').length);
    for (const [rel, meta] of ordered) {
      signal?.throwIfAborted();
      const handle = await open(join(staging, rel), 'r');
      try {
        await handle.chmod(meta.mode);
        if (meta.mtime) await handle.utimes(meta.mtime, meta.mtime);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  }
  return { filesExtracted: fileSet.size, files: listed };
}

/** target → old, staging → target, fsync the parent, remove old. A failed second rename puts the old tree back. */
/**
 * `keep`: top-level names of the old target carried over into the restored one when the archive
 * did not bring them (a live service's supervisor files: its FIFO, pid and console log).
 */
async function swapIn(staging: string, target: string, targetExists: boolean, keep: readonly string[]): Promise<void> {
  const parent = dirname(target);
  if (!targetExists) {
    await rename(staging, target);
    await syncDirectory(parent);
    return;
  }
  const old = join(parent, `${OLD_PREFIX}${basename(target)}-${randomBytes(6).toString('hex')}`);
  await rename(target, old);
  try {
    await rename(staging, target);
  } catch (error) {
    await rename(old, target);
    throw error;
  }
  await syncDirectory(parent);
  for (const name of keep) {
    const from = join(old, name);
    const to = join(target, name);
    if (existsSync(from) && !existsSync(to)) await rename(from, to).catch(() => undefined);
  }
  // The restore has succeeded; a failure to remove the old tree leaves it for recoverInterruptedRestores.
  await removeTree(old).catch(() => undefined);
}

/**
 * After a crash (call before anything restores into `parent`): removes `.svc-restore-<name>-*`
 * staging dirs under `parent`; if `.svc-restore-old-<name>-*` exists while `<name>` does not, renames
 * it back (the crash fell between the two renames); an old tree whose `<name>` exists is the leftover
 * of a finished swap and is removed. Returns what it did as sentences for the log.
 */
export function recoverInterruptedRestores(parent: string): string[] {
  const done: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return done;
  }
  for (const name of names.sort()) {
    const path = join(parent, name);
    const old = OLD_RE.exec(name);
    try {
      if (old) {
        const original = join(parent, old[1] ?? '');
        if (lstatSync(original, { throwIfNoEntry: false }) === undefined) {
          renameSync(path, original);
          done.push(`Restore recovery: put back ${original} from ${name} (a restore was interrupted between its renames)`);
        } else {
          removeTreeSync(path);
          done.push(`Restore recovery: removed ${name}, the old tree left behind by a finished restore of ${original}`);
        }
        continue;
      }
      if (STAGING_RE.test(name)) {
        removeTreeSync(path);
        done.push(`Restore recovery: removed the staging directory ${path} of an interrupted restore`);
      }
    } catch (error) {
      done.push(`Restore recovery: could not handle ${path}: ${messageOf(error)}`);
    }
  }
  return done;
}
