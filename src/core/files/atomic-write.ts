import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that a reader (or a crash) sees the old or the whole new content: temp file
 * beside it, fsync, rename, fsync of the directory. Like config/write.ts's writeFileAtomic,
 * but asynchronous (a 1 MiB body does not stall the event loop) and with a random temp name,
 * so concurrent writes of one file never share a temp file: the last rename wins. `keepMode`
 * is the mode of the file being replaced; a new file gets 0644 less the umask.
 */
export async function writeFileAtomicAsync(path: string, bytes: Uint8Array, keepMode: number | null): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path).slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      for (let offset = 0; offset < bytes.byteLength; ) offset += (await handle.write(bytes, offset)).bytesWritten;
      // The file being replaced keeps its mode (an executable start script stays executable).
      if (keepMode !== null) await handle.chmod(keepMode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
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
