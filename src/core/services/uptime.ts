import { monotonicNow } from '../time/monotonic';

/**
 * A running time as the reference controller prints it: `"<h>h <m>m <s>s"`, hours never
 * wrapped into days (`"27h 0m 1s"`), every part always present (`"0h 0m 0s"`). Negative or
 * fractional input is floored at 0 whole seconds, so a clock skew never prints `-1s`.
 */
export function formatUptime(seconds: number): string {
  const total = Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  return `${hours}h ${minutes}m ${total % 60}s`;
}

/** Whole seconds a service has run at `now`, from its start time; never negative (clock skew). */
export function secondsSince(startedAt: Date, now: number): number {
  return Math.max(0, Math.floor((now - startedAt.getTime()) / 1000));
}

/**
 * Whole seconds a service has run: on the monotonic clock from `startedMono` once the
 * controller watches it (a wall-clock step does not move it), else from the wall-clock start
 * at `now`. Null before it started.
 */
export function runningSeconds(record: { startedAt: Date | null; startedMono: number | null }, now: number, mono: number = monotonicNow()): number | null {
  if (record.startedMono !== null) return Math.max(0, Math.floor((mono - record.startedMono) / 1000));
  return record.startedAt ? secondsSince(record.startedAt, now) : null;
}
