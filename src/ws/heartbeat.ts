import { monotonicNow, type Clock } from '../core/time/monotonic';
import { SocketRounds } from './socket-rounds';

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
  private readonly sockets: SocketRounds<{ socket: Pingable; lastSeen: number }>;

  constructor(
    private readonly timing: HeartbeatTiming = SPEC_HEARTBEAT,
    private readonly now: Clock = monotonicNow,
  ) {
    this.sockets = new SocketRounds(timing.intervalMs, () => this.tick());
  }

  track(id: string, socket: Pingable): void {
    this.sockets.add(id, { socket, lastSeen: this.now() });
  }

  alive(id: string): void {
    const entry = this.sockets.entries.get(id);
    if (entry) entry.lastSeen = this.now();
  }

  untrack(id: string): void {
    this.sockets.delete(id);
  }

  stop(): void {
    this.sockets.stop();
  }

  /** One round: terminates the silent, pings the rest (the timer calls it every intervalMs). */
  tick(): void {
    const now = this.now();
    for (const [id, entry] of this.sockets.entries) {
      if (now - entry.lastSeen > this.timing.timeoutMs) {
        this.sockets.entries.delete(id);
        entry.socket.terminate();
        continue;
      }
      entry.socket.ping();
    }
  }
}
