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
 * - the trailing manifest is required and every file's SHA-256 is checked against it: the archive
 *   is read, and the manifest told from the tree's files, by the archive module's one reader
 *   (archive/backup-reader.ts), so restore and verify agree on what a sound archive is.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { Header } from 'tar-stream';
import { syncDirectory } from '../../core/files/atomic-write';
import { ApiError } from '../../errors';
import { readBackupArchive } from './archive/backup-reader';
import { checkAgainstManifest, entryPath, MANIFEST_NAME, parseManifest, problemMessage, type FileHash } from './archive/manifest-file';
import { ArchiveUnreadableError, type EntryVisitor } from './archive/tar-reader';
import { removeTree } from './remove-tree';
import { OLD_PREFIX, RESTORE_FOLDER_PREFIX } from './restore-folders';
import { physicalPath } from './restore-paths';

export interface RestoreOutcome {
  /** Regular files written (for a dry run: that would be written), the manifest excluded. */
  filesExtracted: number;
  /** Relative paths of regular files in archive order (for a dry run also directories, with a trailing '/'); manifest excluded. */
  files: string[];
}

/** The restore answers 409 (the reference's status for every restore failure), not the code's default. */
const RESTORE_FAILED_STATUS = 409;
const STAGING_PREFIX = RESTORE_FOLDER_PREFIX;

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
  const rel = entryPath(name);
  if (header.type === 'file' && name.endsWith('/')) throw refuse(name, 'a file entry with a directory name');
  if (rel === '') {
    if (header.type === 'directory') return null;
    throw refuse(name, 'a file entry naming the archive root');
  }
  return { kind: header.type, rel };
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
 * Reads every entry, checks it, and (with a staging dir) writes it there; then checks what it
 * read against the trailing manifest. Which entry is the manifest is the archive reader's to say
 * (readBackupArchive): every other entry, a root MANIFEST.sha256 of the tree included, is restored.
 */
async function extractAll(archive: string, staging: string | null, signal: AbortSignal | undefined): Promise<RestoreOutcome> {
  const kinds = new Map<string, Kind>();
  const listed: string[] = [];
  const fileSet = new Set<string>();
  const listedDirectories = new Set<string>();
  const written: FileHash[] = [];
  const directories = new Map<string, DirectoryMeta>();

  const destinationOf = (rel: string, name: string): string => {
    if (staging === null) return rel;
    const path = resolve(staging, rel);
    if (!path.startsWith(staging + sep)) throw refuse(name, 'it resolves outside the restore directory');
    return path;
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

  const visit: EntryVisitor = async (header, body) => {
    signal?.throwIfAborted();
    const checked = checkHeader(header);
    if (checked === null) return; // a root entry: nothing to keep (its content is skipped)
    const { kind, rel } = checked;
    const path = destinationOf(rel, header.name);
    claimParents(rel, header.name);
    const seen = kinds.get(rel);
    if (seen !== undefined && seen !== kind) throw refuse(header.name, `a ${kind} entry where the archive already has a ${seen}`);
    kinds.set(rel, kind);
    const mode = (header.mode ?? (kind === 'directory' ? 0o755 : 0o644)) & 0o777;
    const mtime = header.mtime instanceof Date && !Number.isNaN(header.mtime.getTime()) ? header.mtime : null;

    if (kind === 'directory') {
      if (staging === null && !listedDirectories.has(rel)) {
        listedDirectories.add(rel);
        listed.push(`${rel}/`);
      }
      directories.set(rel, { mode, mtime });
      if (staging !== null) await mkdir(path, { recursive: true, mode: 0o700 });
      return;
    }

    const hash = createHash('sha256');
    if (staging === null) {
      for await (const chunk of body) {
        signal?.throwIfAborted();
        hash.update(chunk);
      }
    } else {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      if (seen === 'file') await rm(path, { force: true }); // a duplicate entry: the later one wins
      const handle = await open(path, 'wx', 0o600);
      try {
        for await (const chunk of body) {
          signal?.throwIfAborted();
          hash.update(chunk);
          await handle.write(chunk);
        }
        await handle.chmod(mode);
        if (mtime) await handle.utimes(mtime, mtime);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    written.push({ path: rel, hash: hash.digest('hex') });
    if (!fileSet.has(rel)) {
      fileSet.add(rel);
      listed.push(rel);
    }
  };

  const manifest = await readArchive(archive, visit, signal);
  if (manifest === null) throw fail(`Archive has no trailing ${MANIFEST_NAME}: it is truncated or not a backup archive`);
  const problem = checkAgainstManifest(parseManifest(manifest), written)[0];
  if (problem) throw fail(problemMessage(problem));

  if (staging !== null) {
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

/**
 * The archive's trailing manifest text (null without one), every other entry handed to `visit`.
 * Errors as a restore reports them: the visitor's refusals as they are, a file-system call failing
 * while writing (ENOSPC, EACCES…) as the disk's fault, anything else as the archive's.
 */
async function readArchive(archive: string, visit: EntryVisitor, signal: AbortSignal | undefined): Promise<string | null> {
  try {
    const { manifest } = await readBackupArchive(archive, visit, { signal });
    signal?.throwIfAborted();
    return manifest;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (signal?.aborted) throw fail('Restore aborted');
    const syscall = (error as NodeJS.ErrnoException).syscall;
    if (!(error instanceof ArchiveUnreadableError) && typeof syscall === 'string' && syscall !== 'read') throw fail(`Restore failed: ${messageOf(error)}`);
    throw fail(`Archive unreadable: ${messageOf(error)}`);
  }
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
