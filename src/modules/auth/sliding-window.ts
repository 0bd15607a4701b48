import { monotonicNow } from '../../core/time/monotonic';

/**
 * Every throttle window of this module counts on the monotonic clock (core/time/monotonic): a
 * wall-clock step (NTP, a VM resumed, an operator's `date`) must neither lock people out nor
 * hand out a fresh budget.
 */
export { monotonicNow };

/**
 * Hits per key over a sliding window: once `limit` hits lie within the last `windowMs`, the key
 * is blocked until the oldest of them ages out. Nothing resets a key but time. Memory stays
 * bounded per key (at most `limit` timestamps); keys with nothing left in the window are dropped
 * when looked at and by `sweep`. A limit of 0 or less never blocks.
 */
export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = monotonicNow,
  ) {}

  /** Whole seconds until `key` may be hit again; 0 when it may be now. */
  blockedFor(key: string): number {
    if (this.limit <= 0) return 0;
    const recent = this.recent(key);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.windowMs - this.now()) / 1000));
  }

  hit(key: string): void {
    if (this.limit <= 0) return;
    const recent = this.recent(key);
    recent.push(this.now());
    if (recent.length > this.limit) recent.splice(0, recent.length - this.limit);
    this.hits.set(key, recent);
  }

  /** Takes a hit when the key has room; otherwise the seconds to wait (nothing is taken). */
  take(key: string): number {
    const wait = this.blockedFor(key);
    if (wait === 0) this.hit(key);
    return wait;
  }

  sweep(): void {
    for (const key of [...this.hits.keys()]) this.recent(key);
  }

  /** Keys holding hits inside the window (after a sweep). */
  get size(): number {
    return this.hits.size;
  }

  private recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    const list = (this.hits.get(key) ?? []).filter((at) => at > since);
    if (list.length === 0) this.hits.delete(key);
    else this.hits.set(key, list);
    return list;
  }
}
