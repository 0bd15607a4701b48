/**
 * Player predictions for smart scaling: how many players a group will likely have in the coming
 * local hours, judged from the same local weekday and hour in past weeks, and how many instances
 * that takes.
 *
 * "Same hour" is meant on the local calendar of the configured zone: a clock change between a
 * past week and now must not shift the hour compared (Saturday 20:00 is compared with earlier
 * Saturdays 20:00, not with 19:00 or 21:00).
 */
import { addDays, hourEnd, hourStart, instantOf, localParts, type Weekday } from './zoned';

/**
 * Nearest-rank percentile (p in (0,100]; outside it is clamped) of the values; 0 for an empty
 * list. E.g. p90 of 1..10 = 9, p100 = max. NaN values are ignored. Does not mutate its input.
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  // p * n / 100 rather than p / 100 * n: 0.7 * 10 is 7.000000000000001, whose ceiling is 8.
  const rank = Math.ceil((p * sorted.length) / 100);
  const index = Math.min(Math.max(rank, 1), sorted.length) - 1;
  return sorted[index] ?? 0;
}

/** Absorbs float noise in the division (a product like 10 × 0.7 need not be exactly 7). */
const EPSILON = 1e-9;

/**
 * Instances needed for that many players: ceil(players / (playersPerInstance × scaleThreshold));
 * 0 when players <= 0. A playersPerInstance or scaleThreshold <= 0 (or not a number) would make
 * the capacity meaningless, so the capacity is then playersPerInstance, at least 1.
 */
export function instancesFor(players: number, playersPerInstance: number, scaleThreshold: number): number {
  if (!(players > 0)) return 0;
  const capacity = playersPerInstance > 0 && scaleThreshold > 0 ? playersPerInstance * scaleThreshold : Math.max(1, playersPerInstance || 0);
  return Math.max(1, Math.ceil(players / capacity - EPSILON));
}

export interface HourSlot {
  /** start of the local hour, epoch ms */
  startMs: number;
  endMs: number;
  /** 0-23 local */
  hour: number;
  dayOfWeek: Weekday;
}

/**
 * The local hour that contains instantMs, and the `count` - 1 local hours after it. Each slot is
 * one real local hour: a DST fall-back hour that happens twice is two slots, a skipped hour is
 * no slot. (With a 30-minute clock change, as in Australia/Lord_Howe, the hour the change lands
 * in is 30 or 90 real minutes and stays one slot.) count <= 0 or not finite → [].
 */
export function hourSlots(instantMs: number, timeZone: string, count: number): HourSlot[] {
  const slots: HourSlot[] = [];
  // A non-finite count would never end; a fractional one means its whole part.
  const wanted = Number.isFinite(count) ? Math.floor(count) : 0;
  let start = hourStart(instantMs, timeZone);
  while (slots.length < wanted) {
    const end = hourEnd(start, timeZone);
    const local = localParts(start, timeZone);
    slots.push({ startMs: start, endMs: end, hour: local.hour, dayOfWeek: local.weekday });
    start = end;
  }
  return slots;
}

/**
 * For the local hour containing targetMs: the same local weekday × hour 1..weeks weeks earlier,
 * as [fromMs, toMs) windows, newest first. Computed on the local calendar (the date 7k days
 * earlier, then the instant that hour starts on it), so a DST change between then and now does
 * not shift the hour. Each window is that week's local hour as hourSlots has it; on a fall-back
 * day where the hour happens twice it is the first time (matching instantOf), so a window is
 * one real hour whenever the zone changes by whole hours. A week whose hour did not exist (DST
 * gap) is left out. weeks <= 0 or not finite → [].
 */
export function sameHourWindows(targetMs: number, timeZone: string, weeks: number): { fromMs: number; toMs: number }[] {
  const target = localParts(targetMs, timeZone);
  const windows: { fromMs: number; toMs: number }[] = [];
  const last = Number.isFinite(weeks) ? Math.floor(weeks) : 0;
  for (let k = 1; k <= last; k++) {
    const date = addDays(target, -7 * k);
    const fromMs = instantOf({ ...date, hour: target.hour, minute: 0 }, timeZone);
    // In a gap instantOf answers the first instant after it, which is in a later hour.
    const start = localParts(fromMs, timeZone);
    if (start.hour !== target.hour || start.day !== date.day) continue;
    windows.push({ fromMs, toMs: hourEnd(fromMs, timeZone) });
  }
  return windows;
}
