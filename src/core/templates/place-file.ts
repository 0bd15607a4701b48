import { chmodSync, constants, copyFileSync, linkSync, lstatSync, rmSync, unlinkSync, type Stats } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { isHardlinkCandidate } from './link-policy';

/** How a file got into the work dir. */
export type CopyMode = 'reflink' | 'hardlink' | 'copy';

/** `kept`: the destination existed and `overwrite` was off. `vanished`: the source is gone or no longer a file. */
export type PlaceOutcome = { mode: CopyMode; size: number } | { mode: 'kept' | 'vanished' };

export interface PlacerOptions {
  /** Replace existing destination entries (dynamic services) or leave them (static services). */
  overwrite: boolean;
  /** Whether hardlinks may be used at all (see link-policy.ts). */
  hardlinks: boolean;
  /** Plain copies from this size up run on the thread pool so the event loop keeps going. */
  asyncCopyBytes?: number;
}

/** Error codes that say "this file system pair cannot do that", not "this file is bad". */
const REFLINK_UNSUPPORTED = new Set(['ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EINVAL', 'ENOSYS', 'ENOTTY', 'EPERM']);
// EPERM is not here: `fs.protected_hardlinks` refuses links to files of other users, per file.
const LINK_UNSUPPORTED = new Set(['EXDEV', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

const ASYNC_COPY_BYTES = 8 * 1024 * 1024;

interface Capabilities {
  reflink: boolean;
  hardlink: boolean;
}

type Attempt = 'done' | 'exists' | 'failed';

/**
 * Places template files into one work dir, best mode first: a reflink clone (copy-on-write,
 * fully independent), else a hardlink for files servers never write in place (made read-only
 * before the placer returns), else a plain copy.
 *
 * No call ever writes through an existing destination: every method creates the destination
 * exclusively (EEXIST if anything is there, even a dangling link), and an existing entry is
 * unlinked before it is replaced. So a destination that is a hardlink into a template, or a
 * link to somewhere else, is replaced, never written into.
 *
 * A mode that fails for a reason of the file system (no reflink on ext4, a template on another
 * device) is not retried for the rest of this placer's files from the same source device: the
 * answer would not change, and a failed clone attempt costs an open and an unlink.
 */
export class FilePlacer {
  private readonly capabilities = new Map<number, Capabilities>();
  private readonly asyncCopyBytes: number;

  constructor(private readonly options: PlacerOptions) {
    this.asyncCopyBytes = options.asyncCopyBytes ?? ASYNC_COPY_BYTES;
  }

  /** `rel` decides hardlink eligibility; `src` and `dst` are absolute. */
  async place(src: string, dst: string, rel: string): Promise<PlaceOutcome> {
    let stats: Stats;
    try {
      // The one stat per file: size for the counts, mode for the read-only check, and a guard
      // against a template file replaced by a link since the listing.
      stats = lstatSync(src);
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return { mode: 'vanished' };
      throw error;
    }
    if (!stats.isFile()) return { mode: 'vanished' };
    const caps = this.capabilitiesFor(stats.dev);
    const modes: CopyMode[] = [];
    if (caps.reflink) modes.push('reflink');
    if (caps.hardlink && isHardlinkCandidate(rel)) modes.push('hardlink');
    modes.push('copy');

    for (const mode of modes) {
      let attempt = await this.attempt(mode, src, dst, stats, caps);
      if (attempt === 'exists') {
        // A failed attempt leaves nothing behind (Bun removes the file a refused clone created;
        // a link whose chmod failed is unlinked), so an existing entry is the work dir's own:
        // never removed without `overwrite`.
        if (!this.options.overwrite) return { mode: 'kept' };
        removeEntry(dst);
        attempt = await this.attempt(mode, src, dst, stats, caps);
        if (attempt === 'exists') throw new Error(`${dst} keeps reappearing while it is provisioned`);
      }
      if (attempt === 'done') return { mode, size: stats.size };
    }
    // The plain copy throws rather than fail, so this is unreachable.
    throw new Error(`no copy mode worked for ${src}`);
  }

  private capabilitiesFor(device: number): Capabilities {
    let caps = this.capabilities.get(device);
    if (!caps) {
      caps = { reflink: true, hardlink: this.options.hardlinks };
      this.capabilities.set(device, caps);
    }
    return caps;
  }

  private async attempt(mode: CopyMode, src: string, dst: string, stats: Stats, caps: Capabilities): Promise<Attempt> {
    switch (mode) {
      case 'reflink':
        return this.reflink(src, dst, caps);
      case 'hardlink':
        return this.hardlink(src, dst, stats, caps);
      case 'copy':
        return this.copy(src, dst, stats);
    }
  }

  private reflink(src: string, dst: string, caps: Capabilities): Attempt {
    try {
      // COPYFILE_EXCL is vital here, not only for `overwrite`: without it Bun opens and
      // truncates an existing destination and deletes it when the clone is refused.
      copyFileSync(src, dst, constants.COPYFILE_FICLONE_FORCE | constants.COPYFILE_EXCL);
      return 'done';
    } catch (error) {
      const code = codeOf(error);
      if (code === 'EEXIST') return 'exists';
      if (code !== undefined && REFLINK_UNSUPPORTED.has(code)) caps.reflink = false;
      return 'failed';
    }
  }

  private hardlink(src: string, dst: string, stats: Stats, caps: Capabilities): Attempt {
    try {
      linkSync(src, dst);
    } catch (error) {
      const code = codeOf(error);
      if (code === 'EEXIST') return 'exists';
      if (code !== undefined && LINK_UNSUPPORTED.has(code)) caps.hardlink = false;
      // EMLINK (too many links to this inode), EPERM and the like: this file only.
      return 'failed';
    }
    if ((stats.mode & 0o222) === 0) return 'done';
    try {
      // Same inode: this makes the template file read-only too, which is the point. Changed
      // through the template's name, not the work dir's: chmod follows links, and a server could
      // swap its new name for a link to anything in between.
      chmodSync(src, stats.mode & 0o555);
      return 'done';
    } catch {
      // Not ours to chmod: a writable shared inode is never acceptable, so copy instead.
      unlinkSync(dst);
      return 'failed';
    }
  }

  private async copy(src: string, dst: string, stats: Stats): Promise<Attempt> {
    try {
      if (stats.size >= this.asyncCopyBytes) await copyFile(src, dst, constants.COPYFILE_EXCL);
      else copyFileSync(src, dst, constants.COPYFILE_EXCL);
      return 'done';
    } catch (error) {
      if (codeOf(error) === 'EEXIST') return 'exists';
      throw error;
    }
  }
}

/** Removes whatever is at `path` without following it: a file, a link, or a whole folder. */
export function removeEntry(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') return;
    if (code !== 'EISDIR' && code !== 'EPERM') throw error;
    rmSync(path, { recursive: true, force: true });
  }
}

export function codeOf(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}
