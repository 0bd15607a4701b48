import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw, inflateRawSync } from 'node:zlib';
import { entryDataStart, readAt, ZipFormatError, type RandomReader, type ZipEntry } from './zip-directory';

/** Stored data is copied this many bytes at a time (one buffer, reused). */
const COPY_BYTES = 1024 * 1024;
/** Compressed data is read this many bytes at a time. */
const READ_BYTES = 256 * 1024;
/** zlib hands out what it inflates in chunks of this size, and inflates no further while they wait. */
const INFLATE_CHUNK = 64 * 1024;

/**
 * Streams one entry of the zip open as `src` into a new file at `dest`: stored entries copied,
 * deflated ones inflated with the runtime's zlib, in bounded pieces either way (memory stays flat
 * for any size: zlib inflates no further while its output waits to be written). The output may not exceed the size the directory declares (checked while writing),
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
    try {
      // zlib stops at maxOutputLength: an entry lying about its size never costs more than it declared.
      data = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.size) });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new ZipFormatError(`${entry.name} unpacks past its declared ${entry.size} bytes`);
      throw corrupt(entry, error);
    }
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
  async function* compressed(): AsyncGenerator<Uint8Array> {
    const buffer = new Uint8Array(Math.max(1, Math.min(READ_BYTES, entry.compressedSize)));
    for (let done = 0; done < entry.compressedSize; ) {
      signal?.throwIfAborted();
      const want = Math.min(buffer.length, entry.compressedSize - done);
      const { bytesRead } = await src.read(buffer, 0, want, start + done);
      if (bytesRead === 0) throw new ZipFormatError(`${entry.name} is truncated`);
      done += bytesRead;
      // A copy: zlib may still hold this chunk when the buffer is refilled.
      yield buffer.slice(0, bytesRead);
    }
  }
  try {
    await pipeline(Readable.from(compressed()), createInflateRaw({ chunkSize: INFLATE_CHUNK }), async (inflated: AsyncIterable<Uint8Array>) => {
      for await (const chunk of inflated) {
        sink.admit(chunk.length);
        await sink.write(chunk);
      }
    });
  } catch (error) {
    // zlib's own errors (Z_DATA_ERROR, Z_BUF_ERROR for a truncated stream) mean a bad entry;
    // anything else (an I/O error, the abort) is passed on as it is.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('Z_')) throw corrupt(entry, error);
    throw error;
  }
}

/** zlib's complaint about an entry, as the ZipFormatError callers expect. */
function corrupt(entry: ZipEntry, error: unknown): ZipFormatError {
  return new ZipFormatError(`${entry.name} is corrupt (${error instanceof Error ? error.message : String(error)})`);
}
