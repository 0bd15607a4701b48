import { open, type FileHandle } from 'node:fs/promises';
import type { RandomReader } from './byte-source';
import { Inflate } from 'fflate';
import { entryDataStart, readAt, ZipFormatError, type ZipEntry } from '../zip/zip-directory';

/** Stored data is copied this many bytes at a time (one buffer, reused). */
const COPY_BYTES = 1024 * 1024;
/** Compressed data is read this many bytes at a time... */
const READ_BYTES = 256 * 1024;
/**
 * ...and fed to the inflater in slices of this size. DEFLATE expands at most ~1032:1, so one
 * slice produces at most ~16.5 MB before the size check below runs: an entry lying about its
 * size costs that much memory, never its full size.
 */
const INFLATE_SLICE = 16 * 1024;

/**
 * Streams one entry of the zip open as `src` into a new file at `dest`: stored entries copied,
 * deflated ones inflated with fflate, in bounded pieces either way (memory stays flat for any
 * size). The output may not exceed the size the directory declares (checked while writing),
 * and must match it and the entry's CRC-32 at the end. Throws ZipFormatError for a bad entry.
 */
export async function extractEntry(src: RandomReader, srcSize: number, entry: ZipEntry, dest: string, signal?: AbortSignal): Promise<void> {
  if (entry.flags & 1) throw new ZipFormatError(`${entry.name} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) throw new ZipFormatError(`${entry.name} uses compression method ${entry.method} (only stored and deflate are read)`);
  const start = await entryDataStart(src, srcSize, entry);
  const out = await open(dest, 'w');
  try {
    const sink = new CheckedSink(out, entry);
    if (entry.size > 0) {
      if (entry.method === 0) await copyStored(src, start, entry, sink, signal);
      else await inflate(src, start, entry, sink, signal);
    }
    sink.finish();
  } finally {
    await out.close();
  }
}

/** Reads a small entry (an index file) whole; `maxBytes` bounds it. */
export async function readEntry(src: RandomReader, srcSize: number, entry: ZipEntry, maxBytes: number): Promise<Uint8Array> {
  if (entry.size > maxBytes || entry.compressedSize > maxBytes) throw new ZipFormatError(`${entry.name} is ${entry.size} bytes, over the ${maxBytes}-byte limit for it`);
  if (entry.flags & 1) throw new ZipFormatError(`${entry.name} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) throw new ZipFormatError(`${entry.name} uses compression method ${entry.method} (only stored and deflate are read)`);
  const start = await entryDataStart(src, srcSize, entry);
  const raw = await readAt(src, start, entry.compressedSize);
  let data = raw;
  if (entry.method === 8) {
    const parts: Uint8Array[] = [];
    let total = 0;
    const inflater = new Inflate((chunk) => {
      total += chunk.length;
      if (total > entry.size) throw new ZipFormatError(`${entry.name} unpacks past its declared ${entry.size} bytes`);
      parts.push(chunk);
    });
    pushAll(inflater, raw, true, entry);
    data = Buffer.concat(parts);
  }
  if (data.length !== entry.size) throw new ZipFormatError(`${entry.name} holds ${data.length} bytes where ${entry.size} were declared`);
  if ((Bun.hash.crc32(data) >>> 0) !== entry.crc32) throw new ZipFormatError(`${entry.name} fails its CRC-32 check (the archive is corrupt)`);
  return data;
}

/** Counts, checks and writes what an entry unpacks to. */
class CheckedSink {
  private written = 0;
  private crc = 0;

  constructor(
    private readonly out: FileHandle,
    private readonly entry: ZipEntry,
  ) {}

  /** Refuses output past the declared size before anything of it is written. */
  admit(bytes: number): void {
    if (this.written + bytes > this.entry.size) {
      throw new ZipFormatError(`${this.entry.name} unpacks past its declared ${this.entry.size} bytes (a zip bomb or a corrupt archive)`);
    }
    this.written += bytes;
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.crc = Bun.hash.crc32(chunk, this.crc);
    for (let at = 0; at < chunk.length; ) {
      const { bytesWritten } = await this.out.write(chunk, at, chunk.length - at, null);
      at += bytesWritten;
    }
  }

  finish(): void {
    if (this.written !== this.entry.size) throw new ZipFormatError(`${this.entry.name} holds ${this.written} bytes where ${this.entry.size} were declared`);
    if ((this.crc >>> 0) !== this.entry.crc32) throw new ZipFormatError(`${this.entry.name} fails its CRC-32 check (the archive is corrupt)`);
  }
}

async function copyStored(src: RandomReader, start: number, entry: ZipEntry, sink: CheckedSink, signal?: AbortSignal): Promise<void> {
  if (entry.compressedSize !== entry.size) throw new ZipFormatError(`${entry.name} is stored with ${entry.compressedSize} bytes but declares ${entry.size}`);
  const buffer = new Uint8Array(Math.min(COPY_BYTES, entry.size));
  for (let done = 0; done < entry.size; ) {
    signal?.throwIfAborted();
    const want = Math.min(buffer.length, entry.size - done);
    const { bytesRead } = await src.read(buffer, 0, want, start + done);
    if (bytesRead === 0) throw new ZipFormatError(`${entry.name} is truncated`);
    sink.admit(bytesRead);
    await sink.write(buffer.subarray(0, bytesRead));
    done += bytesRead;
  }
}

async function inflate(src: RandomReader, start: number, entry: ZipEntry, sink: CheckedSink, signal?: AbortSignal): Promise<void> {
  let pending: Uint8Array[] = [];
  const inflater = new Inflate((chunk) => {
    sink.admit(chunk.length);
    pending.push(chunk);
  });
  const buffer = new Uint8Array(Math.max(1, Math.min(READ_BYTES, entry.compressedSize)));
  let done = 0;
  do {
    signal?.throwIfAborted();
    const want = Math.min(buffer.length, entry.compressedSize - done);
    const { bytesRead } = want === 0 ? { bytesRead: 0 } : await src.read(buffer, 0, want, start + done);
    if (want > 0 && bytesRead === 0) throw new ZipFormatError(`${entry.name} is truncated`);
    done += bytesRead;
    // fflate may keep what it is given until its next push: hand it a copy, the buffer is reused.
    const data = buffer.slice(0, bytesRead);
    const last = done >= entry.compressedSize;
    // Written slice by slice, so what one slice unpacks to is all that is ever held.
    let at = 0;
    do {
      const end = Math.min(at + INFLATE_SLICE, data.length);
      pushSlice(inflater, data.subarray(at, end), last && end === data.length, entry);
      const out = pending;
      pending = [];
      for (const chunk of out) await sink.write(chunk);
      at = end;
    } while (at < data.length);
  } while (done < entry.compressedSize);
}

/** Feeds `data` to the inflater slice by slice; fflate's errors become ZipFormatError. */
function pushAll(inflater: Inflate, data: Uint8Array, final: boolean, entry: ZipEntry): void {
  if (data.length === 0) return pushSlice(inflater, data, final, entry);
  for (let at = 0; at < data.length; at += INFLATE_SLICE) {
    const end = Math.min(at + INFLATE_SLICE, data.length);
    pushSlice(inflater, data.subarray(at, end), final && end === data.length, entry);
  }
}

function pushSlice(inflater: Inflate, slice: Uint8Array, final: boolean, entry: ZipEntry): void {
  try {
    inflater.push(slice, final);
  } catch (error) {
    if (error instanceof ZipFormatError) throw error;
    throw new ZipFormatError(`${entry.name} is corrupt (${error instanceof Error ? error.message : String(error)})`);
  }
}
