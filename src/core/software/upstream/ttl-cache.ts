import { monotonicNow, type Clock } from '../../time/monotonic';

/**
 * Values kept for a fixed time per key (on the monotonic clock), with one load in flight per
 * key: callers asking while a load runs share it. A failed load is not kept, so the next caller
 * tries again.
 */
export class TtlCache<V> {
  /** Beyond this many keys (search URLs vary freely), expired entries go, then the oldest. */
  static readonly MAX_KEYS = 500;
  private readonly values = new Map<string, { value: V; expires: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: Clock = monotonicNow,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.values.get(key);
    if (hit && hit.expires > this.now()) return Promise.resolve(hit.value);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const started = load().then(
      (value) => {
        this.values.set(key, { value, expires: this.now() + this.ttlMs });
        this.trim();
        this.loading.delete(key);
        return value;
      },
      (error: unknown) => {
        this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, started);
    return started;
  }

  private trim(): void {
    if (this.values.size <= TtlCache.MAX_KEYS) return;
    const now = this.now();
    for (const [key, entry] of this.values) if (entry.expires <= now) this.values.delete(key);
    // Maps iterate in insertion order: the first keys are the oldest.
    for (const key of this.values.keys()) {
      if (this.values.size <= TtlCache.MAX_KEYS) break;
      this.values.delete(key);
    }
  }

  clear(): void {
    this.values.clear();
  }
}
