/**
 * Tar bytes → zstd frames → the archive file, hashed on the way (createArchive's output side).
 *
 * Hashing and writing the archive run on a worker thread (writer.worker.ts, loaded as
 * every worker is: core/threads/worker-thread.ts); compression runs on Bun's thread pool,
 * started from here. The main thread walks, reads, hashes files, packs tar and hands each
 * compressed frame to the writer by transferring its buffer.
 *
 * Why a thread: the archive's SHA-256, its writes and the periodic fdatasync would otherwise
 * take turns with reading on the main thread; and the frames, allocated afresh for every block,
 * are freed by the writer's small heap (a full collection every GC_EVERY_BYTES there is cheap,
 * where one of the main heap took ~6 ms even in a bare process; left to the collector, resident
 * memory grew by 200+ MiB on a 500 MiB tree).
 */
import { startWorker, type WorkerThread } from '../../../core/threads/worker-thread';
import type { FromWriter, ToWriter } from './writer-protocol';
import { errorOf } from './streams';

const MIB = 1024 * 1024;
/**
 * Tar bytes per zstd frame. Frames are independent, so each starts without history: 1 MiB frames
 * made a mixed tree 1% larger than one stream, 2 MiB frames 0.7%, but cost 20-30 MiB more
 * resident memory (more bytes in flight between the threads).
 */
const BLOCK_BYTES = MIB;
/** Archive bytes between full collections of the writer thread's heap (see writer.worker.ts). */
const GC_EVERY_BYTES = 32 * MIB;
/** Archive bytes between fdatasyncs by the syncer thread. */
const SYNC_EVERY_BYTES = 64 * MIB;
/** Compressed bytes sent to the writer thread and not yet written (they wait for its fdatasync). */
const MAX_UNWRITTEN_BYTES = 8 * MIB;

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
export class ArchiveWriter {
  private readonly worker: WorkerThread<ToWriter, FromWriter>;
  /** fdatasyncs of the archive's fd while it is written (syncer.worker.ts). */
  private readonly syncer: WorkerThread<number, 0>;
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
    this.worker = startWorker<ToWriter, FromWriter>('modules/backup/archive/writer.worker.ts');
    this.post = (message, transfer) => this.worker.post(message, transfer);
    this.worker.onMessage((message) => this.onMessage(message));
    this.worker.onError((message) => {
      // An uncaught error: the worker's code is broken; abort() will not wait for its answer.
      this.crashed = true;
      this.onFailure(new Error(`archive writer thread failed: ${message}`));
    });
    this.post({ op: 'init', fd, gcEvery: GC_EVERY_BYTES });
    this.syncer = startWorker<number, 0>('modules/backup/archive/syncer.worker.ts');
    this.syncer.onMessage(() => (this.syncing = false));
  }

  private onMessage(message: FromWriter): void {
    switch (message.op) {
      case 'written':
        this.unwritten -= message.bytes;
        this.sinceSync += message.bytes;
        if (!this.syncing && this.sinceSync >= SYNC_EVERY_BYTES) {
          this.syncing = true;
          this.sinceSync = 0;
          this.syncer.post(this.fd);
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
          this.onFailure(errorOf(error));
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

