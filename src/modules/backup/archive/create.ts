/**
 * Writing a backup archive: a directory tree as tar (tar-stream) compressed with zstd, with a
 * trailing `MANIFEST.sha256` entry in `sha256sum` format (manifest-file.ts).
 *
 * createArchive streams file → SHA-256 → tar → zstd → disk. The main thread walks the tree, reads
 * each file a chunk at a time (into reused buffers), hashes it and packs tar into 1 MiB blocks;
 * Bun's thread pool compresses the blocks (Bun.zstdCompress), and a writer thread hashes and
 * writes the frames in order (see ArchiveWriter in frame-writer.ts, and writer.worker.ts). Each stage waits
 * for the next one (back-pressure), so memory stays flat whatever the tree's size.
 *
 * The archive is a series of independent zstd frames, one per block, which is one valid zstd
 * stream (`zstd -d`, `tar --zstd` and createZstdDecompress read it) and lets `workers` frames be
 * compressed at once. zstd's own multithreading (ZSTD_c_nbWorkers) is not usable: with it, Bun
 * 1.4.5's createZstdCompress stream fails with "stream.push() after EOF" (Node has the same bug,
 * nodejs/node#59899). A node:zlib compress stream per worker, flushed after every block, was
 * 15-20% slower: each block took several round trips between the pool and JavaScript. The frames
 * carry no zstd content checksum (Bun.zstdCompress takes only a level); integrity rests on the
 * record's SHA-256 of the archive and the manifest's SHA-256 of every file, both checked by
 * verify and the archive's before every restore.
 */
import { closeSync, constants as fsConstants, lstatSync, mkdirSync, openSync, readdirSync, readSync, type Stats } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import tar, { type Pack } from 'tar-stream';
import { syncDirectory } from '../../../core/files/atomic-write';
import { ChunkPool, READ_BYTES } from './chunk-pool';
import { ArchiveWriter } from './frame-writer';
import { byteOrder, MANIFEST_NAME, manifestText, type FileHash } from './manifest-file';
import { drained, errorOf } from './streams';

/** What pack.entry() takes: a name and any other header fields. */
type EntryHeader = Parameters<Pack['entry']>[0];

export interface ArchiveOptions {
  /** zstd level, 1..22. */
  level: number;
  /** Frames compressed at once; 0 = cores/2, min 1. */
  workers: number;
  /** Globs (Bun.Glob) matched against a file's relative path OR its name; matching files are left out (directories are always kept and walked). */
  excludes: readonly string[];
  signal?: AbortSignal;
}

export interface ArchiveResult {
  sizeBytes: number;
  /** SHA-256 hex of the archive file. */
  checksum: string;
  /** Regular files archived (the manifest not counted). */
  files: number;
  /** Uncompressed bytes of those files. */
  bytes: number;
}

/** Files up to this size are read with one synchronous read: async I/O costs ~100 µs a call, which dominates many small files. */
const SMALL_FILE_BYTES = READ_BYTES;

function resolveWorkers(workers: number): number {
  if (workers > 0) return Math.floor(workers);
  return Math.max(1, Math.floor(availableParallelism() / 2));
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('Archive aborted');
}

interface PendingEntry {
  sink: ReturnType<Pack['entry']>;
  /** Settles when the entry's bytes are all in the tar stream (tar-stream calls back then). */
  done: Promise<void>;
}

function addEntry(pack: Pack, header: EntryHeader, body?: Buffer): PendingEntry {
  let settle: (error?: unknown) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(errorOf(error)) : resolve());
  });
  done.catch(() => {}); // always awaited by the caller; this only keeps an early rejection from being "unhandled"
  const sink = body === undefined ? pack.entry(header, settle) : pack.entry(header, body, settle);
  sink.on('error', () => {}); // reported through `done`; unheard, a destroyed sink's 'error' would be thrown
  return { sink, done };
}

/**
 * Archives the tree under `root` into `dest` (written as `dest + '.tmp'`, fsynced, renamed;
 * removed on failure or abort). Entries: relative paths with '/', a directory entry per directory
 * (mode, mtime), regular files with mode, mtime and content streamed; symlinks, sockets, FIFOs and
 * devices are skipped and counted. The last entry is MANIFEST.sha256: `<sha256>  <path>\n` per
 * regular file, sorted by path (byte order).
 *
 * A file that shrinks while it is read is padded with zeros to the size its header announced (as
 * GNU tar does), a file that grows is cut there; the manifest hashes what the archive holds. A
 * file that vanishes between listing and opening is left out. A mode of 0 is stored as 0644 (a
 * tar-stream default).
 */
export async function createArchive(root: string, dest: string, options: ArchiveOptions): Promise<ArchiveResult & { skipped: number }> {
  const { signal } = options;
  throwIfAborted(signal);
  const level = Math.min(22, Math.max(1, Math.floor(options.level)));
  const workers = resolveWorkers(options.workers);
  const globs = options.excludes.filter((p) => p.trim() !== '').map((p) => new Bun.Glob(p.trim()));
  const excluded = (rel: string, name: string): boolean => globs.some((glob) => glob.match(rel) || glob.match(name));

  const rootStat = await stat(root);
  if (!rootStat.isDirectory()) throw new Error(`Not a directory: ${root}`);
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.tmp`;
  // 'wx': never clobber another run's temp file.
  const file = await open(tmp, 'wx', 0o644);
  let closed = false;
  let writer: ArchiveWriter;
  try {
    writer = new ArchiveWriter(file.fd, level, workers);
  } catch (error) {
    await file.close();
    await rm(tmp, { force: true });
    throw error;
  }
  const pack = tar.pack();
  pack.on('error', () => {}); // reported through the consumer and the entries' `done`
  const manifest: FileHash[] = [];
  let files = 0;
  let bytes = 0;
  let skipped = 0;

  const pool = new ChunkPool();
  // Consumer: tar bytes into frames; read buffers go back to the pool once copied. A failure here
  // destroys the pack, which fails the producer's waits.
  const consumer = (async () => {
    for await (const chunk of pack) {
      if (!(chunk instanceof Uint8Array)) throw new Error('tar-stream produced a non-binary chunk');
      await writer.write(chunk);
      pool.release(chunk);
    }
  })();
  consumer.catch((error: unknown) => pack.destroy(errorOf(error)));
  const onAbort = (): void => void pack.destroy(signal?.reason instanceof Error ? signal.reason : new Error('Archive aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });

  /** Opens a file for reading without following a symlink swapped in since the listing; undefined when it is gone. */
  const openFile = async (abs: string): Promise<FileHandle | undefined> => {
    try {
      return await open(abs, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  /** Fills `chunk` from `position`; a file that shrank leaves zeros (the header already announced the size). */
  const readAt = async (handle: FileHandle, chunk: Buffer, position: number): Promise<Buffer> => {
    let got = 0;
    while (got < chunk.byteLength) {
      const { bytesRead } = await handle.read(chunk, got, chunk.byteLength - got, position + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got < chunk.byteLength) chunk.fill(0, got);
    return chunk;
  };

  const archiveSmallFile = async (abs: string, header: EntryHeader & { size: number }, hasher: Bun.CryptoHasher): Promise<boolean> => {
    // One synchronous read: async calls cost ~100 µs each, which dominates a tree of small files.
    let fd: number;
    try {
      fd = openSync(abs, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false; // gone since the listing
      throw error;
    }
    const body = pool.take().subarray(0, header.size);
    try {
      let got = 0;
      while (got < body.byteLength) {
        const n = readSync(fd, body, got, body.byteLength - got, got);
        if (n === 0) break;
        got += n;
      }
      if (got < body.byteLength) body.fill(0, got);
    } finally {
      closeSync(fd);
    }
    hasher.update(body);
    await addEntry(pack, header, body).done;
    return true;
  };

  const archiveLargeFile = async (abs: string, header: EntryHeader & { size: number }, hasher: Bun.CryptoHasher): Promise<boolean> => {
    const handle = await openFile(abs);
    if (!handle) return false;
    try {
      const entry = addEntry(pack, header);
      const size = header.size;
      const next = (position: number): Promise<Buffer> | undefined =>
        position < size ? readAt(handle, pool.take().subarray(0, Math.min(READ_BYTES, size - position)), position) : undefined;
      // One read ahead: the next chunk comes off the disk while this one is hashed and packed.
      let position = 0;
      let pending = next(position);
      while (pending) {
        throwIfAborted(signal);
        const chunk = await pending;
        position += chunk.byteLength;
        pending = next(position);
        pending?.catch(() => {}); // awaited next turn; a failure of this one surfaces there
        hasher.update(chunk);
        if (!entry.sink.write(chunk)) await Promise.race([drained(entry.sink), entry.done]);
      }
      entry.sink.end(null);
      await entry.done;
    } finally {
      await handle.close();
    }
    return true;
  };

  const archiveFile = async (abs: string, rel: string, st: Stats): Promise<void> => {
    const header = { name: rel, type: 'file' as const, size: st.size, mode: st.mode & 0o7777, mtime: st.mtime, uid: st.uid, gid: st.gid };
    const hasher = new Bun.CryptoHasher('sha256');
    const archived = st.size <= SMALL_FILE_BYTES ? await archiveSmallFile(abs, header, hasher) : await archiveLargeFile(abs, header, hasher);
    if (!archived) return;
    manifest.push({ path: rel, hash: hasher.digest('hex') });
    files++;
    bytes += st.size;
  };

  const walk = async (absDir: string, relDir: string): Promise<void> => {
    const names = readdirSync(absDir).sort(byteOrder);
    for (const name of names) {
      throwIfAborted(signal);
      const abs = join(absDir, name);
      const rel = relDir === '' ? name : `${relDir}/${name}`;
      let st: Stats;
      try {
        st = lstatSync(abs);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      if (st.isDirectory()) {
        await addEntry(pack, { name: `${rel}/`, type: 'directory', mode: st.mode & 0o7777, mtime: st.mtime, uid: st.uid, gid: st.gid }).done;
        await walk(abs, rel);
      } else if (st.isFile()) {
        if (!excluded(rel, name)) await archiveFile(abs, rel, st);
      } else {
        skipped++; // symlink, socket, FIFO, device
      }
    }
  };

  try {
    await walk(root, '');
    throwIfAborted(signal);
    const text = Buffer.from(manifestText(manifest));
    await addEntry(pack, { name: MANIFEST_NAME, type: 'file', mode: 0o644, mtime: new Date() }, text).done;
    pack.finalize();
    await consumer;
    throwIfAborted(signal);
    const { checksum, size } = await writer.end(); // fsynced by the writer thread
    await file.close();
    closed = true;
    throwIfAborted(signal);
    await rename(tmp, dest);
    await syncDirectory(dirname(dest));
    return { sizeBytes: size, checksum, files, bytes, skipped };
  } catch (error) {
    pack.destroy(errorOf(error));
    await consumer.catch(() => {});
    await writer.abort();
    if (!closed) await file.close().catch(() => {});
    await rm(tmp, { force: true });
    // An abort destroys the tar stream under whatever step was running, which may then fail
    // with the stream's own complaint ("already finalized or destroyed"): the abort is the cause.
    if (signal?.aborted) throwIfAborted(signal);
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
