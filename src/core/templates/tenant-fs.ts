import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import { createBreather, type Breather } from './breather';

/*
 * How svc reads and writes inside a directory a game server controls: a service's work dir, a
 * dedicated service's directory. The server runs third-party code and may have planted links
 * (`server.properties -> /etc/shadow`, `plugins -> /etc`), hard links, FIFOs, or trees nested
 * deeper than any path can name, while svc itself often runs as root. One rule, everywhere
 * (provisioning, patches, deploy back, state sync, log reads, modpack installs):
 *
 * - Reading: svc hands on (into a template, a canonical copy, a manifest, a patched file, a log
 *   answer) only regular files with a single link, reached without passing any symbolic link.
 *   Links, to a file or a folder, pointing inside or outside, are skipped and named in the log
 *   (they are never copied either, not even links that stay inside: one rule, no resolving);
 *   so are FIFOs, sockets, devices (never opened: a FIFO would block the reader for good), files
 *   with other hard links (their bytes may be a file elsewhere) and folders nested deeper than
 *   MAX_DEPTH.
 * - Writing: nothing is written into an existing entry. A file is created under a fresh name
 *   (O_EXCL, O_NOFOLLOW) in the real folder and renamed over its entry, which replaces a link,
 *   a FIFO or a hard-linked file instead of writing to what it stands for. A link or a file
 *   where a folder is needed is refused (or replaced, where the caller says so), never followed.
 *   Entries svc creates in a folder that belongs to another user (a service's own uid) are
 *   given to that user, when svc runs as root, so the server can still rewrite them.
 *
 * On Linux every folder is opened with O_NOFOLLOW, one level at a time from the root, and used
 * through its /proc/self/fd entry: a link swapped in by a still-running process between a check
 * and the act is never followed, because no path is looked up again from the top. Elsewhere
 * (no /proc) the same checks are made with lstat on every level, which a race could beat; those
 * platforms run servers without per-service isolation, as the controller's own user, so such a
 * server could reach the same files directly anyway.
 */

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

/** Opening for reading: never through a final link, never waiting on a FIFO, never adopting a terminal. */
export const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const FOLDER_FLAGS = constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;

/** Folders nested deeper than this (relative to the directory's root) are left alone. */
export const MAX_DEPTH = 128;
/** Entries one walk lists at most: a tree larger than this fails the operation instead of exhausting memory. */
export const MAX_WALK_ENTRIES = 2_000_000;
/** Folders kept open between calls of one tree (least recently used closed first). */
const MAX_OPEN_FOLDERS = 32;

export type Refusal = 'link' | 'special' | 'hardlinked' | 'not-a-folder' | 'too-deep' | 'too-large';

const WHY: Record<Refusal, string> = {
  link: 'a symbolic link (svc never follows links in a service directory)',
  special: 'not a regular file (a folder, FIFO, socket or device)',
  hardlinked: 'a file with other hard links (its bytes may be another file elsewhere)',
  'not-a-folder': 'not a folder',
  'too-deep': `nested deeper than ${MAX_DEPTH} folders`,
  'too-large': 'larger than svc reads for this',
};

/** An entry svc will not read or pass through, by the rule above. `rel` names the entry at fault. */
export class RefusedEntry extends Error {
  readonly code = 'ESVCREFUSED';

  constructor(
    readonly rel: string,
    readonly refusal: Refusal,
  ) {
    super(`${rel || '.'} is ${WHY[refusal]}`);
    this.name = 'RefusedEntry';
  }

  /** The reason in a few words, for skip reports. */
  get reason(): string {
    return WHY[this.refusal];
  }
}

export interface OpenedFile {
  readonly fd: number;
  /** fstat of the open file: a regular file. */
  readonly stats: Stats;
  /**
   * A path naming exactly this open file, for APIs that take paths (copyFile, Bun.file): its
   * /proc/self/fd entry on Linux, else the checked path. Valid until `close`.
   */
  readonly path: string;
  close(): void;
}

/** A folder of a tree, pinned while a caller works in it. Its `base` joins with a name to reach an entry. */
export interface TenantFolder {
  readonly rel: string;
  readonly base: string;
}

interface Folder extends TenantFolder {
  fd: number | null;
  pins: number;
  /** The owner new entries get (see adoptOwner); undefined until first asked. */
  owner?: { uid: number; gid: number } | null;
  /** Dropped from the cache while pinned (removed): closed when its last user releases it. */
  dropped?: boolean;
}

/** `existing`: must be there. `create`: missing levels made, a link or file in the way refused. `replace`: that, but a link or file in the way removed. */
export type FolderMode = 'existing' | 'create' | 'replace';

export interface TenantTreeOptions {
  /**
   * Accept regular files that have other hard links. Off for service directories; on only for
   * trees svc alone fills (state-sync canonical copies, seeded with hard links of each other).
   */
  hardlinks?: boolean;
  /** Give created entries the owner of their folder when it is another user and svc is root (default on). */
  adoptOwner?: boolean;
  /** Create the root folder (and its parents) when missing. */
  create?: boolean;
}

let procOverride: boolean | null = null;
let procProbe: boolean | null = null;

/** Whether folders are used through /proc/self/fd (Linux with /proc mounted). */
export function usesProcFds(): boolean {
  if (procOverride !== null) return procOverride;
  if (procProbe !== null) return procProbe;
  procProbe = false;
  if (process.platform !== 'linux') return false;
  let fd: number | null = null;
  try {
    fd = openSync('/', constants.O_RDONLY | O_DIRECTORY);
    procProbe = statSync(`/proc/self/fd/${fd}`).ino === fstatSync(fd).ino;
  } catch {
    procProbe = false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
  return procProbe;
}

/** Tests: run the lstat-checked path of platforms without /proc (false), or go back to probing (null). */
export function overrideProcFds(value: boolean | null): void {
  procOverride = value;
}

/**
 * One service directory, read and written by the rule above. Open it, work, `close()` it (in a
 * `finally`): it holds a few open folders.
 */
export class TenantTree {
  readonly root: string;
  /** The root's real path. */
  readonly real: string;
  private readonly proc: boolean;
  private readonly hardlinks: boolean;
  private readonly adopt: boolean;
  private readonly top: Folder;
  private readonly folders = new Map<string, Folder>();
  private closed = false;

  private constructor(root: string, real: string, top: Folder, options: TenantTreeOptions, proc: boolean) {
    this.root = root;
    this.real = real;
    this.top = top;
    this.proc = proc;
    this.hardlinks = options.hardlinks ?? false;
    this.adopt = options.adoptOwner ?? true;
  }

  /** The tree at `root`, or null when there is no folder there. The root itself is the operator's: a link there is followed. */
  static open(root: string, options: TenantTreeOptions = {}): TenantTree | null {
    if (options.create) mkdirSync(root, { recursive: true });
    let real: string;
    try {
      real = realpathSync(root);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    const proc = usesProcFds();
    let top: Folder;
    if (proc) {
      let fd: number;
      try {
        fd = openSync(real, FOLDER_FLAGS);
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      top = { rel: '', fd, base: `/proc/self/fd/${fd}`, pins: 1 };
    } else {
      if (!lstatOrNull(real)?.isDirectory()) return null;
      top = { rel: '', fd: null, base: real, pins: 1 };
    }
    return new TenantTree(root, real, top, options, proc);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const folder of this.folders.values()) closeFolder(folder);
    this.folders.clear();
    closeFolder(this.top);
  }

  /** Runs `fn` in the folder `rel` ('' for the root), opened by `mode`; RefusedEntry when a link is in the way. */
  withFolder<T>(rel: string, mode: FolderMode, fn: (folder: TenantFolder) => T): T {
    const folder = this.acquire(rel, mode);
    try {
      return fn(folder);
    } finally {
      this.release(folder);
    }
  }

  /** As withFolder, for work that awaits: the folder stays open until it settles. */
  async withFolderAsync<T>(rel: string, mode: FolderMode, fn: (folder: TenantFolder) => Promise<T>): Promise<T> {
    const folder = this.acquire(rel, mode);
    try {
      return await fn(folder);
    } finally {
      this.release(folder);
    }
  }

  /**
   * Keeps the folder `rel` open (by `mode`) until `release`, for work that outlives one call
   * (a swap undone later). The tree must stay open as long.
   */
  holdFolder(rel: string, mode: FolderMode): TenantFolder & { release(): void } {
    const folder = this.acquire(rel, mode);
    let held = true;
    return {
      rel: folder.rel,
      base: folder.base,
      release: () => {
        if (!held) return;
        held = false;
        this.release(folder);
      },
    };
  }

  /** lstat of an entry (never following it); null when it or a folder on the way is missing. A link on the way is RefusedEntry. */
  entry(rel: string): Stats | null {
    const { dir, name } = split(rel);
    try {
      return this.withFolder(dir, 'existing', (folder) => lstatOrNull(`${folder.base}/${name}`));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /**
   * Opens a file to read its bytes: null when it (or a folder on the way) is missing;
   * RefusedEntry for a link (at the end or on the way), a FIFO, socket, device or folder, and
   * (unless the tree accepts them) a file with other hard links. Never blocks.
   */
  openRead(rel: string): OpenedFile | null {
    const { dir, name } = split(rel);
    let folder: Folder;
    try {
      folder = this.acquire(dir, 'existing');
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    try {
      const path = `${folder.base}/${name}`;
      const opened = openRegular(path, rel);
      if (opened === null) return null;
      if (!this.hardlinks && opened.stats.nlink > 1) {
        opened.close();
        throw new RefusedEntry(rel, 'hardlinked');
      }
      return opened;
    } finally {
      this.release(folder);
    }
  }

  /** A small file's bytes (null when missing); RefusedEntry as openRead, and past `maxBytes`. */
  readSmall(rel: string, maxBytes: number): Buffer | null {
    const opened = this.openRead(rel);
    if (opened === null) return null;
    try {
      if (opened.stats.size > maxBytes) throw new RefusedEntry(rel, 'too-large');
      return readAll(opened.fd, maxBytes, rel);
    } finally {
      opened.close();
    }
  }

  /**
   * Replaces the file `rel` with `data`: written under a fresh name in its folder (missing
   * folders created; a link or file on the way refused), then renamed over whatever entry was
   * there (a link or hard link is replaced, never written through; a folder there fails).
   * `mode` is exact when given, else 0644 less the umask.
   */
  writeFile(rel: string, data: string | Uint8Array, options: { mode?: number } = {}): void {
    const { dir, name } = split(rel);
    this.withFolder(dir, 'create', (folder) => {
      const temp = `${folder.base}/${tempName(name)}`;
      const fd = openSync(temp, CREATE_FLAGS, options.mode ?? 0o644);
      try {
        try {
          this.adoptFd(folder as Folder, fd);
          if (options.mode !== undefined) fchmodSync(fd, options.mode);
          const bytes = typeof data === 'string' ? Buffer.from(data) : data;
          for (let offset = 0; offset < bytes.byteLength; ) offset += writeSync(fd, bytes, offset);
        } finally {
          closeSync(fd);
        }
        renameSync(temp, `${folder.base}/${name}`);
      } catch (error) {
        ignoreMissing(() => unlinkSync(temp));
        throw error;
      }
    });
  }

  /** Unlinks a file or link (never what a link points to). False when missing, or when a link on the way stops it (not followed). */
  remove(rel: string): boolean {
    const { dir, name } = split(rel);
    try {
      return this.withFolder(dir, 'existing', (folder) => {
        try {
          unlinkSync(`${folder.base}/${name}`);
          return true;
        } catch (error) {
          if (isMissing(error)) return false;
          throw error;
        }
      });
    } catch (error) {
      if (isMissing(error) || error instanceof RefusedEntry) return false;
      throw error;
    }
  }

  /** Removes the folder `rel` when it is empty (best effort: anything else leaves it). */
  removeEmptyFolder(rel: string): void {
    if (rel === '') return;
    this.forget(rel);
    const { dir, name } = split(rel);
    try {
      this.withFolder(dir, 'existing', (folder) => {
        const path = `${folder.base}/${name}`;
        if (lstatOrNull(path)?.isDirectory()) rmdirSync(path);
      });
    } catch {
      // Not empty, gone, or behind a link: left as it is.
    }
  }

  /** Removes the entry `rel` whatever it is, a folder with all it holds included, never following a link. */
  removeAll(rel: string): void {
    this.forget(rel);
    const { dir, name } = split(rel);
    try {
      this.withFolder(dir, 'existing', (folder) => rmSync(`${folder.base}/${name}`, { recursive: true, force: true }));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  /** Gives a just-created entry (in `folder`) its folder's owner, when that is another user and svc is root. */
  adoptEntry(folder: TenantFolder, name: string): void {
    const owner = this.ownerOf(folder as Folder);
    if (owner) lchownSync(`${folder.base}/${name}`, owner.uid, owner.gid);
  }

  /**
   * As adoptEntry for a file svc just placed, but only while it is a regular file with no other
   * link: a name swapped meanwhile for a hard link of someone else's file is never chowned.
   */
  adoptFile(folder: TenantFolder, name: string): void {
    const owner = this.ownerOf(folder as Folder);
    if (!owner) return;
    const opened = openRegular(`${folder.base}/${name}`, name, true);
    if (!opened) return;
    try {
      if (opened.stats.nlink === 1) fchownSync(opened.fd, owner.uid, owner.gid);
    } finally {
      opened.close();
    }
  }

  /**
   * The regular files under the root, as relative POSIX paths in no particular order. Links,
   * FIFOs, sockets, devices and folders deeper than MAX_DEPTH are reported to `skip` and left
   * out; `exclude` prunes paths (a folder it matches is not entered). Hard links are not
   * looked at here (a listing does not stat files): openRead checks them. The event loop gets
   * a turn whenever the breather says so.
   */
  async files(options: { exclude?: (rel: string) => boolean; breathe?: Breather; skip?: (rel: string, reason: string) => void } = {}): Promise<string[]> {
    const breathe = options.breathe ?? createBreather();
    const out: string[] = [];
    const pending: string[] = [''];
    let seen = 0;
    while (pending.length > 0) {
      const dir = pending.pop()!;
      let entries: Dirent[];
      try {
        entries = this.withFolder(dir, 'existing', (folder) => readdirSync(folder.base, { withFileTypes: true }));
      } catch (error) {
        // Replaced by a link since its parent was listed: reported, not followed.
        if (error instanceof RefusedEntry) options.skip?.(error.rel, error.reason);
        else if (!isMissing(error)) throw error;
        continue;
      }
      seen += entries.length;
      if (seen > MAX_WALK_ENTRIES) throw new Error(`${this.root} holds more than ${MAX_WALK_ENTRIES} entries; svc does not walk a tree that large`);
      for (const dirent of entries) {
        const rel = dir === '' ? dirent.name : `${dir}/${dirent.name}`;
        if (options.exclude?.(rel)) continue;
        const kind = kindOf(dirent) ?? this.kindAt(dir, dirent.name);
        if (kind === 'file') out.push(rel);
        else if (kind === 'dir') {
          if (depthOf(rel) > MAX_DEPTH) options.skip?.(rel, WHY['too-deep']);
          else pending.push(rel);
        } else if (kind === 'symlink') options.skip?.(rel, WHY.link);
        else if (kind === 'special') options.skip?.(rel, WHY.special);
      }
      const pause = breathe();
      if (pause) await pause;
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------

  private kindAt(dir: string, name: string): EntryKind | null {
    try {
      return this.withFolder(dir, 'existing', (folder) => {
        const stats = lstatOrNull(`${folder.base}/${name}`);
        return stats ? (kindOf(stats) ?? 'special') : null;
      });
    } catch {
      return null;
    }
  }

  private acquire(rel: string, mode: FolderMode): Folder {
    if (this.closed) throw new Error(`the tree at ${this.root} is closed`);
    if (rel === '') {
      this.top.pins++;
      return this.top;
    }
    const cached = this.folders.get(rel);
    if (cached) {
      this.folders.delete(rel);
      this.folders.set(rel, cached);
      cached.pins++;
      return cached;
    }
    if (depthOf(rel) > MAX_DEPTH) throw new RefusedEntry(rel, 'too-deep');
    const { dir, name } = split(rel);
    const parent = this.acquire(dir, mode);
    let folder: Folder;
    try {
      folder = this.openChild(parent, name, rel, mode);
    } finally {
      this.release(parent);
    }
    folder.pins = 1;
    this.folders.set(rel, folder);
    this.evict();
    return folder;
  }

  private release(folder: Folder): void {
    folder.pins--;
    if (folder.dropped && folder.pins === 0) closeFolder(folder);
  }

  private openChild(parent: Folder, name: string, rel: string, mode: FolderMode): Folder {
    const path = `${parent.base}/${name}`;
    for (let attempt = 0; attempt < 5; attempt++) {
      let code: string | undefined;
      if (this.proc) {
        try {
          const fd = openSync(path, FOLDER_FLAGS);
          return { rel, fd, base: `/proc/self/fd/${fd}`, pins: 0 };
        } catch (error) {
          code = codeOf(error);
          if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
        }
      } else {
        const stats = lstatOrNull(path);
        if (stats?.isDirectory()) return { rel, fd: null, base: path, pins: 0 };
        code = stats ? 'ENOTDIR' : 'ENOENT';
      }
      const stats = lstatOrNull(path);
      if (stats === null) {
        if (mode === 'existing') throw missing(rel, 'ENOENT');
        try {
          mkdirSync(path);
          this.adoptEntry(parent, name);
        } catch (error) {
          if (codeOf(error) !== 'EEXIST') throw error;
        }
        continue;
      }
      if (stats.isDirectory()) continue; // became a folder meanwhile: open it
      if (mode === 'replace') {
        ignoreMissing(() => unlinkSync(path));
        continue;
      }
      if (stats.isSymbolicLink()) throw new RefusedEntry(rel, 'link');
      if (mode === 'existing') throw missing(rel, 'ENOTDIR');
      throw new RefusedEntry(rel, 'not-a-folder');
    }
    throw new Error(`${rel} keeps changing while svc works in it`);
  }

  private evict(): void {
    if (this.folders.size <= MAX_OPEN_FOLDERS) return;
    for (const [rel, folder] of this.folders) {
      if (this.folders.size <= MAX_OPEN_FOLDERS) return;
      if (folder.pins > 0) continue;
      closeFolder(folder);
      this.folders.delete(rel);
    }
  }

  /** Drops a folder (and what lies under it) from the open ones, before it is removed. */
  private forget(rel: string): void {
    const prefix = `${rel}/`;
    for (const [key, folder] of this.folders) {
      if (key !== rel && !key.startsWith(prefix)) continue;
      this.folders.delete(key);
      if (folder.pins === 0) closeFolder(folder);
      else folder.dropped = true;
    }
  }

  private ownerOf(folder: Folder): { uid: number; gid: number } | null {
    if (!this.adopt) return null;
    const euid = process.geteuid?.();
    if (euid !== 0) return null;
    if (folder.owner === undefined) {
      const stats = folder.fd !== null ? fstatSync(folder.fd) : lstatSync(folder.base);
      folder.owner = stats.uid !== euid ? { uid: stats.uid, gid: stats.gid } : null;
    }
    return folder.owner;
  }

  private adoptFd(folder: Folder, fd: number): void {
    const owner = this.ownerOf(folder);
    if (owner) fchownSync(fd, owner.uid, owner.gid);
  }
}

/**
 * Opens a regular file for reading without following a link at the end and without blocking:
 * null when missing; RefusedEntry (named `rel`) for a link or anything but a regular file. For
 * trees svc alone writes (templates, canonical copies); service directories go through
 * TenantTree, which also refuses links on the way and hard links.
 */
export function openRegular(path: string, rel: string = path, quiet = false): OpenedFile | null {
  let fd: number;
  try {
    // Refused by type before any open where possible: opening a device can have effects.
    const before = lstatSync(path);
    if (before.isSymbolicLink()) throw new RefusedEntry(rel, 'link');
    if (!before.isFile()) throw new RefusedEntry(rel, 'special');
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    if (isMissing(error)) return null;
    if (quiet) return null;
    if (error instanceof RefusedEntry) throw error;
    const code = codeOf(error);
    if (code === 'ELOOP') throw new RefusedEntry(rel, 'link');
    if (code === 'ENXIO' || code === 'EISDIR') throw new RefusedEntry(rel, 'special');
    throw error;
  }
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!stats.isFile()) {
    closeSync(fd);
    if (quiet) return null;
    throw new RefusedEntry(rel, 'special');
  }
  let open = true;
  return {
    fd,
    stats,
    path: usesProcFds() ? `/proc/self/fd/${fd}` : path,
    close: () => {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/**
 * A folder found by its real path (no link in it), opened so that entries are reached through
 * it and not by looking the path up again: on Linux through /proc/self/fd, after checking that
 * the folder opened is the one named (a link swapped in on the way since is refused with
 * ELOOP); elsewhere the path itself, checked with lstat.
 */
export function openRealFolder(real: string): { base: string; stats: Stats; close(): void } {
  if (usesProcFds()) {
    const fd = openSync(real, FOLDER_FLAGS);
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) !== real) throw missing(real, 'ELOOP');
      const stats = fstatSync(fd);
      let open = true;
      return {
        base: `/proc/self/fd/${fd}`,
        stats,
        close: () => {
          if (!open) return;
          open = false;
          closeSync(fd);
        },
      };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }
  const stats = lstatSync(real);
  if (stats.isSymbolicLink()) throw missing(real, 'ELOOP');
  if (!stats.isDirectory()) throw missing(real, 'ENOTDIR');
  return { base: real, stats, close: () => undefined };
}

/** Reads a whole open file, at most `max` bytes (more is RefusedEntry too-large: it grew meanwhile). */
export function readAll(fd: number, max: number, rel: string): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    total += read;
    if (total > max) throw new RefusedEntry(rel, 'too-large');
    chunks.push(Buffer.from(buffer.subarray(0, read)));
  }
  return Buffer.concat(chunks, total);
}

/**
 * Splits a relative POSIX path into its folder ('' for the root) and its name. A name that
 * could step elsewhere (empty, `.`, `..`) is a caller's bug: thrown, never joined.
 */
export function split(rel: string): { dir: string; name: string } {
  const slash = rel.lastIndexOf('/');
  const name = slash < 0 ? rel : rel.slice(slash + 1);
  if (name === '' || name === '.' || name === '..' || name.includes('\0')) throw new Error(`${JSON.stringify(rel)} is not a relative path of a service directory`);
  return { dir: slash < 0 ? '' : rel.slice(0, slash), name };
}

function depthOf(rel: string): number {
  let depth = 1;
  for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) depth++;
  return depth;
}

type EntryKind = 'dir' | 'file' | 'symlink' | 'special';

function kindOf(entry: Dirent | Stats): EntryKind | null {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()) return 'special';
  return null;
}

function tempName(name: string): string {
  return `.${name.slice(0, 100)}.${randomBytes(6).toString('hex')}.svc-tmp`;
}

function closeFolder(folder: Folder): void {
  if (folder.fd === null) return;
  try {
    closeSync(folder.fd);
  } catch {
    // Already closed.
  }
  folder.fd = null;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

function missing(rel: string, code: string): NodeJS.ErrnoException {
  const words = code === 'ELOOP' ? 'is not the folder it was (a link was swapped in)' : code === 'ENOTDIR' ? 'is not a folder' : 'does not exist';
  return Object.assign(new Error(`${rel} ${words}`), { code });
}

function ignoreMissing(action: () => void): void {
  try {
    action();
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** ENOENT, or ENOTDIR (a file where a folder of the path should be): nothing there to act on. */
export function isMissing(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function codeOf(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}
