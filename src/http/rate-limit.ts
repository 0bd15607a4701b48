/**
 * Token buckets keyed by client (IP, or route + IP): `max` requests per `windowMs`, refilled
 * continuously, so a burst of `max` is allowed and the steady rate is max/window.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    readonly max: number,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = max / windowMs;
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
    bucket.tokens = Math.min(this.max, bucket.tokens + (now - bucket.at) * this.refillPerMs);
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
      if (bucket.tokens + (now - bucket.at) * this.refillPerMs >= this.max) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
