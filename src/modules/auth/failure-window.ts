const WINDOW_MS = 60_000;

/**
 * Failed login attempts per client address over a sliding 60 s: beyond the limit, consume
 * calls are refused before any look-up until old failures age out. A success clears the
 * address. Memory stays bounded: at most `limit` timestamps per address, and addresses with
 * nothing left in the window are dropped by the sweep.
 */
export class FailureWindow {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until this address may try again; 0 when it may now (always 0 when the cap is off). */
  blockedFor(ip: string): number {
    if (this.limit <= 0) return 0;
    const recent = this.recent(ip);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - this.now()) / 1000));
  }

  fail(ip: string): void {
    if (this.limit <= 0) return;
    const recent = this.recent(ip);
    recent.push(this.now());
    if (recent.length > this.limit) recent.splice(0, recent.length - this.limit);
    this.failures.set(ip, recent);
  }

  succeed(ip: string): void {
    this.failures.delete(ip);
  }

  sweep(): void {
    for (const ip of [...this.failures.keys()]) if (this.recent(ip).length === 0) this.failures.delete(ip);
  }

  private recent(ip: string): number[] {
    const since = this.now() - WINDOW_MS;
    const list = (this.failures.get(ip) ?? []).filter((at) => at > since);
    if (list.length === 0) this.failures.delete(ip);
    else this.failures.set(ip, list);
    return list;
  }
}
