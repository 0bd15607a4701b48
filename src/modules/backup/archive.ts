/**
 * Backup archives: a directory tree as tar (tar-stream) compressed with zstd, with a trailing
 * `MANIFEST.sha256` entry in `sha256sum` format.
 *
 * createArchive streams file → SHA-256 → tar → zstd → disk. The main thread walks the tree, reads
 * each file a chunk at a time (into reused buffers), hashes it and packs tar into 1 MiB blocks;
 * Bun's thread pool compresses the blocks (Bun.zstdCompress), and a writer thread hashes and
 * writes the frames in order (see ArchiveWriter and archive-writer.worker.ts). Each stage waits
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
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar, { type Extract, type Header, type Pack } from 'tar-stream';
import { syncDirectory } from '../../core/files/atomic-write';
import type { FromWriter, ToWriter } from './archive-writer-protocol';

/** An entry's content as tar-stream's extractor yields it (its types do not export the class). */
type EntrySource = Extract extends AsyncIterable<infer S> ? S : never;
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

export const MANIFEST_NAME = 'MANIFEST.sha256';

const MIB = 1024 * 1024;
/**
 * Tar bytes per zstd frame. Frames are independent, so each starts without history: 1 MiB frames
 * made a mixed tree 1% larger than one stream, 2 MiB frames 0.7%, but cost 20-30 MiB more
 * resident memory (more bytes in flight between the threads).
 */
const BLOCK_BYTES = MIB;
/** Read size for file content, and for the archive when it is read back. */
const READ_BYTES = MIB;
/** Files up to this size are read with one synchronous read: async I/O costs ~100 µs a call, which dominates many small files. */
const SMALL_FILE_BYTES = READ_BYTES;
const DECOMPRESS_CHUNK_BYTES = MIB;
const END_OF_ARCHIVE_BYTES = 1024;
const MAX_MANIFEST_BYTES = 256 * MIB;
/** Archive bytes between full collections of the writer thread's heap (see archive-writer.worker.ts). */
const GC_EVERY_BYTES = 32 * MIB;
/** Archive bytes between fdatasyncs by the syncer thread. */
const SYNC_EVERY_BYTES = 64 * MIB;
/** Compressed bytes sent to the writer thread and not yet written (they wait for its fdatasync). */
const MAX_UNWRITTEN_BYTES = 8 * MIB;

/**
 * Read buffers, reused once the tar bytes they carry have been copied into a frame block. Fresh
 * memory is expensive (page faults, and a garbage collector that frees it late: resident memory
 * grows by what was allocated since the last collection), so the steady state allocates none.
 */
class ChunkPool {
  private readonly free: Buffer[] = [];
  private readonly mine = new WeakSet<ArrayBufferLike>();

  take(): Buffer {
    const reused = this.free.pop();
    if (reused) return reused;
    const fresh = Buffer.from(new ArrayBuffer(READ_BYTES));
    this.mine.add(fresh.buffer);
    return fresh;
  }

  /** Takes back a buffer handed out by take() (or a view from its start); ignores anything else. */
  release(view: Uint8Array): void {
    if (view.byteOffset === 0 && this.mine.has(view.buffer)) this.free.push(Buffer.from(view.buffer));
  }
}

/** Resolves on a node stream's `event` or 'close', rejects on 'error'; removes its listeners either way. */
function settleOn(emitter: NodeJS.EventEmitter, event: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const cleanup = (): void => {
      emitter.off(event, onEvent);
      emitter.off('close', onEvent);
      emitter.off('error', onError);
    };
    const onEvent = (): void => {
      cleanup();
      resolve();
    };
    const onError = (error: unknown): void => {
      cleanup();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    emitter.once(event, onEvent);
    emitter.once('close', onEvent);
    emitter.once('error', onError);
  });
}

/** Resolves when a tar entry's sink drains or closes (its `done` promise reports errors); removes its listeners either way. */
function drained(sink: ReturnType<Pack['entry']>): Promise<void> {
  return new Promise<void>((resolve) => {
    const onEvent = (): void => {
      sink.off('drain', onEvent);
      sink.off('close', onEvent);
      resolve();
    };
    sink.once('drain', onEvent);
    sink.once('close', onEvent);
  });
}

// ---------------------------------------------------------------------------------------------
// Names

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A unique archive file name: `<type>-<sanitized name>-<class>-<yyyyMMdd-HHmmss-SSS>[-n].tar.zst` that does not exist in `dir` (nor its `.tmp`). */
export function archiveName(dir: string, type: string, name: string, scheduleClass: string, at: Date): string {
  const clean = (s: string): string => s.replace(/[^A-Za-z0-9_.-]/g, '_');
  const stamp = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}-${pad(at.getMilliseconds(), 3)}`;
  const base = `${clean(type.toLowerCase())}-${clean(name)}-${clean(scheduleClass.toLowerCase())}-${stamp}`;
  for (let n = 1; ; n++) {
    const candidate = `${base}${n === 1 ? '' : `-${n}`}.tar.zst`;
    if (!existsQuiet(join(dir, candidate)) && !existsQuiet(join(dir, `${candidate}.tmp`))) return candidate;
  }
}

function existsQuiet(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Manifest (sha256sum format)

/** One manifest line as `sha256sum` prints it: a name with `\`, LF or CR is escaped and the line starts with `\`. */
function manifestLine(hash: string, path: string): string {
  if (!/[\\\n\r]/.test(path)) return `${hash}  ${path}\n`;
  const escaped = path.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
  return `\\${hash}  ${escaped}\n`;
}

/** Parses manifest text into path → lowercase hash; lines that are not `<64 hex>  <path>` are returned as bad. */
function parseManifest(text: string): { entries: Map<string, string>; bad: string[] } {
  const entries = new Map<string, string>();
  const bad: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const escaped = line.startsWith('\\');
    const match = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(escaped ? line.slice(1) : line);
    if (!match?.[1] || match[2] === undefined) {
      bad.push(line);
      continue;
    }
    const path = escaped ? match[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c)) : match[2];
    entries.set(path, match[1].toLowerCase());
  }
  return { entries, bad };
}

/** UTF-8 byte order, as `LC_ALL=C sort` orders the paths. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

// ---------------------------------------------------------------------------------------------
// Compressed output: tar bytes → zstd frames → file, hashed on the way

/**
 * Hashing and writing the archive run on a worker thread (archive-writer.worker.ts, an extra
 * entry point of the compiled binary: see build.ts); compression runs on Bun's thread pool,
 * started from here. The main thread walks, reads, hashes files, packs tar and hands each
 * compressed frame to the writer by transferring its buffer.
 *
 * Why a thread: the archive's SHA-256, its writes and the periodic fdatasync would otherwise
 * take turns with reading on the main thread; and the frames, allocated afresh for every block,
 * are freed by the writer's small heap (a full collection every GC_EVERY_BYTES there is cheap,
 * where one of the main heap took ~6 ms even in a bare process; left to the collector, resident
 * memory grew by 200+ MiB on a 500 MiB tree).
 */
const WRITER_URL = isCompiled() ? './modules/backup/archive-writer.worker.ts' : new URL('./archive-writer.worker.ts', import.meta.url).href;

/**
 * In the compiled binary every module sits in Bun's embedded file system (`/$bunfs/root/` on
 * Unix, `B:/~BUN/root/` on Windows), laid out relative to the entry points' common folder
 * (src/), and this file's import.meta.url is the binary's; from source it is this file.
 */
function isCompiled(): boolean {
  return import.meta.url.includes('/$bunfs/') || import.meta.url.includes('/~BUN/');
}

/** A full block on its way: compressing, then its frame waiting for its turn to be written. */
interface Job {
  block: ArrayBuffer;
  length: number;
  frame?: Uint8Array;
  started: boolean;
}

/**
 * Tar bytes → 1 MiB blocks → one zstd frame each (Bun.zstdCompress on the thread pool, at most
 * `workers` at once) → the writer thread, in block order. Memory is bounded at every stage:
 * workers + 2 blocks (write() waits while all are busy), and at most MAX_UNWRITTEN_BYTES of
 * frames sent but not yet written (a block whose frame cannot be sent yet stays busy). So the
 * back-pressure reaches from the disk to file reading, and memory stays flat whatever the
 * tree's size.
 *
 * Compression is started from here rather than from the writer thread: its jobs then never
 * wait for a thread that is hashing, writing or in fdatasync (measured: 15-20% more throughput).
 * More blocks or more unwritten bytes made it slower, not faster (fewer cache hits).
 */
/**
 * The syncer thread: an fdatasync of the archive's fd per message, so the disk writes what the
 * writer has written so far while everything else goes on (the final fsync then has little
 * left). A failure is left to that final fsync, which reports it. Plain JavaScript from a blob
 * URL: it is two lines, and needs no entry point of its own in the binary.
 */
const SYNCER_URL = URL.createObjectURL(
  new Blob([`import { fdatasyncSync } from 'node:fs';\nself.onmessage = (event) => { try { fdatasyncSync(event.data); } catch {} postMessage(0); };`], { type: 'application/javascript' }),
);

class ArchiveWriter {
  private readonly worker: Worker;
  private readonly syncer: Worker;
  private syncing = false;
  /** Bytes written since the last fdatasync was asked for. */
  private sinceSync = 0;
  private readonly free: ArrayBuffer[] = [];
  /** Blocks in order, from full to frame sent. */
  private readonly jobs: Job[] = [];
  private compressing = 0;
  private unwritten = 0;
  private block: Uint8Array | undefined;
  private fill = 0;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private settle: { resolve: (result: { checksum: string; size: number } | undefined) => void; reject: (error: Error) => void } | undefined;
  private terminated = false;
  private crashed = false;
  private readonly post: (message: ToWriter, transfer?: ArrayBuffer[]) => void;

  constructor(
    private readonly fd: number,
    private readonly level: number,
    private readonly workers: number,
  ) {
    for (let i = 0; i < workers + 2; i++) this.free.push(new ArrayBuffer(BLOCK_BYTES));
    this.worker = new Worker(WRITER_URL);
    this.post = (message, transfer = []) => this.worker.postMessage(message, transfer);
    this.worker.onmessage = (event: MessageEvent<FromWriter>) => this.onMessage(event.data);
    this.worker.onerror = (event: ErrorEvent) => {
      // An uncaught error: the worker's code is broken; abort() will not wait for its answer.
      this.crashed = true;
      this.onFailure(new Error(`archive writer thread failed: ${event.message}`));
    };
    this.post({ op: 'init', fd, gcEvery: GC_EVERY_BYTES });
    this.syncer = new Worker(SYNCER_URL);
    this.syncer.onmessage = () => (this.syncing = false);
  }

  private onMessage(message: FromWriter): void {
    switch (message.op) {
      case 'written':
        this.unwritten -= message.bytes;
        this.sinceSync += message.bytes;
        if (!this.syncing && this.sinceSync >= SYNC_EVERY_BYTES) {
          this.syncing = true;
          this.sinceSync = 0;
          this.syncer.postMessage(this.fd);
        }
        this.forward();
        break;
      case 'failed':
        this.onFailure(new Error(message.message));
        break;
      case 'done':
        this.settle?.resolve({ checksum: message.checksum, size: message.size });
        break;
      case 'stopped':
        this.settle?.resolve(undefined);
        break;
    }
  }

  private onFailure(error: Error): void {
    this.failure ??= error;
    this.settle?.reject(this.failure);
    this.wakeUp();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Copies `chunk` into blocks; waits only while every block is busy. */
  async write(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      if (!this.block) {
        while (this.free.length === 0 && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
        if (this.failure) throw this.failure;
        this.block = new Uint8Array(this.free.pop()!);
        this.fill = 0;
      }
      const n = Math.min(chunk.byteLength - offset, BLOCK_BYTES - this.fill);
      this.block.set(chunk.subarray(offset, offset + n), this.fill);
      this.fill += n;
      offset += n;
      if (this.fill === BLOCK_BYTES) this.queueBlock();
    }
    if (this.failure) throw this.failure;
  }

  private queueBlock(): void {
    if (!this.block || this.fill === 0) return;
    this.jobs.push({ block: this.block.buffer as ArrayBuffer, length: this.fill, started: false });
    this.block = undefined;
    this.fill = 0;
    this.compress();
  }

  /** Starts compressing the oldest waiting blocks, up to `workers` at once. */
  private compress(): void {
    for (const job of this.jobs) {
      if (this.compressing >= this.workers || this.failure) return;
      if (job.started) continue;
      job.started = true;
      this.compressing++;
      Bun.zstdCompress(new Uint8Array(job.block, 0, job.length), { level: this.level }).then(
        (frame) => {
          this.compressing--;
          job.frame = frame;
          this.forward();
          this.compress();
        },
        (error: unknown) => {
          this.compressing--;
          this.onFailure(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }
  }

  /** Sends finished frames to the writer in block order while the unwritten bytes allow; their blocks become free. */
  private forward(): void {
    while (!this.failure && this.jobs[0]?.frame && this.unwritten < MAX_UNWRITTEN_BYTES) {
      const job = this.jobs.shift()!;
      const frame = job.frame!;
      // A frame that is a view of a larger buffer is copied: transferring would detach the rest.
      const own = frame.byteOffset === 0 && frame.byteLength === frame.buffer.byteLength ? frame : frame.slice();
      this.unwritten += own.byteLength;
      this.post({ op: 'frame', buffer: own.buffer as ArrayBuffer, length: own.byteLength }, [own.buffer as ArrayBuffer]);
      this.free.push(job.block);
    }
    if (this.jobs.length === 0 || this.free.length > 0) this.wakeUp();
    if (this.jobs.length === 0) this.drained?.();
  }

  private drained: (() => void) | undefined;

  /** Queues the last block, waits until every frame is sent, then written and fsynced; the archive's SHA-256 and size. */
  async end(): Promise<{ checksum: string; size: number }> {
    if (this.failure) throw this.failure;
    this.queueBlock();
    try {
      await new Promise<void>((resolve, reject) => {
        this.drained = resolve;
        this.settle = { resolve: () => resolve(), reject };
        this.forward();
      });
      this.drained = undefined;
      if (this.failure) throw this.failure;
      const result = await new Promise<{ checksum: string; size: number } | undefined>((resolve, reject) => {
        this.settle = { resolve, reject };
        this.post({ op: 'finish' });
      });
      if (!result) throw new Error('archive writer stopped');
      return result;
    } finally {
      this.settle = undefined;
      this.terminated = true;
      await this.syncer?.terminate();
      await this.worker.terminate();
    }
  }

  /** After a failure or abort: the worker writes nothing more to the fd once this resolves. */
  async abort(): Promise<void> {
    if (this.terminated) return;
    this.terminated = true;
    this.failure ??= new Error('Archive aborted');
    if (!this.crashed) {
      await new Promise<void>((resolve) => {
        this.settle = { resolve: () => resolve(), reject: () => resolve() };
        this.post({ op: 'stop' });
      });
      this.settle = undefined;
    }
    await this.syncer.terminate();
    await this.worker.terminate();
  }
}

// ---------------------------------------------------------------------------------------------
// createArchive

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
    settle = (error) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve());
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
  const manifest: { path: string; hash: string }[] = [];
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
  consumer.catch((error: unknown) => pack.destroy(error instanceof Error ? error : new Error(String(error))));
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
    manifest.sort((a, b) => byteOrder(a.path, b.path));
    const text = Buffer.from(manifest.map((m) => manifestLine(m.hash, m.path)).join(''));
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
    pack.destroy(error instanceof Error ? error : new Error(String(error)));
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

// ---------------------------------------------------------------------------------------------
// Reading archives

interface ReadOutcome {
  /** SHA-256 hex of every byte of the archive file (read to its end even when decoding failed). */
  checksum: string;
  /** Why the archive could not be decoded, if it could not. */
  unreadable?: string;
}

/**
 * Streams `file` through zstd and tar-stream, calling `visit` per entry in order; the entry is
 * drained after `visit` returns. With `hashWhole`, the archive bytes are hashed and reading goes on
 * to the end of the file when decoding fails (verify wants both answers); otherwise a decoding
 * failure is thrown.
 */
async function readArchive(file: string, visit: (header: Header, content: EntrySource) => Promise<void>, hashWhole: boolean): Promise<ReadOutcome> {
  const handle = await open(file, 'r');
  const hasher = hashWhole ? new Bun.CryptoHasher('sha256') : undefined;
  const decompress = zlib.createZstdDecompress({ chunkSize: DECOMPRESS_CHUNK_BYTES });
  const extract = tar.extract();
  let failure: Error | undefined;
  const fail = (error: unknown): void => {
    failure ??= error instanceof Error ? error : new Error(String(error));
    decompress.destroy();
    extract.destroy(failure);
  };
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
        await visit(header, entry);
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
    await handle.close();
  }
  if (!failure && tarBytes < lastEntryEnd + END_OF_ARCHIVE_BYTES) failure = new Error('archive is truncated (no end-of-archive blocks)');
  const checksum = hasher?.digest('hex') ?? '';
  if (failure && !hashWhole) throw failure;
  return { checksum, unreadable: failure?.message };
}

/** Reads an entry's content to the end, feeding `onChunk`. */
async function drain(content: EntrySource, onChunk: (chunk: Buffer) => void): Promise<void> {
  for await (const chunk of content) {
    if (!Buffer.isBuffer(chunk)) throw new Error('tar-stream produced a non-binary chunk');
    onChunk(chunk);
  }
}

/**
 * Iterates the archive's entries in order (header + a stream of the content) for a consumer (the
 * restore code); the last entry is the manifest. `visit` either reads the content to its end or
 * leaves it alone (it is skipped then); destroying it fails the whole read. Throws when the
 * archive is missing or unreadable, including a truncated archive (checked after the last entry,
 * so a consumer that wrote files has to treat a throw as "incomplete").
 */
export async function forEachEntry(file: string, visit: (header: Header, content: NodeJS.ReadableStream | ReadableStream<Uint8Array>) => Promise<void>): Promise<void> {
  await readArchive(
    file,
    async (header, content) => {
      let touched = false;
      const wrapped = Readable.from(
        (async function* () {
          touched = true;
          yield* content;
        })(),
        { objectMode: false },
      );
      await visit(header, wrapped);
      // Left untouched: the source is skipped by readArchive. Touched but not finished: finish it here.
      if (touched && !wrapped.readableEnded && !wrapped.destroyed) {
        wrapped.resume();
        await settleOn(wrapped, 'end');
      }
    },
    false,
  );
}

/** The MANIFEST.sha256 text (the last such entry), or null when the archive has none; throws when the file is missing/unreadable. */
export async function readManifest(file: string): Promise<string | null> {
  let text: string | null = null;
  await readArchive(
    file,
    async (header, content) => {
      if (header.name !== MANIFEST_NAME || header.type !== 'file') return;
      if ((header.size ?? 0) > MAX_MANIFEST_BYTES) throw new Error(`${MANIFEST_NAME} is larger than ${MAX_MANIFEST_BYTES} bytes`);
      const parts: Buffer[] = [];
      await drain(content, (chunk) => parts.push(chunk));
      text = Buffer.concat(parts).toString('utf8');
    },
    false,
  );
  return text;
}

/**
 * Re-reads the archive: its SHA-256 against `expectedChecksum` when given, each file against the
 * manifest, missing/extra files, unreadable archive. Never throws for a bad archive.
 */
export async function verifyArchive(file: string, expectedChecksum?: string): Promise<{ valid: boolean; errors: string[] }> {
  try {
    const st = await stat(file);
    if (!st.isFile()) return { valid: false, errors: [`Archive missing on disk: ${file}`] };
  } catch {
    return { valid: false, errors: [`Archive missing on disk: ${file}`] };
  }

  const errors: string[] = [];
  // Every regular file's hash by path; the last MANIFEST.sha256 is the manifest, earlier ones are files.
  const hashes = new Map<string, string>();
  let manifest: { text: string; hash: string } | undefined;
  let outcome: ReadOutcome;
  try {
    outcome = await readArchive(
      file,
      async (header, content) => {
        if (header.type !== 'file' && header.type !== 'contiguous-file') return;
        const hasher = new Bun.CryptoHasher('sha256');
        const isManifest = header.name === MANIFEST_NAME && (header.size ?? 0) <= MAX_MANIFEST_BYTES;
        const parts: Buffer[] = [];
        await drain(content, (chunk) => {
          hasher.update(chunk);
          if (isManifest) parts.push(chunk);
        });
        const hash = hasher.digest('hex');
        if (isManifest) {
          if (manifest) hashes.set(MANIFEST_NAME, manifest.hash);
          manifest = { text: Buffer.concat(parts).toString('utf8'), hash };
        } else {
          hashes.set(header.name, hash);
        }
      },
      true,
    );
  } catch (error) {
    return { valid: false, errors: [`Archive unreadable: ${error instanceof Error ? error.message : String(error)}`] };
  }

  if (expectedChecksum !== undefined && expectedChecksum !== '' && outcome.checksum !== expectedChecksum.toLowerCase()) {
    errors.push(`Archive checksum mismatch (expected ${expectedChecksum.toLowerCase()}, got ${outcome.checksum})`);
  }
  if (outcome.unreadable !== undefined) {
    errors.push(`Archive unreadable: ${outcome.unreadable}`);
    return { valid: false, errors };
  }
  if (!manifest) {
    errors.push(`Missing ${MANIFEST_NAME} entry in archive`);
    return { valid: false, errors };
  }
  const { entries, bad } = parseManifest(manifest.text);
  for (const line of bad) errors.push(`Malformed ${MANIFEST_NAME} line: ${line.slice(0, 200)}`);
  for (const [path, expected] of entries) {
    const actual = hashes.get(path);
    if (actual === undefined) errors.push(`Missing file in archive: ${path}`);
    else if (actual !== expected) errors.push(`Checksum mismatch: ${path}`);
  }
  for (const path of hashes.keys()) {
    if (!entries.has(path)) errors.push(`Unexpected extra file: ${path}`);
  }
  return { valid: errors.length === 0, errors };
}
