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
 * answering. Any frame from the peer, pong or message, counts as a sign of life.
 */
export class Heartbeat {
  private readonly sockets = new Map<string, { socket: Pingable; lastSeen: number }>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly timing: HeartbeatTiming = SPEC_HEARTBEAT) {}

  track(id: string, socket: Pingable): void {
    this.sockets.set(id, { socket, lastSeen: Date.now() });
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.timing.intervalMs);
      this.timer.unref();
    }
  }

  alive(id: string): void {
    const entry = this.sockets.get(id);
    if (entry) entry.lastSeen = Date.now();
  }

  untrack(id: string): void {
    this.sockets.delete(id);
    if (this.sockets.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const now = Date.now();
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
