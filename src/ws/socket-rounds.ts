/**
 * Sockets watched in rounds on one shared timer: the timer starts with the first socket and
 * stops with the last, so a controller without sockets runs none, and it is unref'd, so it never
 * keeps the process alive. The heartbeat and the backlog watch each keep their sockets here and
 * say what a round does.
 */
export class SocketRounds<E> {
  /** The watched sockets by id; a round may delete from it (a socket it cut). */
  readonly entries = new Map<string, E>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly everyMs: number,
    private readonly round: () => void,
  ) {}

  add(id: string, entry: E): void {
    this.entries.set(id, entry);
    if (!this.timer) {
      this.timer = setInterval(() => this.round(), this.everyMs);
      this.timer.unref();
    }
  }

  /** Forgets a socket; the timer stops with the last one. */
  delete(id: string): void {
    this.entries.delete(id);
    if (this.entries.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Whether the timer runs (tests). */
  get running(): boolean {
    return this.timer !== undefined;
  }
}
