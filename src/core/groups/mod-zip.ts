import { open, type FileHandle } from 'node:fs/promises';
import { InflateLimitError, inflateBounded } from './mod-inflate';

/**
 * A minimal zip reader for pulling a few small entries out of a possibly huge jar.
 *
 * Why not fflate's `unzip`: it takes the whole archive as one buffer, so even with a `filter`
 * that skips inflating other entries, a 50 MB jar would be read into memory in full to get at a
 * 2 KB `fabric.mod.json`. Here only the end of the file (the end-of-central-directory record),
 * the central directory and the wanted entries' bytes are read, with positioned reads; fflate
 * still does the inflating (see mod-inflate.ts).
 */

/** The file is not a zip archive we can read (not a zip, truncated, corrupt directory). */
export class ZipFormatError extends Error {}

/** One wanted entry: its bytes, or why they could not be had. */
export type ZipEntryRead = { ok: true; data: Uint8Array } | { ok: false; message: string };

interface CentralEntry {
  name: string;
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD_SIG = 0x06054b50;
const EOCD_LEN = 22;
const MAX_COMMENT = 0xffff;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_LOCATOR_LEN = 20;
const ZIP64_EOCD_SIG = 0x06064b50;
const ZIP64_EOCD_LEN = 56;
const CENTRAL_SIG = 0x02014b50;
const CENTRAL_LEN = 46;
const LOCAL_SIG = 0x04034b50;
const LOCAL_LEN = 30;
const ZIP64_EXTRA_ID = 0x0001;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;
/** A real jar's directory is ~80 bytes an entry: 64 MiB is far beyond any mod, and a hostile size is refused. */
const MAX_CENTRAL_DIRECTORY = 64 * 1024 * 1024;

const names = new TextDecoder();

/**
 * Reads the named entries of the zip at `path`, each capped at `maxBytes` inflated (and
 * compressed) bytes. Entries absent from the archive are absent from the result. Problems with
 * one entry (over the cap, corrupt data, unsupported method) are reported per entry; a file that
 * is not a readable zip at all throws ZipFormatError, and I/O errors are thrown as they are.
 */
export async function readZipEntries(path: string, wanted: ReadonlySet<string>, maxBytes: number): Promise<Map<string, ZipEntryRead>> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const entries = await readCentralDirectory(file, size, wanted);
    const result = new Map<string, ZipEntryRead>();
    for (const entry of entries) result.set(entry.name, await readEntry(file, size, entry, maxBytes));
    return result;
  } finally {
    await file.close();
  }
}

/** Finds the central directory from the end of the file and returns the wanted entries in it (first of any duplicates). */
async function readCentralDirectory(file: FileHandle, fileSize: number, wanted: ReadonlySet<string>): Promise<CentralEntry[]> {
  const { offset, size } = await locateCentralDirectory(file, fileSize);
  const cd = await readAt(file, offset, size);
  const view = viewOf(cd);
  const found = new Map<string, CentralEntry>();
  // Walks by bytes rather than trusting the entry count, which some writers wrap past 65535.
  for (let p = 0; p < cd.length; ) {
    if (p + CENTRAL_LEN > cd.length || view.getUint32(p, true) !== CENTRAL_SIG) throw new ZipFormatError('corrupt central directory');
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    const nameStart = p + CENTRAL_LEN;
    const extraStart = nameStart + nameLen;
    const next = extraStart + extraLen + commentLen;
    if (next > cd.length) throw new ZipFormatError('corrupt central directory');
    const name = names.decode(cd.subarray(nameStart, extraStart));
    if (wanted.has(name) && !found.has(name)) {
      const sizes = zip64Sizes(
        view.getUint32(p + 24, true),
        view.getUint32(p + 20, true),
        view.getUint32(p + 42, true),
        cd.subarray(extraStart, extraStart + extraLen),
      );
      found.set(name, {
        name,
        flags: view.getUint16(p + 8, true),
        method: view.getUint16(p + 10, true),
        crc32: view.getUint32(p + 16, true),
        ...sizes,
      });
    }
    p = next;
  }
  return [...found.values()];
}

/** Reads the end-of-central-directory record (and its ZIP64 form when the classic one overflows). */
async function locateCentralDirectory(file: FileHandle, fileSize: number): Promise<{ offset: number; size: number }> {
  if (fileSize < EOCD_LEN) throw new ZipFormatError('not a zip archive (too short)');
  const tailStart = Math.max(0, fileSize - EOCD_LEN - MAX_COMMENT);
  const tail = await readAt(file, tailStart, fileSize - tailStart);
  const view = viewOf(tail);
  let at = -1;
  // The record sits at the end, followed only by its comment: the last signature that fits wins.
  for (let i = tail.length - EOCD_LEN; i >= 0; i--) {
    if (view.getUint32(i, true) === EOCD_SIG && i + EOCD_LEN + view.getUint16(i + 20, true) <= tail.length) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new ZipFormatError('not a zip archive (no end of central directory)');
  const eocdPos = tailStart + at;
  let count = view.getUint16(at + 10, true);
  let size = view.getUint32(at + 12, true);
  let offset = view.getUint32(at + 16, true);
  let end = eocdPos;
  if (count === U16_MAX || size === U32_MAX || offset === U32_MAX) {
    if (eocdPos < ZIP64_LOCATOR_LEN) throw new ZipFormatError('missing ZIP64 locator');
    const locator = viewOf(await readAt(file, eocdPos - ZIP64_LOCATOR_LEN, ZIP64_LOCATOR_LEN));
    if (locator.getUint32(0, true) !== ZIP64_LOCATOR_SIG) throw new ZipFormatError('missing ZIP64 locator');
    end = u64(locator, 8);
    if (end + ZIP64_EOCD_LEN > eocdPos) throw new ZipFormatError('corrupt ZIP64 end of central directory');
    const record = viewOf(await readAt(file, end, ZIP64_EOCD_LEN));
    if (record.getUint32(0, true) !== ZIP64_EOCD_SIG) throw new ZipFormatError('corrupt ZIP64 end of central directory');
    count = u64(record, 32);
    size = u64(record, 40);
    offset = u64(record, 48);
  }
  if (offset + size > end) throw new ZipFormatError('central directory lies outside the file');
  if (size > MAX_CENTRAL_DIRECTORY) throw new ZipFormatError(`central directory of ${size} bytes is too large`);
  if (count > 0 && size === 0) throw new ZipFormatError('corrupt central directory');
  return { offset, size };
}

/** Sizes and offset, taking the 64-bit values from the ZIP64 extra field where the 32-bit ones are maxed out. */
function zip64Sizes(size: number, compressedSize: number, localOffset: number, extra: Uint8Array): Pick<CentralEntry, 'size' | 'compressedSize' | 'localOffset'> {
  if (size !== U32_MAX && compressedSize !== U32_MAX && localOffset !== U32_MAX) return { size, compressedSize, localOffset };
  const view = viewOf(extra);
  for (let p = 0; p + 4 <= extra.length; ) {
    const id = view.getUint16(p, true);
    const len = view.getUint16(p + 2, true);
    if (id === ZIP64_EXTRA_ID) {
      // The 64-bit values appear in this order, each only if its 32-bit field is maxed out.
      let q = p + 4;
      const take = (value: number): number => {
        if (value !== U32_MAX) return value;
        if (q + 8 > p + 4 + len || q + 8 > extra.length) throw new ZipFormatError('corrupt ZIP64 extra field');
        const wide = u64(view, q);
        q += 8;
        return wide;
      };
      const wideSize = take(size);
      const wideCompressed = take(compressedSize);
      return { size: wideSize, compressedSize: wideCompressed, localOffset: take(localOffset) };
    }
    p += 4 + len;
  }
  throw new ZipFormatError('missing ZIP64 extra field');
}

/** Reads and inflates one entry; never throws for a problem that is the entry's alone. */
async function readEntry(file: FileHandle, fileSize: number, entry: CentralEntry, maxBytes: number): Promise<ZipEntryRead> {
  if (entry.flags & 1) return { ok: false, message: 'is encrypted' };
  if (entry.method !== 0 && entry.method !== 8) return { ok: false, message: `uses unsupported compression method ${entry.method}` };
  if (entry.size > maxBytes) return { ok: false, message: `declares ${entry.size} bytes, over the ${maxBytes}-byte cap` };
  if (entry.compressedSize > maxBytes) return { ok: false, message: `has ${entry.compressedSize} compressed bytes, over the ${maxBytes}-byte cap` };
  if (entry.localOffset + LOCAL_LEN > fileSize) return { ok: false, message: 'is truncated' };
  // The local header's name and extra lengths may differ from the central copy; its sizes may be
  // zero (data descriptor), so the central directory's sizes are the ones used.
  const local = viewOf(await readAt(file, entry.localOffset, LOCAL_LEN));
  if (local.getUint32(0, true) !== LOCAL_SIG) return { ok: false, message: 'has a corrupt local header' };
  const dataStart = entry.localOffset + LOCAL_LEN + local.getUint16(26, true) + local.getUint16(28, true);
  if (dataStart + entry.compressedSize > fileSize) return { ok: false, message: 'is truncated' };
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

/** Reads exactly `length` bytes at `position`, or throws ZipFormatError if the file ends first. */
async function readAt(file: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await file.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) throw new ZipFormatError('unexpected end of file');
    filled += bytesRead;
  }
  return buffer;
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A little-endian 64-bit field as a number; anything past 2^53 is no real jar. */
function u64(view: DataView, at: number): number {
  const high = view.getUint32(at + 4, true);
  if (high > 0x1fffff) throw new ZipFormatError('64-bit field out of range');
  return high * 0x100000000 + view.getUint32(at, true);
}
