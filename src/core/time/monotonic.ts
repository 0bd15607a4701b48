/**
 * Two clocks, two jobs. The wall clock (`Date.now()`) says what time it is: timestamps shown to
 * people, rows stored in the database, schedules such as a backup at 03:00. It can step either
 * way at any moment (an NTP correction, a VM resumed, an operator's `date -s`). Every duration
 * (a timeout, a rate-limit refill, a heartbeat's silence, a backoff, a cache's age, an expiry
 * held in memory) is measured on the monotonic clock instead, which only moves forward, so a
 * step of the wall clock changes timestamps and nothing else.
 *
 * Monotonic readings are milliseconds since this process started: they mean nothing to another
 * process, are never stored, and are never compared with wall-clock values.
 */

/** A source of milliseconds; units take one as a parameter so tests can pass a fake. */
export type Clock = () => number;

/** Milliseconds on the monotonic clock (`performance.now()`: CLOCK_MONOTONIC, starts near 0). */
export const monotonicNow: Clock = () => performance.now();

/**
 * The monotonic reading that stands for the wall-clock instant `wallMs`, judged once, now: for a
 * start recorded in wall time by an earlier process (a re-attached service). From then on its
 * age is measured on the monotonic clock, so a later step of the wall clock does not move it. A
 * `wallMs` in the future (the clock stepped back since it was written) counts as now.
 */
export function monotonicAt(wallMs: number, wallNow: number = Date.now(), monoNow: number = monotonicNow()): number {
  return monoNow - Math.max(0, wallNow - wallMs);
}

/** Whole seconds from `startMono` to `mono` (monotonic readings), never negative: an uptime. */
export function secondsSinceMono(startMono: number, mono: number = monotonicNow()): number {
  return Math.max(0, Math.floor((mono - startMono) / 1000));
}
