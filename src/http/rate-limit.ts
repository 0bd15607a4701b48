import { monotonicNow, type Clock } from '../core/time/monotonic';

/**
 * Token buckets keyed by client (IP, or route + IP): `max` requests per `windowMs`, refilled
 * continuously, so a burst of `max` is allowed and the steady rate is max/window.
 *
 * Refill is measured on the monotonic clock: a wall-clock step (NTP, a resumed VM) neither
 * locks every client out nor hands out a fresh budget. Whatever the clock does, a bucket never
 * holds a negative balance, so no wait it announces is longer than the time one token takes to
 * come back (window / max, at most the window).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    readonly max: number,
    readonly windowMs = 60_000,
    private readonly now: Clock = monotonicNow,
  ) {
    this.refillPerMs = max / windowMs;
  }

  /** False for a limit of 0 (no limit): every take succeeds, so a caller need not work out its key. */
  get enabled(): boolean {
    return this.max > 0;
  }

  /** Takes one token; when none is left, says how many seconds until one is. */
  take(key: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    if (this.max <= 0) return { ok: true };
    const now = this.now();
    const bucket = this.buckets.get(key);
    if (!bucket) {
      this.buckets.set(key, { tokens: this.max - 1, at: now });
      return { ok: true };
    }
    bucket.tokens = this.balance(bucket, now);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000)) };
  }

  /** Forgets buckets that have refilled completely; call periodically to bound memory. */
  sweep(): void {
    const now = this.now();
    for (const [key, bucket] of this.buckets) {
      if (this.balance(bucket, now) >= this.max) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Tokens at `now`: between 0 and max, and time that ran backwards refills nothing and takes nothing. */
  private balance(bucket: { tokens: number; at: number }, now: number): number {
    const elapsed = Math.max(0, now - bucket.at);
    return Math.min(this.max, Math.max(0, bucket.tokens + elapsed * this.refillPerMs));
  }
}
