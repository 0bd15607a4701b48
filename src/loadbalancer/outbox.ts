/** What one direction of a relay needs of a Bun socket (client and backend sockets differ only in `data`). */
export interface Pipe {
  /** Bytes taken now: fewer than given under backpressure, -1 once the socket is closed. */
  write(data: Uint8Array): number;
  pause(): void;
  resume(): void;
  /** Half-close: sends FIN, keeps reading. */
  shutdown(): void;
  /** Full close. */
  end(): void;
  terminate(): void;
}

/**
 * One direction of a relayed connection: bytes read from `source` on their way to `target`.
 *
 * Backpressure contract: bytes the target does not take at once (its `write` returned less,
 * or it is not connected yet) wait here in order; once `highWater` bytes wait, the source is
 * paused, and it is resumed when the target's `drain` has brought the backlog down to half.
 * So what waits is bounded by `highWater` plus one read (Bun reads up to 512 KiB at a time),
 * however slow the target is. Chunks are kept by reference: Bun hands every `data` call a
 * buffer of its own.
 *
 * End of stream: `finish('shutdown')` (the source sent FIN) half-closes the target once the
 * backlog is written, so a reply can still come back; `finish('end')` (the source is gone)
 * closes the target once the backlog is written. `detach()` (the target is gone) drops the
 * backlog.
 */
export class Outbox {
  private target: Pipe | null = null;
  private readonly chunks: Uint8Array[] = [];
  private queued = 0;
  private sourcePaused = false;
  private finishing: 'shutdown' | 'end' | null = null;
  /** Set once the target was half-closed, closed or lost: nothing more goes out. */
  done = false;

  constructor(
    private readonly source: Pipe,
    private readonly highWater: number,
    /** Called after the target was half-closed or closed by this outbox. */
    private readonly onDone: () => void,
  ) {}

  /** Bytes waiting for the target. */
  get backlog(): number {
    return this.queued;
  }

  /** The target is connected: `first` (e.g. a PROXY header) goes before everything waiting. */
  attach(target: Pipe, first?: Uint8Array): void {
    this.target = target;
    if (first) {
      this.chunks.unshift(first);
      this.queued += first.length;
    }
    this.flush();
  }

  push(chunk: Uint8Array): void {
    if (this.done || this.finishing) return;
    if (this.target && this.queued === 0) {
      const written = this.target.write(chunk);
      if (written === chunk.length || written < 0) return; // all taken, or the target is closing (its close handler follows)
      this.enqueue(written > 0 ? chunk.subarray(written) : chunk);
      return;
    }
    this.enqueue(chunk);
  }

  /** Writes what the target takes now; called on attach and on the target's `drain`. */
  flush(): void {
    const target = this.target;
    if (!target || this.done) return;
    while (this.chunks.length > 0) {
      const chunk = this.chunks[0]!;
      const written = target.write(chunk);
      if (written < 0) return;
      this.queued -= Math.max(0, written);
      if (written < chunk.length) {
        this.chunks[0] = chunk.subarray(Math.max(0, written));
        break;
      }
      this.chunks.shift();
    }
    if (this.sourcePaused && this.queued <= this.highWater / 2) {
      this.sourcePaused = false;
      this.source.resume();
    }
    if (this.queued === 0 && this.finishing) this.close(this.finishing);
  }

  finish(how: 'shutdown' | 'end'): void {
    if (this.done) return;
    if (this.finishing !== 'end') this.finishing = how;
    if (this.target && this.queued === 0) this.close(this.finishing);
  }

  /** The target is gone: drop the backlog, never write again. */
  detach(): void {
    this.done = true;
    this.target = null;
    this.chunks.length = 0;
    this.queued = 0;
  }

  private enqueue(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.queued += chunk.length;
    if (!this.sourcePaused && this.queued >= this.highWater) {
      this.sourcePaused = true;
      this.source.pause();
    }
  }

  private close(how: 'shutdown' | 'end'): void {
    const target = this.target;
    if (!target || this.done) return;
    this.done = true;
    if (how === 'shutdown') target.shutdown();
    else target.end();
    this.onDone();
  }
}
