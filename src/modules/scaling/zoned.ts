/**
 * Local wall clock of an IANA time zone, for the smart-scaling timetable and predictions.
 *
 * All functions are pure: instants go in and come out as epoch milliseconds, zones come from the
 * runtime's Intl data. A "wall" value below is a local date and time written as if it were UTC
 * milliseconds, so calendar arithmetic on it is plain UTC arithmetic; an offset is wall - instant.
 *
 * Contracts shared by every function taking a `timeZone`: it must be a zone isValidTimeZone
 * accepts (otherwise Intl's RangeError is thrown), and dates are in the Common Era (Intl drops
 * the era, so years before 1 would read wrong; schedules never need them).
 */

import { offsetAt, utc, wallOf } from '../../core/time/zone';

export { isValidTimeZone, machineTimeZone, offsetAt, wallOf } from '../../core/time/zone';

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface LocalDate {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
}

export interface LocalDateTime extends LocalDate {
  hour: number;
  minute: number;
}

export interface LocalParts {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  weekday: Weekday;
  /** 0-23, never 24 */
  hour: number;
  minute: number;
  /** hour*60+minute */
  minuteOfDay: number;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

function weekdayOfWall(wall: number): Weekday {
  // getUTCDay counts from Sunday = 0; WEEKDAYS starts on Monday.
  return WEEKDAYS[(new Date(wall).getUTCDay() + 6) % 7] ?? 'MONDAY';
}

function partsOfWall(wall: number): LocalParts {
  const d = new Date(wall);
  const hour = d.getUTCHours();
  const minute = d.getUTCMinutes();
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    weekday: weekdayOfWall(wall),
    hour,
    minute,
    minuteOfDay: hour * 60 + minute,
  };
}

/** The wall clock in the zone at the instant. */
export function localParts(instantMs: number, timeZone: string): LocalParts {
  return partsOfWall(wallOf(instantMs, timeZone));
}

/** The first instant in (lo, hi] whose offset differs from lo's; lo and hi whole seconds, their offsets different. */
function firstChange(lo: number, hi: number, timeZone: string): number {
  const before = offsetAt(lo, timeZone);
  // Offsets only change on whole seconds, so a search over seconds finds the exact instant.
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(mid, timeZone) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The instant of a local wall time. In a DST gap (a wall time that does not exist) the first
 * instant after the gap; in an overlap (a wall time that happens twice) the earlier one.
 * Out-of-range fields roll over like Date.UTC (day 32 is the 1st of the next month).
 */
export function instantOf(local: LocalDateTime, timeZone: string): number {
  const wall = utc(local.year, local.month, local.day, local.hour, local.minute);
  // The offsets a day either side cover every offset the wall time can have (one change at most
  // in between; a zone that skips a whole day, like Pacific/Apia in 2011, still has its two).
  const offsets = [offsetAt(wall - DAY_MS, timeZone), offsetAt(wall, timeZone), offsetAt(wall + DAY_MS, timeZone)];
  const candidates = [...new Set(offsets.map((offset) => wall - offset))].sort((a, b) => a - b);
  for (const instant of candidates) {
    if (wallOf(instant, timeZone) === wall) return instant;
  }
  // A gap: the clock jumped over the wall time somewhere between the earliest and latest candidate.
  const lo = candidates[0] ?? wall;
  const hi = candidates[candidates.length - 1] ?? wall;
  return firstChange(lo, hi, timeZone);
}

/** Calendar arithmetic on a local date (n may be negative), e.g. 2026-03-01 minus 1 = 2026-02-28. */
export function addDays(date: LocalDate, n: number): LocalDate {
  const d = new Date(utc(date.year, date.month, date.day) + Math.trunc(n) * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The weekday of a local date (pure calendar; no zone needed). */
export function weekdayOf(date: LocalDate): Weekday {
  return weekdayOfWall(utc(date.year, date.month, date.day));
}

// ---------------------------------------------------------------------------------------------
// Local hours as stretches of real time. A local hour starts where the clock reads HH:00:00
// (by ticking or by jumping onto it) or where a clock change lands in a different hour than the
// one it left. A change that lands inside the same hour does not split it: a 30-minute fall-back
// (Australia/Lord_Howe) makes that hour 90 real minutes, a 30-minute spring-forward makes the
// hour it lands in 30 minutes. With whole-hour changes every local hour is one real hour.
// Assumes at most one offset change within any hour, as in all tz data.

const hourOfWall = (wall: number): number => Math.floor(wall / HOUR_MS);

function startsHour(instant: number, timeZone: string): boolean {
  const wall = wallOf(instant, timeZone);
  return wall % HOUR_MS === 0 || hourOfWall(wall) !== hourOfWall(wallOf(instant - 1, timeZone));
}

/** The start of the local hour containing the instant. */
export function hourStart(instantMs: number, timeZone: string): number {
  let cursor = Math.floor(instantMs / 1000) * 1000;
  for (;;) {
    const offset = offsetAt(cursor, timeZone);
    const wall = cursor + offset;
    const candidate = cursor - (((wall % HOUR_MS) + HOUR_MS) % HOUR_MS);
    if (offsetAt(candidate, timeZone) === offset) return candidate;
    // The offset changed inside this hour: the change is the start if it began a new hour,
    // otherwise the hour began before it, under the old offset.
    const change = firstChange(candidate, cursor, timeZone);
    if (startsHour(change, timeZone)) return change;
    cursor = change - 1000;
  }
}

/** The end of the local hour that starts at (or contains) hourStartMs: the next hour's start. */
export function hourEnd(hourStartMs: number, timeZone: string): number {
  let cursor = Math.floor(hourStartMs / 1000) * 1000;
  for (;;) {
    const offset = offsetAt(cursor, timeZone);
    const wall = cursor + offset;
    const candidate = cursor + HOUR_MS - (((wall % HOUR_MS) + HOUR_MS) % HOUR_MS);
    if (offsetAt(candidate, timeZone) === offset) return candidate;
    const change = firstChange(cursor, candidate, timeZone);
    if (startsHour(change, timeZone)) return change;
    cursor = change;
  }
}
