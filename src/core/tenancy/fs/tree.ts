import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fchownSync, fstatSync, lchownSync, lstatSync, mkdirSync, openSync, readdirSync, realpathSync, renameSync, rmdirSync, rmSync, unlinkSync, writeSync, type Dirent, type Stats } from 'node:fs';
import { createBreather, type Breather } from '../../templates/breather';
import { codeOf, ignoreMissing, isMissing, lstatOrNull, missing } from './errors';
import { readAll, split, openRegular } from './open';
import { usesProcFds } from './proc-fds';
import { CREATE_FLAGS, FOLDER_FLAGS, MAX_DEPTH, MAX_WALK_ENTRIES, RefusedEntry, WHY, type FolderMode, type OpenedFile, type TenantFolder, type TenantTreeOptions } from './rule';

/** Folders kept open between calls of one tree (least recently used closed first). */
const MAX_OPEN_FOLDERS = 32;

interface Folder extends TenantFolder {
  fd: number | null;
  pins: number;
  /** The owner new entries get (see adoptOwner); undefined until first asked. */
  owner?: { uid: number; gid: number } | null;
  /** Dropped from the cache while pinned (removed): closed when its last user releases it. */
  dropped?: boolean;
}

/**
 * One service directory, read and written by the tenant rule (rule.ts). Open it, work, `close()` it (in a
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
