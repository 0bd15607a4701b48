import { strToU8, zipSync, type ZipOptions } from 'fflate';

/**
 * Builds and doctors real jar (zip) bytes for the mod-id tests. The doctoring functions parse
 * fflate's own output with their own small reader, independent of the code under test, and
 * rewrite it into shapes other zip writers produce (ZIP64, data descriptors) or hostile ones.
 */

export type JarFile = string | Uint8Array | [string | Uint8Array, ZipOptions];

/** A jar whose entries are deflated (level 6) unless given options, e.g. `{ level: 0 }` to store. */
export function jar(files: Record<string, JarFile>): Uint8Array {
  const zippable: Record<string, Uint8Array | [Uint8Array, ZipOptions]> = {};
  for (const [name, file] of Object.entries(files)) {
    zippable[name] = Array.isArray(file) ? [bytes(file[0]), file[1]] : bytes(file);
  }
  return zipSync(zippable, { level: 6, mtime: new Date('2024-01-01T00:00:00Z') });
}

export function fabricJson(id: string): string {
  return JSON.stringify({ schemaVersion: 1, id, version: '1.0.0', environment: '*' });
}

export function modsToml(...ids: string[]): string {
  const tables = ids.map((id) => `[[mods]]\nmodId = "${id}"\nversion = "\${file.jarVersion}"\ndisplayName = "${id}"\n`);
  return `modLoader = "javafml"\nloaderVersion = "[47,)"\nlicense = "MIT"\n\n${tables.join('\n')}`;
}

function bytes(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? strToU8(value) : value;
}

interface ParsedEntry {
  name: string;
  /** Offset of this entry's record in the central directory. */
  central: number;
  /** Offset of its local header. */
  local: number;
  /** Offset of its (compressed) data. */
  data: number;
  compressedSize: number;
}

/** Walks a classic (non-ZIP64) archive without comment, as zipSync writes it. */
function parse(zip: Uint8Array): { entries: ParsedEntry[]; cdOffset: number; eocd: number } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const eocd = zip.length - 22;
  if (view.getUint32(eocd, true) !== 0x06054b50) throw new Error('fixture: no EOCD');
  const count = view.getUint16(eocd + 10, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  const entries: ParsedEntry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    const nameLen = view.getUint16(p + 28, true);
    const local = view.getUint32(p + 42, true);
    const name = new TextDecoder().decode(zip.subarray(p + 46, p + 46 + nameLen));
    const data = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    entries.push({ name, central: p, local, data, compressedSize: view.getUint32(p + 20, true) });
    p += 46 + nameLen + view.getUint16(p + 30, true) + view.getUint16(p + 32, true);
  }
  return { entries, cdOffset, eocd };
}

function entry(zip: Uint8Array, name: string): ParsedEntry {
  const found = parse(zip).entries.find((e) => e.name === name);
  if (!found) throw new Error(`fixture: no entry ${name}`);
  return found;
}

/** Makes the central directory and local header claim `size` inflated bytes for `name` (a lying header). */
export function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  const e = entry(out, name);
  view.setUint32(e.central + 24, size, true);
  view.setUint32(e.local + 22, size, true);
  return out;
}

/** Overwrites an entry's compressed bytes with 0xFF: invalid DEFLATE (block type 3) if anyone inflates it. */
export function garbleData(zip: Uint8Array, name: string): Uint8Array {
  const out = zip.slice();
  const e = entry(out, name);
  out.fill(0xff, e.data, e.data + e.compressedSize);
  return out;
}

/** Flips a byte in an entry's stored data, so only its CRC-32 tells. */
export function flipDataByte(zip: Uint8Array, name: string): Uint8Array {
  const out = zip.slice();
  const e = entry(out, name);
  out[e.data] = (out[e.data] ?? 0) ^ 0x01;
  return out;
}

/**
 * As writers that stream (the `jar` tool, Gradle) do: local headers carry zero sizes and CRC,
 * flagged as followed by a data descriptor, and only the central directory has the real values.
 */
export function zeroLocalSizes(zip: Uint8Array): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (const e of parse(out).entries) {
    view.setUint16(e.local + 6, view.getUint16(e.local + 6, true) | 0x08, true);
    out.fill(0, e.local + 14, e.local + 26);
  }
  return out;
}

/**
 * Rewrites the archive the way ZIP64 writers do for huge jars: every central record's sizes and
 * offset maxed out and moved to a ZIP64 extra field, and the end record maxed out and backed by
 * a ZIP64 end record and locator.
 */
export function toZip64(zip: Uint8Array): Uint8Array {
  const { entries, cdOffset } = parse(zip);
  const src = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const records: Uint8Array[] = [];
  for (const e of entries) {
    const nameLen = src.getUint16(e.central + 28, true);
    const record = new Uint8Array(46 + nameLen + 28);
    record.set(zip.subarray(e.central, e.central + 46 + nameLen));
    const view = new DataView(record.buffer);
    const size = src.getUint32(e.central + 24, true);
    view.setUint32(20, 0xffffffff, true);
    view.setUint32(24, 0xffffffff, true);
    view.setUint32(42, 0xffffffff, true);
    view.setUint16(30, 28, true);
    view.setUint16(32, 0, true);
    const extra = 46 + nameLen;
    view.setUint16(extra, 0x0001, true);
    view.setUint16(extra + 2, 24, true);
    view.setBigUint64(extra + 4, BigInt(size), true);
    view.setBigUint64(extra + 12, BigInt(e.compressedSize), true);
    view.setBigUint64(extra + 20, BigInt(e.local), true);
    records.push(record);
  }
  const cdSize = records.reduce((n, r) => n + r.length, 0);
  const zip64Eocd = cdOffset + cdSize;
  const out = new Uint8Array(cdOffset + cdSize + 56 + 20 + 22);
  out.set(zip.subarray(0, cdOffset));
  let p = cdOffset;
  for (const record of records) {
    out.set(record, p);
    p += record.length;
  }
  const view = new DataView(out.buffer);
  view.setUint32(p, 0x06064b50, true);
  view.setBigUint64(p + 4, 44n, true);
  view.setUint16(p + 12, 45, true);
  view.setUint16(p + 14, 45, true);
  view.setBigUint64(p + 24, BigInt(entries.length), true);
  view.setBigUint64(p + 32, BigInt(entries.length), true);
  view.setBigUint64(p + 40, BigInt(cdSize), true);
  view.setBigUint64(p + 48, BigInt(cdOffset), true);
  p += 56;
  view.setUint32(p, 0x07064b50, true);
  view.setBigUint64(p + 8, BigInt(zip64Eocd), true);
  view.setUint32(p + 16, 1, true);
  p += 20;
  view.setUint32(p, 0x06054b50, true);
  view.setUint16(p + 8, 0xffff, true);
  view.setUint16(p + 10, 0xffff, true);
  view.setUint32(p + 12, 0xffffffff, true);
  view.setUint32(p + 16, 0xffffffff, true);
  return out;
}

/** Appends an archive comment to the end record, as some build tools write. */
export function withArchiveComment(zip: Uint8Array, comment: string): Uint8Array {
  const text = strToU8(comment);
  const out = new Uint8Array(zip.length + text.length);
  out.set(zip);
  out.set(text, zip.length);
  new DataView(out.buffer).setUint16(zip.length - 2, text.length, true);
  return out;
}

/** Deterministic pseudo-random bytes (a 32-bit LCG), so a "corrupt jar" is the same on every run. */
export function noise(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}
