import { open } from 'node:fs/promises';
import { entryDataStart, listZipEntries, readAt, ZipFormatError, type ZipEntry } from '../zip/zip-directory';
import { InflateLimitError, inflateBounded } from './mod-inflate';

/**
 * Pulls a few small entries out of a possibly huge jar.
 *
 * Why not fflate's `unzip`: it takes the whole archive as one buffer, so even with a `filter`
 * that skips inflating other entries, a 50 MB jar would be read into memory in full to get at a
 * 2 KB `fabric.mod.json`. Here only the central directory (the shared reader in
 * core/zip/zip-directory.ts) and the wanted entries' bytes are read, with positioned reads;
 * fflate still does the inflating (see mod-inflate.ts).
 */

export { ZipFormatError };

/** One wanted entry: its bytes, or why they could not be had. */
export type ZipEntryRead = { ok: true; data: Uint8Array } | { ok: false; message: string };

/** Jars with more entries than this are not mods worth scanning (the biggest modpacks' jars hold tens of thousands). */
const MAX_ENTRIES = 1_000_000;

/**
 * Reads the named entries of the zip at `path`, each capped at `maxBytes` inflated (and
 * compressed) bytes. Entries absent from the archive are absent from the result (the first of
 * duplicates counts). Problems with one entry (over the cap, corrupt data, unsupported method)
 * are reported per entry; a file that is not a readable zip at all throws ZipFormatError, and
 * I/O errors are thrown as they are.
 */
export async function readZipEntries(path: string, wanted: ReadonlySet<string>, maxBytes: number): Promise<Map<string, ZipEntryRead>> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const entries = new Map<string, ZipEntry>();
    for (const entry of await listZipEntries(file, size, MAX_ENTRIES)) if (wanted.has(entry.name) && !entries.has(entry.name)) entries.set(entry.name, entry);
    const result = new Map<string, ZipEntryRead>();
    for (const entry of entries.values()) result.set(entry.name, await readEntry(file, size, entry, maxBytes));
    return result;
  } finally {
    await file.close();
  }
}

/** Reads and inflates one entry; never throws for a problem that is the entry's alone. */
async function readEntry(file: Parameters<typeof readAt>[0], fileSize: number, entry: ZipEntry, maxBytes: number): Promise<ZipEntryRead> {
  if (entry.flags & 1) return { ok: false, message: 'is encrypted' };
  if (entry.method !== 0 && entry.method !== 8) return { ok: false, message: `uses unsupported compression method ${entry.method}` };
  if (entry.size > maxBytes) return { ok: false, message: `declares ${entry.size} bytes, over the ${maxBytes}-byte cap` };
  if (entry.compressedSize > maxBytes) return { ok: false, message: `has ${entry.compressedSize} compressed bytes, over the ${maxBytes}-byte cap` };
  let dataStart: number;
  try {
    // The local header's sizes may be zero (data descriptor): the central directory's are used.
    dataStart = await entryDataStart(file, fileSize, entry);
  } catch (error) {
    if (error instanceof ZipFormatError) return { ok: false, message: error.message.replace(`${entry.name} `, '') };
    throw error;
  }
  const raw = await readAt(file, dataStart, entry.compressedSize);
  let data: Uint8Array;
  try {
    data = entry.method === 0 ? raw : inflateBounded(raw, maxBytes);
  } catch (err) {
    if (err instanceof InflateLimitError) return { ok: false, message: err.message };
    return { ok: false, message: `is corrupt (${err instanceof Error ? err.message : String(err)})` };
  }
  if (data.length !== entry.size) return { ok: false, message: `holds ${data.length} bytes where ${entry.size} were declared` };
  if ((Bun.hash.crc32(data) >>> 0) !== entry.crc32) return { ok: false, message: 'fails its CRC-32 check' };
  return { ok: true, data };
}
