import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { openRealFolder } from '../tenancy/fs';

/** Creating a temp file: exclusively, never through a link planted at its name. */
export const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

export interface Placement {
  /** Owner to give the new file; null leaves svc's own. */
  owner: { uid: number; gid: number } | null;
  /** Mode to set exactly; null leaves 0644 less the umask. */
  mode: number | null;
}

/**
 * Who owns a file the files API writes, and its mode. A replaced file keeps its owner and mode
 * (an executable start script stays executable, a server's file stays the server's). A new file
 * in a folder of another user (a service's directory under per-service users) is given to that
 * user when svc runs as root, so the server can still rewrite it. Where svc cannot give the
 * file away (not root), the set-user-ID and set-group-ID bits of a file owned by someone else
 * are not carried over to svc's own.
 */
export function placementOf(folder: Stats, replaced: Stats | null): Placement {
  const euid = process.geteuid?.();
  if (euid !== 0) return { owner: null, mode: replaced ? replaced.mode & (replaced.uid === euid ? 0o7777 : 0o1777) : null };
  if (replaced) return { owner: { uid: replaced.uid, gid: replaced.gid }, mode: replaced.mode & 0o7777 };
  return { owner: folder.uid !== euid ? { uid: folder.uid, gid: folder.gid } : null, mode: null };
}

/**
 * Writes a file so that a reader (or a crash) sees the old or the whole new content: temp file
 * beside it, fsync, rename, fsync of the directory. Like config/write.ts's writeFileAtomic,
 * but asynchronous (a 1 MiB body does not stall the event loop) and with a random temp name,
 * so concurrent writes of one file never share a temp file: the last rename wins.
 *
 * `path` is a real path (no link in it; see confine.ts). Its folder is opened once and the
 * temp file is created and renamed inside it (tenancy/fs openRealFolder), so a link a server
 * swaps in on the way meanwhile is refused (ELOOP) rather than followed. `replaced` is the file
 * being replaced (null for a new one): see placementOf for owner and mode.
 */
export async function writeFileAtomicAsync(path: string, bytes: Uint8Array, replaced: Stats | null): Promise<void> {
  const dir = dirname(path);
  const name = basename(path);
  const folder = openRealFolder(dir);
  const temp = `${folder.base}/.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const placement = placementOf(folder.stats, replaced);
    const handle = await open(temp, CREATE_FLAGS, 0o644);
    try {
      for (let offset = 0; offset < bytes.byteLength; ) offset += (await handle.write(bytes, offset)).bytesWritten;
      if (placement.owner) await handle.chown(placement.owner.uid, placement.owner.gid);
      if (placement.mode !== null) await handle.chmod(placement.mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, `${folder.base}/${name}`);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    folder.close();
  }
  await syncDirectory(dir);
}

/** Makes a rename durable; not every platform lets a directory be opened. */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* best effort */
  }
}
