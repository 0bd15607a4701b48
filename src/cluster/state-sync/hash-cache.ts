import { fstatSync, readSync, type Stats } from 'node:fs';
import type { Breather } from '../../core/templates/breather';
import type { TenantTree } from '../../core/tenancy/fs';

/** What identifies one version of a file well enough to reuse its hash. */
interface Stamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

interface Entry extends Stamp {
  sha256: string;
}


/**
 * SHA-256 of files, remembered per folder by (size, mtime, inode, and optionally ctime) so a
 * repeated manifest only reads files that changed. The inode is part of the key because a file
 * replaced by rename must not reuse a stale hash. ctime also catches writes that kept the
 * mtime (tools that restore it), which matters in a work dir a server writes to; it is left
 * out (`useCtime: false`) for the controller's canonical copies, whose files are never written
 * in place, because linking a file (hardlink seeding) changes its ctime.
 *
 * Each folder's table is replaced by what the latest walk saw (`retain`), so entries of
 * deleted files do not pile up.
 */
export class HashCache {
  private readonly folders = new Map<string, Map<string, Entry>>();
  private readonly useCtime: boolean;

  constructor(options: { useCtime?: boolean } = {}) {
    this.useCtime = options.useCtime ?? true;
  }

  private stampOf(stats: Stats): Stamp {
    return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: this.useCtime ? stats.ctimeMs : 0, ino: stats.ino };
  }

  /**
   * The hash of `rel` in the tree (the folder `folder`), from the cache when its stamp is
   * unchanged; null when the file is gone. The file is opened by the tree's rule (RefusedEntry
   * for a link, a FIFO, a hard link where the tree refuses them).
   */
  async hashIn(tree: TenantTree, folder: string, rel: string, breathe: Breather): Promise<{ sha256: string; size: number } | null> {
    const table = this.folders.get(folder) ?? new Map<string, Entry>();
    this.folders.set(folder, table);
    // A hit costs one lstat; only a miss opens the file. A hit is the very inode hashed before
    // (same inode number, size and times), so its bytes were read under the same rule.
    const known = table.get(rel);
    if (known) {
      const stats = tree.entry(rel);
      if (stats?.isFile() && sameStamp(known, this.stampOf(stats))) return { sha256: known.sha256, size: known.size };
    }
    const file = tree.openRead(rel);
    if (file === null) return null;
    try {
      const stamp = this.stampOf(file.stats);
      const { sha256, size } = await hashOpenFile(file.fd, breathe);
      // Only cache a hash that belongs to the stamp: a file written while it was read is not.
      const after = this.stampOf(fstatSync(file.fd));
      if (sameStamp(after, stamp) && size === stamp.size) table.set(rel, { ...stamp, sha256 });
      else table.delete(rel);
      return { sha256, size };
    } finally {
      file.close();
    }
  }

  /** The cached hash of `rel` when `stats` still matches it (no read). */
  peek(folder: string, rel: string, stats: Stats): string | undefined {
    const known = this.folders.get(folder)?.get(rel);
    return known && sameStamp(known, this.stampOf(stats)) ? known.sha256 : undefined;
  }

  /** Records a hash computed elsewhere (a file written while its bytes were hashed). */
  remember(folder: string, rel: string, stats: Stats, sha256: string): void {
    const table = this.folders.get(folder) ?? new Map<string, Entry>();
    this.folders.set(folder, table);
    table.set(rel, { ...this.stampOf(stats), sha256 });
  }

  /** Keeps only the entries of `rels` for the folder (after a full walk of it). */
  retain(folder: string, rels: ReadonlySet<string>): void {
    const table = this.folders.get(folder);
    if (!table) return;
    for (const rel of table.keys()) if (!rels.has(rel)) table.delete(rel);
  }

  /** Moves a folder's table to another folder name (a staged folder renamed into place). */
  rename(from: string, to: string): void {
    const table = this.folders.get(from);
    this.folders.delete(from);
    if (table) this.folders.set(to, table);
    else this.folders.delete(to);
  }

  forget(folder: string): void {
    this.folders.delete(folder);
  }

  /** A folder's table as plain JSON data (to keep across restarts: stamps hold while inodes do). */
  exportFolder(folder: string): SavedTable {
    const out: SavedTable = {};
    for (const [rel, e] of this.folders.get(folder) ?? []) out[rel] = [e.size, e.mtimeMs, e.ctimeMs, e.ino, e.sha256];
    return out;
  }

  /** Loads a saved table (malformed rows are skipped; every hit is still checked against a fresh lstat). */
  importFolder(folder: string, saved: unknown): void {
    if (typeof saved !== 'object' || saved === null) return;
    const table = new Map<string, Entry>();
    for (const [rel, row] of Object.entries(saved)) {
      if (!Array.isArray(row) || row.length !== 5) continue;
      const [size, mtimeMs, ctimeMs, ino, sha256] = row as unknown[];
      if (typeof size !== 'number' || typeof mtimeMs !== 'number' || typeof ctimeMs !== 'number' || typeof ino !== 'number' || typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) continue;
      table.set(rel, { size, mtimeMs, ctimeMs, ino, sha256 });
    }
    this.folders.set(folder, table);
  }
}

/** rel → [size, mtimeMs, ctimeMs, ino, sha256] */
export type SavedTable = Record<string, [number, number, number, number, string]>;

const sameStamp = (a: Stamp, b: Stamp) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

const CHUNK = 1024 * 1024;

/**
 * SHA-256 and byte count of an open file, read in 1 MiB chunks (never whole); the event loop
 * gets a turn whenever the breather says so.
 */
export async function hashOpenFile(fd: number, breathe: Breather): Promise<{ sha256: string; size: number }> {
  const hasher = new Bun.CryptoHasher('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let size = 0;
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    size += read;
    hasher.update(buffer.subarray(0, read));
    const pause = breathe();
    if (pause) await pause;
  }
  return { sha256: hasher.digest('hex'), size };
}
