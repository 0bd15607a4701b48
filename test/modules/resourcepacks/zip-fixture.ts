/**
 * A small, valid zip built in memory for the resource pack tests: stored (uncompressed)
 * entries, each with its local file header, then the central directory and the
 * end-of-central-directory record (PKWARE APPNOTE 4.3). `unzip -t` accepts it, and so does the
 * controller's upload check (PK\x03\x04 at the start, PK\x05\x06 near the end).
 */

export interface ZipEntry {
  name: string;
  content: string | Uint8Array;
}

/** A resource pack's metadata file, as Minecraft reads it. */
export function packMcmeta(description = 'svc test pack', packFormat = 34): string {
  return JSON.stringify({ pack: { pack_format: packFormat, description } });
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Version 2.0: what a stored entry needs. */
const VERSION = 20;
/** Bit 11: names are UTF-8. */
const UTF8_NAMES = 0x0800;
/** 2024-01-01 00:00:00 in MS-DOS form, so the bytes are the same on every run. */
const DOS_TIME = 0;
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1;

const bytesOf = (content: string | Uint8Array) => (typeof content === 'string' ? new TextEncoder().encode(content) : content);

/** Little-endian record writer. */
class LittleEndian {
  private readonly parts: number[][] = [];
  u16(value: number): this {
    this.parts.push([value & 0xff, (value >>> 8) & 0xff]);
    return this;
  }
  u32(value: number): this {
    this.parts.push([value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff]);
    return this;
  }
  bytes(): Uint8Array<ArrayBuffer> {
    return Uint8Array.from(this.parts.flat());
  }
}

function concat(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * The zip of these entries (stored, no compression), with an optional archive comment. By
 * default one entry, `pack.mcmeta` holding a pack description.
 */
export function buildZip(entries: readonly ZipEntry[] = [{ name: 'pack.mcmeta', content: packMcmeta() }], comment = ''): Uint8Array<ArrayBuffer> {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name);
    const data = bytesOf(entry.content);
    const crc = Bun.hash.crc32(data);
    const local = new LittleEndian()
      .u32(LOCAL_HEADER)
      .u16(VERSION)
      .u16(UTF8_NAMES)
      .u16(0) // method: stored
      .u16(DOS_TIME)
      .u16(DOS_DATE)
      .u32(crc)
      .u32(data.length) // compressed size
      .u32(data.length) // uncompressed size
      .u16(name.length)
      .u16(0) // extra field length
      .bytes();
    const central = new LittleEndian()
      .u32(CENTRAL_HEADER)
      .u16(VERSION) // made by
      .u16(VERSION) // needed
      .u16(UTF8_NAMES)
      .u16(0)
      .u16(DOS_TIME)
      .u16(DOS_DATE)
      .u32(crc)
      .u32(data.length)
      .u32(data.length)
      .u16(name.length)
      .u16(0) // extra
      .u16(0) // comment
      .u16(0) // disk number start
      .u16(0) // internal attributes
      .u32(0) // external attributes
      .u32(offset) // where the local header is
      .bytes();
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = concat(centrals);
  const commentBytes = new TextEncoder().encode(comment);
  const end = new LittleEndian()
    .u32(END_OF_CENTRAL_DIRECTORY)
    .u16(0) // this disk
    .u16(0) // disk with the central directory
    .u16(entries.length)
    .u16(entries.length)
    .u32(directory.length)
    .u32(offset)
    .u16(commentBytes.length)
    .bytes();
  return concat([...locals, directory, end, commentBytes]);
}

/** SHA-1 of the bytes, 40 lower-case hex characters (what the controller stores and serves as ETag). */
export const sha1Hex = (bytes: Uint8Array): string => new Bun.CryptoHasher('sha1').update(bytes).digest('hex');
