import { monotonicNow, type Clock } from '../core/time/monotonic';

/** The part of a socket the heartbeat needs. */
export interface Pingable {
  ping(): unknown;
  terminate(): void;
}

export interface HeartbeatTiming {
  /** Spec: a ping every 15 s. */
  intervalMs: number;
  /** Spec: a socket silent (no pong, no message) for 30 s is dropped. */
  timeoutMs: number;
}

export const SPEC_HEARTBEAT: HeartbeatTiming = { intervalMs: 15_000, timeoutMs: 30_000 };

/**
 * Pings every tracked socket on one shared timer and terminates those that stopped
 * answering. Any frame from the peer, pong or message, counts as a sign of life. Silence is
 * measured on the monotonic clock: a wall-clock step never drops a socket that answers.
 */
export class Heartbeat {
  private readonly sockets = new Map<string, { socket: Pingable; lastSeen: number }>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly timing: HeartbeatTiming = SPEC_HEARTBEAT,
    private readonly now: Clock = monotonicNow,
  ) {}

  track(id: string, socket: Pingable): void {
    this.sockets.set(id, { socket, lastSeen: this.now() });
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.timing.intervalMs);
      this.timer.unref();
    }
  }

  alive(id: string): void {
    const entry = this.sockets.get(id);
    if (entry) entry.lastSeen = this.now();
  }

  untrack(id: string): void {
    this.sockets.delete(id);
    if (this.sockets.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round: terminates the silent, pings the rest (the timer calls it every intervalMs). */
  tick(): void {
    const now = this.now();
    for (const [id, entry] of this.sockets) {
      if (now - entry.lastSeen > this.timing.timeoutMs) {
        this.sockets.delete(id);
        entry.socket.terminate();
        continue;
      }
      entry.socket.ping();
    }
  }
}
