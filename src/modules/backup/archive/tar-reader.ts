/**
 * The one reader of archive files: the file → zstd → tar-stream, one entry at a time. Verify,
 * the manifest route and restore all read through here (backup-reader.ts adds the trailing
 * manifest on top).
 *
 * Bun's zstd decompressor ends silently on a truncated frame (oven-sh/bun#33413) and tar-stream
 * accepts a tar cut at an entry boundary; the end-of-archive blocks are checked here, and the
 * manifest (checked by the callers) proves the rest.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar, { type Extract, type Header } from 'tar-stream';
import { errorOf, settleOn } from './streams';

/** An entry's content as tar-stream's extractor yields it (its types do not export the class). */
export type EntrySource = Extract extends AsyncIterable<infer S> ? S : never;

/** Called per entry in archive order; what it leaves unread of `content` is skipped. */
export type EntryVisitor = (header: Header, content: AsyncIterable<Buffer>) => Promise<void>;

const MIB = 1024 * 1024;
/** Read size for the archive file, and the decompressor's output chunk. */
const READ_BYTES = MIB;
const END_OF_ARCHIVE_BYTES = 1024;

/**
 * The archive's bytes could not be read or decoded (missing file, damaged zstd or tar, truncated,
 * aborted). Anything else a read throws is what the visitor threw.
 */
export class ArchiveUnreadableError extends Error {}

export interface ReadOptions {
  /**
   * Hash every byte of the file, and on a decoding failure go on reading to its end and report
   * the failure in the outcome instead of throwing (verify wants both answers).
   */
  hashWhole?: boolean;
  /** Aborting stops the read; it then fails as unreadable with the signal's reason. */
  signal?: AbortSignal;
}

export interface ReadOutcome {
  /** SHA-256 hex of every byte of the file; '' without hashWhole. */
  checksum: string;
  /** With hashWhole: why the archive could not be decoded, if it could not. */
  unreadable?: string;
}

/**
 * Streams `file` through zstd and tar-stream, calling `visit` per entry in order. Throws
 * ArchiveUnreadableError for the archive's faults (unless hashWhole) and a visitor's own error
 * as it is.
 */
export async function readTarZstd(file: string, visit: EntryVisitor, options: ReadOptions = {}): Promise<ReadOutcome> {
  const { hashWhole = false, signal } = options;
  let handle: FileHandle;
  try {
    signal?.throwIfAborted();
    handle = await open(file, 'r');
  } catch (error) {
    throw new ArchiveUnreadableError(errorOf(error).message);
  }
  const hasher = hashWhole ? new Bun.CryptoHasher('sha256') : undefined;
  const decompress = zlib.createZstdDecompress({ chunkSize: READ_BYTES });
  const extract = tar.extract();
  let failure: Error | undefined;
  /** What the visitor threw while the archive itself was still sound. */
  let visitorError: Error | undefined;
  const fail = (error: unknown): void => {
    failure ??= errorOf(error);
    decompress.destroy();
    extract.destroy(failure);
  };
  const onAbort = (): void => fail(signal?.reason ?? new Error('aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  // Tar bytes seen, and where the last entry's data ended (to check the end-of-archive blocks).
  let tarBytes = 0;
  let lastEntryEnd = 0;
  decompress.on('error', fail);
  extract.on('error', fail);
  decompress.on('data', (chunk: Buffer) => {
    tarBytes += chunk.byteLength;
    if (!extract.write(chunk)) {
      decompress.pause();
      extract.once('drain', () => decompress.resume());
    }
  });
  decompress.on('end', () => extract.end(null));

  const feeder = (async () => {
    try {
      for (;;) {
        const chunk = Buffer.allocUnsafe(READ_BYTES);
        const { bytesRead } = await handle.read(chunk, 0, READ_BYTES, null);
        if (bytesRead === 0) break;
        const bytes = chunk.subarray(0, bytesRead);
        hasher?.update(bytes);
        if (failure) {
          if (!hashWhole) break;
          continue;
        }
        if (!decompress.write(bytes)) await settleOn(decompress, 'drain').catch(() => {}); // an error is reported through fail()
      }
      if (!failure) decompress.end();
    } catch (error) {
      fail(error);
    }
  })();

  const consumer = (async () => {
    try {
      for await (const entry of extract) {
        const header = entry.header;
        // tar-stream records where the entry's data starts in the tar stream (not in its types).
        const dataStart = 'byteOffset' in header && typeof header.byteOffset === 'number' ? header.byteOffset : entry.offset + 512;
        lastEntryEnd = dataStart + Math.ceil((header.size ?? 0) / 512) * 512;
        const finished = new Promise<void>((resolve) => {
          entry.once('end', () => resolve());
          entry.once('close', () => resolve());
        });
        try {
          await visit(header, bytesOf(entry));
        } catch (error) {
          // A visitor failing because the archive failed under it (its content stream errored) is the archive's fault.
          if (!failure) visitorError = errorOf(error);
          throw error;
        }
        // Whatever `visit` left unread is skipped; the next entry starts after it.
        entry.resume();
        await finished;
      }
    } catch (error) {
      fail(error);
    }
  })();

  try {
    await Promise.all([feeder, consumer]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await handle.close();
  }
  if (visitorError) throw visitorError;
  if (!failure && tarBytes < lastEntryEnd + END_OF_ARCHIVE_BYTES) failure = new Error('archive is truncated (no end-of-archive blocks)');
  const checksum = hasher?.digest('hex') ?? '';
  if (failure && !hashWhole) throw new ArchiveUnreadableError(failure.message);
  return { checksum, unreadable: failure?.message };
}

/** tar-stream's entry content is typed as unknown chunks; they are Buffers. */
async function* bytesOf(content: EntrySource): AsyncGenerator<Buffer> {
  for await (const chunk of content) {
    if (!Buffer.isBuffer(chunk)) throw new Error('tar-stream produced a non-binary chunk');
    yield chunk;
  }
}

/**
 * Iterates the archive's entries in order (header + a stream of the content), the trailing
 * manifest included. `visit` either reads the content to its end or leaves it alone (it is
 * skipped then); destroying it fails the whole read. Throws when the archive is missing or
 * unreadable, including a truncated archive (checked after the last entry, so a consumer that
 * wrote files has to treat a throw as "incomplete").
 */
export async function forEachEntry(file: string, visit: (header: Header, content: NodeJS.ReadableStream | ReadableStream<Uint8Array>) => Promise<void>): Promise<void> {
  await readTarZstd(file, async (header, content) => {
    let touched = false;
    const wrapped = Readable.from(
      (async function* () {
        touched = true;
        yield* content;
      })(),
      { objectMode: false },
    );
    await visit(header, wrapped);
    // Left untouched: the source is skipped by readTarZstd. Touched but not finished: finish it here.
    if (touched && !wrapped.readableEnded && !wrapped.destroyed) {
      wrapped.resume();
      await settleOn(wrapped, 'end');
    }
  });
}
