/** Positioned reads of a file (a node FileHandle is one; so is a pack spread over chunk files). */
export interface RandomReader {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/**
 * The central directory of a zip file on disk: every entry with its sizes, CRC and where its
 * data starts, read with positioned reads (the end record, then the directory itself) and
 * never the archive as a whole.
 *
 * Why the central directory rather than walking local headers front to back (fflate's
 * streaming `Unzip`): entries written with a data descriptor (flag bit 3: Java's
 * ZipOutputStream, most zip tools when streaming) carry no sizes in their local header, and a
 * front-to-back reader can only find their end by scanning for the descriptor's signature,
 * which random compressed data contains by chance (for a 1 GB pack, odds near one in three).
 * The directory has exact sizes for every entry, so the whole archive can be judged (entry
 * count, unpacked size, names) before one byte is written.
 */

/** The file is not a zip archive svc can read (not a zip, truncated, corrupt directory). */
export class ZipFormatError extends Error {}

export interface ZipEntry {
  /** As stored: `/`-separated, directories end with `/`. */
  name: string;
  flags: number;
  /** 0 stored, 8 deflated; anything else is refused when extracted. */
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  /** Offset of the entry's local header. */
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
export const LOCAL_LEN = 30;
const ZIP64_EXTRA_ID = 0x0001;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;
/** ~80 bytes an entry: 64 MiB holds ~800 000 entries, far past any pack; a hostile size is refused. */
const MAX_CENTRAL_DIRECTORY = 64 * 1024 * 1024;

const utf8 = new TextDecoder();
const cp437 = new TextDecoder('latin1');

/**
 * Every entry of the zip open as `file` (`fileSize` bytes), in directory order. More than
 * `maxEntries` entries is refused before they are decoded. Throws ZipFormatError for anything
 * that is not a readable zip.
 */
export async function listZipEntries(file: RandomReader, fileSize: number, maxEntries: number): Promise<ZipEntry[]> {
  const { offset, size, count } = await locateCentralDirectory(file, fileSize);
  if (count > maxEntries) throw new ZipFormatError(`the archive has ${count} entries, over the limit of ${maxEntries}`);
  const cd = await readAt(file, offset, size);
  const view = viewOf(cd);
  const entries: ZipEntry[] = [];
  // Walks by bytes rather than trusting the count, which some writers wrap past 65535.
  for (let p = 0; p < cd.length; ) {
    if (p + CENTRAL_LEN > cd.length || view.getUint32(p, true) !== CENTRAL_SIG) throw new ZipFormatError('corrupt central directory');
    const flags = view.getUint16(p + 8, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    const nameStart = p + CENTRAL_LEN;
    const extraStart = nameStart + nameLen;
    const next = extraStart + extraLen + commentLen;
    if (next > cd.length) throw new ZipFormatError('corrupt central directory');
    if (entries.length >= maxEntries) throw new ZipFormatError(`the archive has more than ${maxEntries} entries`);
    // Bit 11: UTF-8 names; without it the legacy code page (close enough to Latin-1 for checks).
    const name = (flags & 0x800 ? utf8 : cp437).decode(cd.subarray(nameStart, extraStart));
    const sizes = zip64Sizes(view.getUint32(p + 24, true), view.getUint32(p + 20, true), view.getUint32(p + 42, true), cd.subarray(extraStart, extraStart + extraLen));
    entries.push({ name, flags, method: view.getUint16(p + 10, true), crc32: view.getUint32(p + 16, true), ...sizes });
    p = next;
  }
  return entries;
}

/** Where an entry's (compressed) data starts: after its local header, whose name and extra lengths may differ from the directory's. */
export async function entryDataStart(file: RandomReader, fileSize: number, entry: ZipEntry): Promise<number> {
  if (entry.localOffset + LOCAL_LEN > fileSize) throw new ZipFormatError(`${entry.name} is truncated`);
  const local = viewOf(await readAt(file, entry.localOffset, LOCAL_LEN));
  if (local.getUint32(0, true) !== LOCAL_SIG) throw new ZipFormatError(`${entry.name} has a corrupt local header`);
  const start = entry.localOffset + LOCAL_LEN + local.getUint16(26, true) + local.getUint16(28, true);
  if (start + entry.compressedSize > fileSize) throw new ZipFormatError(`${entry.name} is truncated`);
  return start;
}

/** Reads the end-of-central-directory record (and its ZIP64 form when the classic one overflows). */
async function locateCentralDirectory(file: RandomReader, fileSize: number): Promise<{ offset: number; size: number; count: number }> {
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
  return { offset, size, count };
}

/** Sizes and offset, taking the 64-bit values from the ZIP64 extra field where the 32-bit ones are maxed out. */
function zip64Sizes(size: number, compressedSize: number, localOffset: number, extra: Uint8Array): Pick<ZipEntry, 'size' | 'compressedSize' | 'localOffset'> {
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

/** Reads exactly `length` bytes at `position`, or throws ZipFormatError if the file ends first. */
export async function readAt(file: RandomReader, position: number, length: number): Promise<Uint8Array> {
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

/** A little-endian 64-bit field as a number; anything past 2^53 is no real archive. */
function u64(view: DataView, at: number): number {
  const high = view.getUint32(at + 4, true);
  if (high > 0x1fffff) throw new ZipFormatError('64-bit field out of range');
  return high * 0x100000000 + view.getUint32(at, true);
}
