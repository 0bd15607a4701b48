import { offsetAt, wallOf } from '../../core/time/zone';

export { canonicalTimeZone, isValidTimeZone, machineTimeZone } from '../../core/time/zone';
/**
 * Five-field cron expressions for the backup schedules, evaluated in an IANA time zone.
 *
 * Why not the `cron` package's CronTime: it was checked (test/modules/backup/cron.test.ts runs it
 * as an oracle on plain expressions, where it agrees with this file), but it is not right where
 * it matters here, so parsing and matching are implemented in this file:
 * - Its day rule decides "restricted" by counting values, not by the field's text: `0 0 1-31 * 1`
 *   fires only on Mondays (cron fires every day) and `0 0 *\/2 * 1` fires on Mondays OR odd
 *   days (cron: odd days that are Mondays).
 * - On the day the clock falls back it fires a fixed-time job a second time when asked for the
 *   next run from inside the repeated hour, and it gives no per-minute test for a scheduler tick.
 * - It also takes six fields (seconds) and `@daily`, its errors do not say which field is wrong
 *   ("Field value (60) is out of range"), and its search gives up 8 years after the real clock's
 *   now with an exception rather than answering "never".
 *
 * The semantics, as cronie (the cron most Linux hosts run) has them:
 * - Fields: minute 0-59, hour 0-23, day-of-month 1-31, month 1-12 (or JAN-DEC), day-of-week
 *   0-7 (0 and 7 are Sunday; or SUN-SAT). Each is a comma list of `*`, `N`, `a-b`, `*\/n`,
 *   `a-b/n` and `N/n` (N up to the field's maximum). Names are case-insensitive.
 * - Day rule (POSIX): when both day-of-month and day-of-week are restricted, a day matches if
 *   EITHER matches (`0 0 13 * 5` = the 13th and every Friday). A field whose text starts with `*`
 *   (`*`, `*\/2`) counts as unrestricted, and then both must match (`0 0 *\/2 * 1` = odd days
 *   that are Mondays).
 * - Clock changes (daylight saving time): a job whose hour field covers every hour (`0 * * * *`,
 *   `*\/15 * * * *`) follows real time: nothing is made up for minutes the clock skips, and the
 *   repeated hour fires again. Any other job is a time-of-day job: a time the clock skips runs
 *   at the first minute after the jump (`30 2 * * *` runs at 03:00 on the spring-forward day in
 *   Europe/Berlin, so the daily backup is not lost), and a time the clock shows twice runs only
 *   the first time (once on the fall-back day).
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** How far nextRun looks ahead. */
const HORIZON_DAYS = 366;

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

interface Compiled {
  minutes: boolean[];
  hours: boolean[];
  days: boolean[];
  months: boolean[];
  /** 0-6, Sunday 0 (a 7 is folded into 0). */
  weekdays: boolean[];
  /** The POSIX OR rule applies: neither day field starts with `*`. */
  eitherDay: boolean;
  /** The hour field covers all 24 hours: the job follows real time across clock changes. */
  everyHour: boolean;
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

function parseField(text: string, spec: FieldSpec): boolean[] {
  const set = new Array<boolean>(spec.max + 1).fill(false);
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
    for (let v = from; v <= to; v += step) set[v] = true;
  }
  return set;
}

const compiled = new Map<string, Compiled>();

function compile(expression: string): Compiled {
  if (typeof expression !== 'string') throw new CronSyntaxError('must be a text of five fields');
  const cached = compiled.get(expression);
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
  const [, , day = '', , weekday = ''] = parts;
  const sets = parts.map((text, i) => parseField(text, FIELDS[i] as FieldSpec));
  const weekdays = (sets[4] as boolean[]).slice(0, 7);
  if (sets[4]?.[7]) weekdays[0] = true;
  const result: Compiled = {
    minutes: sets[0] as boolean[],
    hours: sets[1] as boolean[],
    days: sets[2] as boolean[],
    months: sets[3] as boolean[],
    weekdays,
    eitherDay: !day.startsWith('*') && !weekday.startsWith('*'),
    everyHour: (sets[1] as boolean[]).every(Boolean),
  };
  neverFires(result);
  if (compiled.size >= 256) compiled.clear();
  compiled.set(expression, result);
  return result;
}

const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Refuses a date no calendar has (`0 0 30 2 *`): such a schedule would silently never run. */
function neverFires(c: Compiled): void {
  // With the OR rule (or an all-days weekday field) some weekday always comes round.
  if (c.eitherDay) return;
  for (let m = 1; m <= 12; m++) {
    if (!c.months[m]) continue;
    for (let d = 1; d <= (MONTH_DAYS[m - 1] as number); d++) if (c.days[d]) return;
  }
  throw new CronSyntaxError('day-of-month field: no month in the month field has that day, so it would never run');
}

/**
 * Throws an Error with a message a person can act on (which field, what is wrong) for a bad
 * expression. Also refuses a day-of-month no chosen month has (`0 0 31 2 *`).
 */
export function validateCron(expression: string): void {
  compile(expression);
}

// ---------------------------------------------------------------------------------------------
// Wall clock: "wall" times are the local date and time of a zone written as if they were UTC
// milliseconds (see core/time/zone.ts, which this shares with smart scaling).

/** Every instant (0, 1 or 2) whose wall time is `wall`, earliest first. */
function instantsOf(wall: number, timeZone: string): number[] {
  const offsets = new Set([offsetAt(wall - DAY, timeZone), offsetAt(wall, timeZone), offsetAt(wall + DAY, timeZone)]);
  const found = new Set<number>();
  for (const offset of offsets) {
    const instant = wall - offset;
    if (wallOf(instant, timeZone) === wall) found.add(instant);
  }
  return [...found].sort((a, b) => a - b);
}

/** For a wall time the clock skips: the first instant after the jump. */
function endOfGap(wall: number, timeZone: string): number {
  const offsets = [offsetAt(wall - DAY, timeZone), offsetAt(wall, timeZone), offsetAt(wall + DAY, timeZone)];
  // Before the jump the offset is the smaller one: the instant (wall - larger offset) is before it.
  let before = wall - Math.max(...offsets);
  let after = wall - Math.min(...offsets);
  const offsetBefore = offsetAt(before, timeZone);
  // Binary search over whole minutes for the first with the new offset (clock changes are on minutes).
  before = Math.floor(before / MINUTE) * MINUTE;
  after = Math.ceil(after / MINUTE) * MINUTE;
  while (after - before > MINUTE) {
    const mid = before + Math.floor((after - before) / MINUTE / 2) * MINUTE;
    if (offsetAt(mid, timeZone) === offsetBefore) before = mid;
    else after = mid;
  }
  return after;
}

function matchesWall(c: Compiled, wall: number): boolean {
  const d = new Date(wall);
  if (!c.minutes[d.getUTCMinutes()] || !c.hours[d.getUTCHours()]) return false;
  return matchesDay(c, wall);
}

function matchesDay(c: Compiled, wall: number): boolean {
  const d = new Date(wall);
  if (!c.months[d.getUTCMonth() + 1]) return false;
  const byDate = c.days[d.getUTCDate()] === true;
  const byWeekday = c.weekdays[d.getUTCDay()] === true;
  return c.eitherDay ? byDate || byWeekday : byDate && byWeekday;
}

/** Whether the expression fires in the minute containing `at` (the scheduler's tick). */
export function firesAt(expression: string, at: Date, timeZone: string): boolean {
  const c = compile(expression);
  const minute = Math.floor(at.getTime() / MINUTE) * MINUTE;
  const wall = Math.floor(wallOf(minute, timeZone) / MINUTE) * MINUTE;
  if (matchesWall(c, wall)) {
    if (c.everyHour) return true;
    // A time-of-day job fires on the first of two instants that show the same time.
    return (instantsOf(wall, timeZone)[0] ?? minute) >= minute;
  }
  if (c.everyHour) return false;
  // The first minute after the clock jumped forward also runs what the jump skipped.
  const previous = Math.floor(wallOf(minute - MINUTE, timeZone) / MINUTE) * MINUTE;
  for (let skipped = previous + MINUTE; skipped < wall && wall - previous <= DAY; skipped += MINUTE) {
    if (matchesWall(c, skipped)) return true;
  }
  return false;
}

/** The instants a wall time of the expression fires at, under the clock-change rules above. */
function firingInstants(c: Compiled, wall: number, timeZone: string): number[] {
  const instants = instantsOf(wall, timeZone);
  if (c.everyHour) return instants;
  if (instants.length === 0) return [endOfGap(wall, timeZone)];
  return instants.slice(0, 1);
}

/**
 * The next time strictly after `after` the expression fires, in `timeZone` (IANA), to the
 * minute; null if none within 366 days. Agrees with firesAt: it is the first minute after
 * `after` for which firesAt is true.
 */
export function nextRun(expression: string, after: Date, timeZone: string): Date | null {
  const c = compile(expression);
  const first = Math.floor(after.getTime() / MINUTE) * MINUTE + MINUTE;
  const limit = after.getTime() + HORIZON_DAYS * DAY;
  const startWall = wallOf(first, timeZone);
  // From the day before: a skipped time late on one day may run early the next.
  let day = Math.floor(startWall / DAY) * DAY - DAY;
  const lastDay = Math.floor(wallOf(limit, timeZone) / DAY) * DAY + DAY;
  const hours = c.hours.flatMap((on, h) => (on ? [h] : []));
  const minutes = c.minutes.flatMap((on, m) => (on ? [m] : []));
  for (; day <= lastDay; day += DAY) {
    if (!matchesDay(c, day)) continue;
    // A day without a clock change (the offset is the same on both sides of all its instants,
    // which lie within 14 h of its wall times) maps wall to instant by one offset, in order.
    const offsets = [offsetAt(day - 14 * HOUR, timeZone), offsetAt(day + 12 * HOUR, timeZone), offsetAt(day + DAY + 14 * HOUR, timeZone)];
    const low = Math.min(...offsets);
    const high = Math.max(...offsets);
    let best: number | null = null;
    walls: for (const h of hours) {
      for (const m of minutes) {
        const wall = day + h * HOUR + m * MINUTE;
        if (low === high) {
          if (wall - low < first) continue;
          best = wall - low;
          break walls;
        }
        // A clock-change day: every instant of `wall` lies in [wall - high, wall - low].
        if (wall - low < first) continue;
        if (best !== null && wall - high > best) break walls;
        for (const instant of firingInstants(c, wall, timeZone)) {
          if (instant >= first && (best === null || instant < best)) best = instant;
        }
      }
    }
    // Instants of a later day are later (clock changes never reorder whole days).
    if (best !== null) return best <= limit ? new Date(best) : null;
  }
  return null;
}
