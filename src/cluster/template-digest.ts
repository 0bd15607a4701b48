import { readSync } from 'node:fs';
import { join } from 'node:path';
import { createBreather, type Breather } from '../core/templates/breather';
import { listRegularFiles } from '../core/templates/hash';
import { openRegular, RefusedEntry } from '../core/tenancy/fs';

/**
 * The content digest of one template as an agent unpacks it: the hash START_SERVICE names for
 * each template, that the agent checks what it unpacked against before the template is cached
 * or used (and that `x-template-hash` carries on a download).
 *
 * Why not the reference hash of `/api/templates/{name}/hash` (core/templates/hash.ts): it
 * covers `global` for a proxy although the ZIP does not carry it, it counts a file the overlay
 * replaces twice, and nothing separates a path from its bytes there. This one is computed over
 * exactly the file set the ZIP holds, and frames each file so no two file sets share it:
 *
 *   "svc-template-digest-1\n", then per regular file in path order (UTF-16 code units):
 *   <path UTF-8> NUL <size in decimal> NUL <size bytes of content>
 *
 * A path never holds NUL, and the size says where the content ends.
 */
const HEADER = 'svc-template-digest-1\n';

/** The digest of `files` (archive path → file on disk); a file that changes while it is read throws. */
export async function digestFiles(files: ReadonlyMap<string, string> | Iterable<[string, string]>): Promise<string> {
  const entries = [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hasher = new Bun.CryptoHasher('sha256');
  hasher.update(HEADER);
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const breathe = createBreather();
  for (const [rel, path] of entries) {
    let file;
    try {
      file = openRegular(path);
    } catch (error) {
      // Turned into a link or a FIFO since the listing: it is not part of the template (as the ZIP leaves it out).
      if (error instanceof RefusedEntry) continue;
      throw error;
    }
    if (file === null) continue;
    try {
      const size = file.stats.size;
      hasher.update(`${rel}\0${size}\0`);
      const read = await hashExactly(file.fd, size, hasher, buffer, breathe);
      if (read !== size) throw new Error(`${rel} changed while it was hashed (${read} bytes read, ${size} expected)`);
    } finally {
      file.close();
    }
  }
  return hasher.digest('hex');
}

/** The digest of the regular files under `dir` (an unpacked template). */
export function digestDirectory(dir: string): Promise<string> {
  return digestFiles(listRegularFiles(dir).map((rel) => [rel, join(dir, rel)] as [string, string]));
}

/** Reads to the end; returns how many bytes there were (only the first `size` are hashed). */
async function hashExactly(fd: number, size: number, hasher: Bun.CryptoHasher, buffer: Buffer, breathe: Breather): Promise<number> {
  let total = 0;
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) return total;
    const take = Math.max(0, Math.min(read, size - total));
    if (take > 0) hasher.update(buffer.subarray(0, take));
    total += read;
    const pause = breathe();
    if (pause) await pause;
  }
}
