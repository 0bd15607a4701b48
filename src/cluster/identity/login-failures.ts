/** Failed logins an address may make per window before it is turned away unheard. */
export const LOGIN_FAILURE_LIMIT = 10;
export const LOGIN_FAILURE_WINDOW_MS = 60_000;
/** Addresses tracked at most; past it the expired ones go, then the oldest. */
const MAX_ADDRESSES = 10_000;

/**
 * Failed cluster logins per remote address, in fixed windows that start with an address's
 * first failure. Measured on the monotonic clock, so a wall-clock jump neither frees nor
 * locks anyone. A turned-away address is closed before its token is looked at.
 */
export class LoginFailures {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit = LOGIN_FAILURE_LIMIT,
    private readonly windowMs = LOGIN_FAILURE_WINDOW_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Milliseconds until `address` may try again; 0 when it may now. */
  blockedFor(address: string): number {
    const window = this.current(address);
    if (!window || window.count < this.limit) return 0;
    return Math.max(1, Math.ceil(this.windowMs - (this.now() - window.start)));
  }

  fail(address: string): void {
    const window = this.current(address);
    if (window) {
      window.count++;
      return;
    }
    if (this.windows.size >= MAX_ADDRESSES) this.prune();
    this.windows.set(address, { start: this.now(), count: 1 });
  }

  private current(address: string): { start: number; count: number } | undefined {
    const window = this.windows.get(address);
    if (!window) return undefined;
    if (this.now() - window.start < this.windowMs) return window;
    this.windows.delete(address);
    return undefined;
  }

  private prune(): void {
    const now = this.now();
    for (const [address, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(address);
    // Still full: the oldest windows go (Map keeps insertion order).
    for (const address of this.windows.keys()) {
      if (this.windows.size < MAX_ADDRESSES) break;
      this.windows.delete(address);
    }
  }
}
