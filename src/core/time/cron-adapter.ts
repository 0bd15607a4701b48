import type { CronTime } from 'cron';
import { offsetAt, wallOf } from './zone';

/**
 * Five-field cron expressions on the wall clock of an IANA time zone, as cronie (the cron most
 * Linux hosts run) reads them, for every schedule svc keeps: backup schedules and the opening
 * times of smart-scaling rules. The `cron` package's CronTime finds the next local date and time
 * an expression names; this adapter stands between it and the schedules where the package is not
 * what cronie does:
 *
 * 1. Input is checked here, field by field, and handed over rewritten (normaliseCron): every field
 *    as `*` or a plain list of numbers. The package's own errors do not name the field
 *    ("Field value (60) is out of range"), and its grammar is wider than cronie's: six fields
 *    (the first is seconds) and `@daily` are refused here, as cronie has neither.
 * 2. Day rule. cronie ORs day-of-month and day-of-week when neither field's text starts with
 *    `*`, and ANDs them otherwise; the package decides by counting values (a field holding every
 *    value is unrestricted; two restricted fields are ORed). Where that differs, the handed-over
 *    fields are rewritten: `0 0 1-31 * 1` (OR with a whole month: every day) goes over as
 *    `0 0 * * *`; `0 0 *\/2 * 1` (AND of two restricted fields, which the package cannot say)
 *    goes over with day-of-week `*`, and the weekday is checked here on what comes back.
 * 3. Clock changes. The package is asked for local wall times only (CronTime in UTC over local
 *    time written as UTC), and the instants are worked out here. Given the zone, its own answers
 *    around a change are wrong in ways no check on the answer can repair (measured on the 12
 *    changes of 2026 in 6 zones with 14 expressions: 42 of the 168 differ, among them `0 3 * * *`
 *    run at 02:00 on the Berlin fall-back day, a second run in the repeated hour, a skipped time
 *    moved by the size of the jump wherever 1 January is summer time, and 9 answers earlier than
 *    the time asked from).
 *    The rules (cronie's, as svc has always applied them):
 *    - A job whose hour field covers all 24 hours (`0 * * * *`, `*\/15 * * * *`) follows real
 *      time: nothing is made up for minutes the clock skips, and the repeated hour runs again.
 *    - Any other job is a time-of-day job: a time the clock skips runs at the first minute after
 *      the jump (`30 2 * * *` runs at 03:00 on the Berlin spring-forward day, so the daily backup
 *      is not lost), and a time the clock shows twice runs the first time only.
 * 4. The package (and luxon under it) is loaded on the first run computed, not with this file:
 *    checking an expression needs only the parser here, so the controller's start never pays for
 *    it, and a controller without schedules never loads it. (Measured in the binary: the first
 *    run computed takes ~20 ms and leaves ~6 MiB more resident, luxon and the ICU data it sets up.)
 * 5. Horizon: "never" is an answer (null when nothing runs within 366 days). The package's own
 *    search throws once it passes 8 years after the real clock's now; the adapter never asks it
 *    past its horizon, so that is out of reach while the time asked about is within 7 years of
 *    the real clock.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** How far nextRun looks ahead. */
const HORIZON = 366 * DAY;

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  { name: 'day-of-week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/** An expression as the package is given it, with what the adapter keeps for itself. */
export interface NormalisedCron {
  /** Five fields, each `*` or a list of numbers and ranges (`0 3 * * 0`, `10-40 8,13,18 1,3,5 * *`). */
  expression: string;
  /** Weekdays (0 Sunday .. 6) a day must ALSO be on, checked here (cronie's AND of two restricted day fields); null when the package's day rule is already right. */
  weekdays: readonly number[] | null;
  /** The hour field covers all 24 hours: runs follow real time across clock changes. */
  followsRealTime: boolean;
}

class CronSyntaxError extends Error {}

/** A number or a name of the field (names are 0-based for weekdays, 1-based for months). */
function value(text: string, spec: FieldSpec): number {
  if (/^\d+$/.test(text)) {
    const n = Number.parseInt(text, 10);
    if (n < spec.min || n > spec.max) throw new CronSyntaxError(`${spec.name} field: ${text} is out of range ${spec.min}-${spec.max}`);
    return n;
  }
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index >= 0) return spec.name === 'month' ? index + 1 : index;
  const hint = spec.names ? ` (a number ${spec.min}-${spec.max} or a name like ${spec.names[1]})` : ` (a number ${spec.min}-${spec.max})`;
  throw new CronSyntaxError(`${spec.name} field: ${JSON.stringify(text)} is not a value${hint}`);
}

/** The field's values: `*`, `N`, `a-b`, `*\/n`, `a-b/n`, `N/n` (N up to the maximum), comma lists of them. */
function parseField(text: string, spec: FieldSpec): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    if (item === '') throw new CronSyntaxError(`${spec.name} field: ${JSON.stringify(text)} has an empty list entry`);
    const [range = '', stepText, ...extra] = item.split('/');
    if (extra.length > 0) throw new CronSyntaxError(`${spec.name} field: ${JSON.stringify(item)} has more than one step`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText)) throw new CronSyntaxError(`${spec.name} field: the step in ${JSON.stringify(item)} must be a whole number`);
      step = Number.parseInt(stepText, 10);
      if (step < 1) throw new CronSyntaxError(`${spec.name} field: the step in ${JSON.stringify(item)} must be at least 1`);
    }
    let from: number;
    let to: number;
    if (range === '*') {
      from = spec.min;
      to = spec.max;
    } else if (range.includes('-')) {
      const [a = '', b = '', ...more] = range.split('-');
      if (more.length > 0 || a === '' || b === '') throw new CronSyntaxError(`${spec.name} field: ${JSON.stringify(item)} is not a range like 1-5`);
      from = value(a, spec);
      to = value(b, spec);
      if (from > to) throw new CronSyntaxError(`${spec.name} field: the range ${range} is reversed (write ${b}-${a}, or a list)`);
    } else {
      from = value(range, spec);
      // `N/n` means N, N+n, ... up to the maximum; a bare N is just N.
      to = stepText === undefined ? from : spec.max;
    }
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

/** `*` for every value of [min, max], otherwise the values ascending with runs written a-b. */
function render(values: ReadonlySet<number>, min: number, max: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === max - min + 1) return '*';
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]));
    i = j + 1;
  }
  return parts.join(',');
}

const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const normalised = new Map<string, NormalisedCron>();

/**
 * Checks the expression and rewrites it for the package (see the header). Throws an Error whose
 * message names the field and what is wrong with it.
 */
export function normaliseCron(expression: string): NormalisedCron {
  if (typeof expression !== 'string') throw new CronSyntaxError('must be a text of five fields');
  const cached = normalised.get(expression);
  if (cached) return cached;
  const parts = expression.trim().split(/\s+/).filter((p) => p !== '');
  if (parts.length !== 5) {
    const hint = expression.trim().startsWith('@')
      ? '; shortcuts like @daily are not supported (write 0 0 * * *)'
      : parts.length === 6
        ? '; seconds are not supported'
        : '';
    throw new CronSyntaxError(`must have five fields (minute hour day-of-month month day-of-week), got ${parts.length}${hint}`);
  }
  const [minutes, hours, days, months, weekdaysWith7] = parts.map((text, i) => parseField(text, FIELDS[i] as FieldSpec)) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  // 7 is Sunday too.
  const weekdays = new Set([...weekdaysWith7].map((d) => d % 7));
  const allDays = days.size === 31;
  const allWeekdays = weekdays.size === 7;
  // cronie: a day field whose text starts with `*` is unrestricted, and then both must match.
  const and = (parts[2] as string).startsWith('*') || (parts[4] as string).startsWith('*');
  if (and) neverFires(days, months);
  let dayField = render(days, 1, 31);
  let weekdayField = render(weekdays, 0, 6);
  let ownWeekdays: number[] | null = null;
  if (and && !allDays && !allWeekdays) {
    // Both restricted: the package would OR them. It gets the days of the month; the weekdays are checked here.
    ownWeekdays = [...weekdays].sort((a, b) => a - b);
    weekdayField = '*';
  } else if (!and && (allDays || allWeekdays)) {
    // OR with a field that takes every day: every day (the package would apply the other field alone).
    dayField = '*';
    weekdayField = '*';
  }
  const result: NormalisedCron = {
    expression: [render(minutes, 0, 59), render(hours, 0, 23), dayField, render(months, 1, 12), weekdayField].join(' '),
    weekdays: ownWeekdays,
    followsRealTime: hours.size === 24,
  };
  if (normalised.size >= 256) normalised.clear();
  normalised.set(expression, result);
  return result;
}

/** Refuses a date no calendar has (`0 0 30 2 *`) under the AND rule: such a schedule would silently never run. */
function neverFires(days: ReadonlySet<number>, months: ReadonlySet<number>): void {
  for (const m of months) {
    for (let d = 1; d <= (MONTH_DAYS[m - 1] as number); d++) if (days.has(d)) return;
  }
  throw new CronSyntaxError('day-of-month field: no month in the month field has that day, so it would never run');
}

/**
 * Throws an Error with a message a person can act on (which field, what is wrong) for a bad
 * expression. Also refuses a day-of-month no chosen month has (`0 0 31 2 *`). Never loads the
 * package.
 */
export function validateCron(expression: string): void {
  normaliseCron(expression);
}

// ---------------------------------------------------------------------------------------------
// The package, loaded on first use.

type CronPackage = typeof import('cron');
let cronPackage: CronPackage | undefined;
const times = new Map<string, CronTime>();

function cronTimeOf(schedule: NormalisedCron): CronTime {
  const cached = times.get(schedule.expression);
  if (cached) return cached;
  // A synchronous require, so schedules stay plain function calls; the bundler keeps the
  // package's code unevaluated until this line runs.
  cronPackage ??= require('cron') as CronPackage;
  const time = new cronPackage.CronTime(schedule.expression, 'UTC');
  if (times.size >= 256) times.clear();
  times.set(schedule.expression, time);
  return time;
}

/**
 * The first wall minute after `wall` the expression names, up to `limitWall` (null past it).
 * "Wall" times are local dates and times written as if they were UTC milliseconds, so the
 * package, in UTC, searches the local calendar with no clock change in the way.
 */
function nextWall(schedule: NormalisedCron, wall: number, limitWall: number): number | null {
  const time = cronTimeOf(schedule);
  let cursor = wall;
  for (;;) {
    // From the last second of the cursor's minute: the package answers strictly after it, in whole minutes.
    const next = time.getNextDateFrom(new Date(Math.floor(cursor / MINUTE) * MINUTE + 59_000), 'UTC').toMillis();
    if (next > limitWall) return null;
    if (schedule.weekdays === null || schedule.weekdays.includes(new Date(next).getUTCDay())) return next;
    // A day the AND rule refuses: on from its last minute.
    cursor = Math.floor(next / DAY) * DAY + DAY - MINUTE;
  }
}

// ---------------------------------------------------------------------------------------------
// Wall time to instants.

/** The offsets the zone has around a wall time or instant: every offset of an instant within a day of it. */
function offsetsNear(t: number, timeZone: string): [number, number, number] {
  return [offsetAt(t - DAY, timeZone), offsetAt(t, timeZone), offsetAt(t + DAY, timeZone)];
}

/** Every instant (0, 1 or 2) whose wall time is `wall`, earliest first. */
function instantsOf(wall: number, offsets: readonly number[], timeZone: string): number[] {
  const found = new Set<number>();
  for (const offset of offsets) {
    const instant = wall - offset;
    if (wallOf(instant, timeZone) === wall) found.add(instant);
  }
  return [...found].sort((a, b) => a - b);
}

/** For a wall time the clock skips: the first instant after the jump. */
function endOfGap(wall: number, offsets: readonly number[], timeZone: string): number {
  // Before the jump the offset is the smaller one: the instant (wall - larger offset) is before it.
  let before = Math.floor((wall - Math.max(...offsets)) / MINUTE) * MINUTE;
  let after = Math.ceil((wall - Math.min(...offsets)) / MINUTE) * MINUTE;
  const offsetBefore = offsetAt(before, timeZone);
  // Clock changes are on whole minutes: a binary search over minutes finds the first with the new offset.
  while (after - before > MINUTE) {
    const mid = before + Math.floor((after - before) / MINUTE / 2) * MINUTE;
    if (offsetAt(mid, timeZone) === offsetBefore) before = mid;
    else after = mid;
  }
  return after;
}

/**
 * The first run at or after `first` (a whole minute) and not after `limit`, or null.
 *
 * The earliest instant of a wall time (for a skipped one, the end of the gap) never decreases as
 * the wall time grows, so a time-of-day job's answer is the first candidate at or after `first`.
 * A real-time job also runs in the second pass of a repeated hour, whose instants come after the
 * first pass of later wall times: it takes the smallest instant until a candidate's earliest
 * instant passes the best found.
 */
function runFrom(schedule: NormalisedCron, first: number, limit: number, timeZone: string): number | null {
  // No instant at or after `first` shows a wall time before first + (its smallest offset nearby).
  let wall = first + Math.min(...offsetsNear(first, timeZone)) - MINUTE;
  const limitWall = limit + Math.max(...offsetsNear(limit, timeZone));
  let best: number | null = null;
  for (;;) {
    const next = nextWall(schedule, wall, limitWall);
    if (next === null) break;
    wall = next;
    const offsets = offsetsNear(wall, timeZone);
    const steady = offsets[0] === offsets[1] && offsets[1] === offsets[2];
    const instants = steady ? [wall - offsets[1]] : instantsOf(wall, offsets, timeZone);
    const earliest = instants[0] ?? endOfGap(wall, offsets, timeZone);
    if (best !== null && earliest >= best) break;
    if (earliest > limit) break;
    if (!schedule.followsRealTime) {
      // A time shown twice runs the first time only; a skipped one at the end of the gap.
      if (earliest >= first) return earliest;
      continue;
    }
    for (const instant of instants) if (instant >= first && (best === null || instant < best)) best = instant;
    // No clock change within a day of this wall time: nothing later can come before it.
    if (steady && best !== null) break;
  }
  return best !== null && best <= limit ? best : null;
}

/**
 * The last answer per expression and zone: no run in [from, run) (or in [from, to] when run is
 * null), so a question whose `first` lies in between has the same answer. The package's search
 * costs 0.3-0.6 ms a call (luxon arithmetic for every hour and minute it steps over), and the
 * same schedules are asked about every minute (backups) or every engine tick (smart scaling).
 */
interface Known {
  from: number;
  run: number | null;
  to: number;
}
const known = new Map<string, Known>();

function runAtOrAfter(expression: string, first: number, limit: number, timeZone: string): number | null {
  const schedule = normaliseCron(expression);
  const key = `${timeZone}\u0000${expression}`;
  const last = known.get(key);
  if (last && first >= last.from) {
    if (last.run !== null && first <= last.run) return last.run <= limit ? last.run : null;
    if (last.run === null && limit <= last.to) return null;
  }
  const to = Math.max(limit, first + HORIZON);
  const run = runFrom(schedule, first, to, timeZone);
  if (known.size >= 256) known.clear();
  known.set(key, { from: first, run, to });
  return run !== null && run <= limit ? run : null;
}

/**
 * The next time strictly after `after` the expression runs in `timeZone` (IANA), to the minute;
 * null if none within 366 days. Agrees with firesAt: it is the first minute after `after` for
 * which firesAt is true.
 */
export function nextRun(expression: string, after: Date, timeZone: string): Date | null {
  const first = Math.floor(after.getTime() / MINUTE) * MINUTE + MINUTE;
  const run = runAtOrAfter(expression, first, after.getTime() + HORIZON, timeZone);
  return run === null ? null : new Date(run);
}

/** Whether the expression runs in the minute containing `at` (any instant inside it). */
export function firesAt(expression: string, at: Date, timeZone: string): boolean {
  const minute = Math.floor(at.getTime() / MINUTE) * MINUTE;
  return runAtOrAfter(expression, minute, minute, timeZone) === minute;
}
