import type { Database } from 'bun:sqlite';
import { statSync } from 'node:fs';
import type { Logger } from '../log';
import { monotonicNow } from '../core/time/monotonic';
import { startWorker, type WorkerThread } from '../core/threads/worker-thread';
import type { CheckpointReply, CheckpointRequest } from './checkpoint.worker';

/** How often the worker copies the WAL back into the database. */
const INTERVAL_MS = 1000;
/** Past this WAL size the main connection restarts the WAL after the worker's checkpoint, so it cannot grow without end. */
const RESTART_ABOVE_BYTES = 32 * 1024 * 1024;
/** A WAL reset truncates the file back to this. */
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;
/** When the worker has not finished a checkpoint for this long, the main connection checkpoints itself. */
const STALL_MS = 30_000;
/**
 * The worker (a thread with its own JavaScript VM, ~5 MiB resident) starts only once the WAL
 * holds this much: an idle controller writes a few rows a minute and never needs it, and up to
 * here a checkpoint has little to copy whoever runs it.
 */
const START_WORKER_ABOVE_BYTES = 1024 * 1024;

/**
 * WAL checkpoints off the event loop. With WAL and synchronous = NORMAL a commit never waits
 * for the disk, but SQLite's automatic checkpoint (every ~1000 WAL pages) runs inside a
 * commit and fsyncs: a few milliseconds in which nothing else is served. Here the main
 * connection's automatic checkpoint is off, and once the WAL has grown past 1 MiB a worker
 * thread with its own connection runs PASSIVE checkpoints (which never block writers) once a
 * second; past 32 MiB the main connection restarts the WAL right after one (one short step,
 * little left to copy). Should the worker fail or stall, the main connection checkpoints as it did before.
 */
export class BackgroundCheckpointer {
  private worker: WorkerThread<CheckpointRequest, CheckpointReply> | undefined;
  private readonly timer: ReturnType<typeof setInterval>;
  private pendingSince: number | null = null;
  private failed = false;
  /** Checkpoints the worker finished (tests, doctor). */
  checkpoints = 0;
  /** Ticks run, each a look at the WAL (tests). */
  ticks = 0;

  constructor(
    private readonly db: Database,
    private readonly path: string,
    private readonly log: Logger,
    private readonly startWorkerAboveBytes = START_WORKER_ABOVE_BYTES,
    /** Between looks at the WAL (tests look more often). */
    intervalMs = INTERVAL_MS,
  ) {
    db.run(`PRAGMA journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    db.run('PRAGMA wal_autocheckpoint = 0');
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  /** Whether the worker thread has been started (it starts when the WAL first grows past the threshold). */
  get workerStarted(): boolean {
    return this.worker !== undefined;
  }

  private startWorker(): void {
    try {
      this.worker = startWorker<CheckpointRequest, CheckpointReply>('storage/checkpoint.worker.ts');
      this.worker.unref();
      this.worker.onMessage((reply) => this.onReply(reply));
      this.worker.onError((message) => this.fail(message));
      this.worker.post({ type: 'open', path: this.path });
    } catch (error) {
      this.fail((error as Error).message);
    }
  }

  /** Ends the worker; the main connection checkpoints by itself again (and at close). */
  stop(): void {
    clearInterval(this.timer);
    if (this.failed) return;
    this.failed = true;
    this.worker?.terminate();
    this.db.run('PRAGMA wal_autocheckpoint = 1000');
  }

  private tick(): void {
    this.ticks++;
    if (this.failed) return;
    if (!this.worker) {
      if (this.walBytes() <= this.startWorkerAboveBytes) return;
      this.startWorker();
      if (!this.worker) return;
    }
    const now = monotonicNow();
    if (this.pendingSince !== null) {
      if (now - this.pendingSince > STALL_MS) this.fail(`no checkpoint finished for ${Math.round(STALL_MS / 1000)} s`);
      return;
    }
    this.pendingSince = now;
    this.worker.post({ type: 'checkpoint', mode: 'PASSIVE' });
  }

  private onReply(reply: CheckpointReply): void {
    if (reply.type === 'done') {
      this.pendingSince = null;
      this.checkpoints++;
      // Under steady writes a PASSIVE checkpoint never catches the WAL's end, so the file never
      // starts over. Right after one, little is left to copy: the main connection (the only
      // writer, so nothing waits on a lock) restarts the WAL itself in one short step.
      if (this.walBytes() > RESTART_ABOVE_BYTES) this.db.run('PRAGMA wal_checkpoint(RESTART)');
    } else if (reply.type === 'error') {
      this.fail(reply.message);
    }
  }

  /** Back to SQLite's own checkpoints on the main connection: slower at the tail, never unbounded. */
  private fail(why: string): void {
    if (this.failed) return;
    this.failed = true;
    this.worker?.terminate();
    this.db.run('PRAGMA wal_autocheckpoint = 1000');
    this.log.warn({ file: this.path }, `background checkpoints stopped (${why}); the database checkpoints on its own connection again`);
  }

  private walBytes(): number {
    try {
      return statSync(`${this.path}-wal`).size;
    } catch {
      return 0;
    }
  }

  /** Whether checkpoints still run off the event loop. */
  get active(): boolean {
    return !this.failed;
  }
}
