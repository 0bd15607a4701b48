import { monotonicNow, type Clock } from '../core/time/monotonic';
import { SocketRounds } from './socket-rounds';

/** The part of a socket the backlog watch needs. */
export interface Backlogged {
  /** Bytes the server holds for the socket, not yet taken by the kernel (Bun: getBufferedAmount). */
  buffered(): number;
  terminate(): void;
}

export interface BacklogLimits {
  /** How often backlogs are read. */
  checkMs: number;
  /** A backlog at or under this counts as drained. */
  drainedBytes: number;
  /** A socket whose backlog has not drained for this long is closed. */
  stallMs: number;
  /** A socket holding more than this is closed at once. */
  socketBytes: number;
  /** Over every watched socket together: beyond it the largest backlogs are closed first. */
  totalBytes: number;
}

/**
 * Event subscribers: more than 64 KiB unread for 5 s, more than 1 MiB at any moment, or the
 * largest backlogs when all of them together pass 32 MiB, is a slow socket. A reader does not
 * get near: the kernel's own socket buffers (up to 4 MiB each) take the frames first, so a
 * backlog here means those are full too.
 */
export const EVENT_BACKLOG: BacklogLimits = {
  checkMs: 250,
  drainedBytes: 64 * 1024,
  stallMs: 5_000,
  socketBytes: 1024 * 1024,
  totalBytes: 32 * 1024 * 1024,
};

interface Entry {
  socket: Backlogged;
  /** When its backlog was last at or under drainedBytes (monotonic ms). */
  drainedAt: number;
}

export interface Dropped {
  sockets: number;
  largestBytes: number;
  why: string;
}

/**
 * Bounds what the server holds for sockets that stop reading. Bun buffers a socket's frames
 * when the kernel takes no more; the server-wide backpressure limit (64 MiB a socket) and the
 * heartbeat (30–45 s) alone would let a thousand silent subscribers hold gigabytes. Here a
 * socket whose backlog has not drained within `stallMs`, or holds more than `socketBytes`, is
 * cut; when all of them together hold more than `totalBytes`, the largest go first. Cut, not
 * closed with a close frame: that frame would wait behind the backlog of a peer that reads
 * nothing, and the backlog with it (a close that has begun cannot be cut any more). The peer
 * sees 1006 and reconnects (the spec's clients retry with backoff); the controller's log says
 * why. A socket that reads never loses a frame: it is never dropped, and nothing is ever
 * skipped for it. Times on the monotonic clock.
 */
export class BacklogWatch {
  private readonly sockets: SocketRounds<Entry>;

  constructor(
    private readonly limits: BacklogLimits = EVENT_BACKLOG,
    private readonly onDrop: (dropped: Dropped) => void = () => {},
    private readonly now: Clock = monotonicNow,
  ) {
    this.sockets = new SocketRounds(limits.checkMs, () => this.check());
  }

  track(id: string, socket: Backlogged): void {
    this.sockets.add(id, { socket, drainedAt: this.now() });
  }

  untrack(id: string): void {
    this.sockets.delete(id);
  }

  stop(): void {
    this.sockets.stop();
  }

  get size(): number {
    return this.sockets.entries.size;
  }

  /** One round (the timer runs it every checkMs). */
  check(): void {
    const now = this.now();
    const { drainedBytes, stallMs, socketBytes, totalBytes } = this.limits;
    const live: { id: string; entry: Entry; bytes: number }[] = [];
    const stalled: { id: string; entry: Entry; bytes: number }[] = [];
    const over: { id: string; entry: Entry; bytes: number }[] = [];
    let total = 0;
    for (const [id, entry] of this.sockets.entries) {
      const bytes = entry.socket.buffered();
      if (bytes <= drainedBytes) entry.drainedAt = now;
      const item = { id, entry, bytes };
      if (bytes > socketBytes) over.push(item);
      else if (now - entry.drainedAt >= stallMs) stalled.push(item);
      else {
        live.push(item);
        total += bytes;
      }
    }
    this.drop(over, `more than ${kib(socketBytes)} unread`);
    this.drop(stalled, `unread for ${Math.round(stallMs / 1000)} s`);
    if (total > totalBytes) {
      const largest = live.sort((a, b) => b.bytes - a.bytes);
      const cut: typeof live = [];
      for (const item of largest) {
        if (total <= totalBytes || item.bytes <= drainedBytes) break;
        cut.push(item);
        total -= item.bytes;
      }
      this.drop(cut, `the subscribers together held more than ${kib(totalBytes)} unread`);
    }
    if (this.sockets.entries.size === 0) this.stop();
  }

  private drop(items: { id: string; entry: Entry; bytes: number }[], why: string): void {
    if (items.length === 0) return;
    let largest = 0;
    for (const { id, entry, bytes } of items) {
      largest = Math.max(largest, bytes);
      this.sockets.entries.delete(id);
      entry.socket.terminate();
    }
    this.onDrop({ sockets: items.length, largestBytes: largest, why });
  }
}

const kib = (bytes: number): string => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`);
