/**
 * The smart-scaling timetable: weekly rules that raise a group's minimum instance count.
 *
 * A rule's window opens on each listed day at `from` (local wall time in the configured zone)
 * and closes at `to` the same day when to > from; otherwise (to <= from) it is overnight and
 * closes at `to` on the NEXT day, so from == to is a full 24 hours. A FRIDAY 22:00-02:00 rule
 * covers Saturday 01:00 and not Friday 01:00.
 *
 * Rules are judged by the local wall clock, which is what makes clock-change days right: on a
 * spring-forward day a 02:00-03:00 rule does not happen at all (those wall times do not exist)
 * and a 01:00-04:00 rule lasts two real hours; on a fall-back day the repeated hour is inside a
 * window that covers it both times.
 *
 * When a rule next opens (for the warm-up) is its `from` on its days as a cron expression
 * (`0 17 * * 1,5`), computed by the `cron` package through the adapter backups use
 * (src/core/time/cron-adapter.ts): a `from` the clock skips opens at the end of the gap, one it
 * shows twice counts the first time it is shown.
 *
 * A rule with an unparseable from/to or no days is never in force: configuration is validated
 * elsewhere, and the scaling loop must not throw over one bad rule.
 */
import { nextRun } from '../../core/time/cron-adapter';
import { utc } from '../../core/time/zone';
import { DAY_MS, HOUR_MS, localParts, MINUTE_MS, WEEKDAYS, type LocalParts, type Weekday } from './zoned';

export interface ScheduleRule {
  name: string;
  days: readonly Weekday[];
  /** "HH:MM" */
  from: string;
  /** "HH:MM" */
  to: string;
  minInstances: number;
  maxInstances: number | null;
}

const CLOCK = /^(\d{1,2}):(\d{2})$/;

/** "HH:MM" or "H:MM", 00:00..23:59 (surrounding spaces ignored; no seconds) → minutes of the day, null when malformed. */
export function parseClock(text: string): number | null {
  if (typeof text !== 'string') return null;
  const match = CLOCK.exec(text.trim());
  if (!match) return null;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  if (hour > 23 || minute > 59) return null;
  return hour * 60 + minute;
}

const DAY_NAMES: ReadonlyMap<string, Weekday> = new Map(WEEKDAYS.flatMap((day) => [[day, day] as const, [day.slice(0, 3), day] as const]));

/** MON..SUN or MONDAY..SUNDAY, any case, surrounding spaces ignored → Weekday, null otherwise. */
export function parseDay(text: string): Weekday | null {
  if (typeof text !== 'string') return null;
  return DAY_NAMES.get(text.trim().toUpperCase()) ?? null;
}

function previousDay(day: Weekday): Weekday {
  return WEEKDAYS[(WEEKDAYS.indexOf(day) + 6) % 7] ?? day;
}

function activeAtParts(rule: ScheduleRule, local: LocalParts): boolean {
  const from = parseClock(rule.from);
  const to = parseClock(rule.to);
  if (from === null || to === null) return false;
  const overnight = to <= from;
  const now = local.minuteOfDay;
  // Opened today and not yet closed (an overnight window is open until midnight).
  if (rule.days.includes(local.weekday) && now >= from && (overnight || now < to)) return true;
  // Opened yesterday and running past midnight.
  return overnight && now < to && rule.days.includes(previousDay(local.weekday));
}

/** Whether the rule is in force at the instant, in the zone. */
export function ruleActiveAt(rule: ScheduleRule, instantMs: number, timeZone: string): boolean {
  return activeAtParts(rule, localParts(instantMs, timeZone));
}

/** The rule with the highest minInstances among those passing the test (ties: the earlier in the list), or null. */
function highest(rules: readonly ScheduleRule[], test: (rule: ScheduleRule) => boolean): ScheduleRule | null {
  let best: ScheduleRule | null = null;
  for (const rule of rules) {
    if (best !== null && rule.minInstances <= best.minInstances) continue;
    if (test(rule)) best = rule;
  }
  return best;
}

/** The rule in force with the highest minInstances (ties: the earlier in the list), or null. */
export function activeRule(rules: readonly ScheduleRule[], instantMs: number, timeZone: string): ScheduleRule | null {
  const local = localParts(instantMs, timeZone);
  return highest(rules, (rule) => activeAtParts(rule, local));
}

/** cron's day-of-week numbers (Sunday 0). */
const CRON_DAY: Readonly<Record<Weekday, number>> = { SUNDAY: 0, MONDAY: 1, TUESDAY: 2, WEDNESDAY: 3, THURSDAY: 4, FRIDAY: 5, SATURDAY: 6 };

/** The times the rule's windows open: `from` (minutes of the day) on each of its days. */
function opensCron(rule: ScheduleRule, from: number): string {
  const days = [...new Set(rule.days.map((day) => CRON_DAY[day]))].sort((a, b) => a - b);
  return `${from % 60} ${Math.floor(from / 60)} * * ${days.join(',')}`;
}

const wallOfParts = (p: LocalParts): number => utc(p.year, p.month, p.day, p.hour, p.minute);

/**
 * Whether `from` on one of the rule's days is among the local times from `now` to `then`. Between
 * two instants the wall clock stays within their wall times widened by the offset change between
 * them (zones change their offset at most once in 12 hours), so false means the window cannot open
 * in between and the cron search (a few hundred µs in the package) is not needed; true is a maybe.
 */
function fromInSpan(rule: ScheduleRule, from: number, now: LocalParts, then: LocalParts, instantMs: number, untilMs: number): boolean {
  if (untilMs - instantMs > 12 * HOUR_MS) return true;
  const offsetNow = wallOfParts(now) - instantMs;
  const offsetThen = wallOfParts(then) - untilMs;
  // A minute either side: the parts are whole minutes.
  const low = instantMs + Math.min(offsetNow, offsetThen) - MINUTE_MS;
  const high = untilMs + Math.max(offsetNow, offsetThen) + MINUTE_MS;
  for (let day = Math.floor(low / DAY_MS) * DAY_MS; day <= high; day += DAY_MS) {
    const wall = day + from * MINUTE_MS;
    if (wall >= low && wall <= high && rule.days.includes(WEEKDAYS[(new Date(day).getUTCDay() + 6) % 7] as Weekday)) return true;
  }
  return false;
}

/**
 * Whether one of the rule's windows opens in (instantMs, untilMs]. Covers windows shorter than
 * the lead, which a look at untilMs alone would miss (the warm-up would stop before the rule starts).
 */
function opensWithin(rule: ScheduleRule, now: LocalParts, then: LocalParts, instantMs: number, untilMs: number, timeZone: string): boolean {
  const from = parseClock(rule.from);
  if (from === null || parseClock(rule.to) === null || rule.days.length === 0) return false;
  if (!fromInSpan(rule, from, now, then, instantMs, untilMs)) return false;
  const opens = nextRun(opensCron(rule, from), new Date(instantMs), timeZone);
  return opens !== null && opens.getTime() <= untilMs;
}

/**
 * The rule NOT in force now that will be in force within leadMinutes: in force at
 * instant + leadMinutes, or opening at some point up to then. Highest minInstances (ties: the
 * earlier in the list), or null; leadMinutes <= 0 → null.
 */
export function warmupRule(rules: readonly ScheduleRule[], instantMs: number, timeZone: string, leadMinutes: number): ScheduleRule | null {
  if (!(leadMinutes > 0)) return null;
  const until = instantMs + leadMinutes * MINUTE_MS;
  const now = localParts(instantMs, timeZone);
  const then = localParts(until, timeZone);
  return highest(rules, (rule) => !activeAtParts(rule, now) && (activeAtParts(rule, then) || opensWithin(rule, now, then, instantMs, until, timeZone)));
}

/** Of the active and the warm-up rule, the one with the higher minInstances (the active one on a tie), with which it is. */
export function effectiveRule(
  rules: readonly ScheduleRule[],
  instantMs: number,
  timeZone: string,
  leadMinutes: number,
): { rule: ScheduleRule; warmup: boolean } | null {
  const active = activeRule(rules, instantMs, timeZone);
  const warmup = warmupRule(rules, instantMs, timeZone, leadMinutes);
  if (warmup !== null && (active === null || warmup.minInstances > active.minInstances)) return { rule: warmup, warmup: true };
  return active === null ? null : { rule: active, warmup: false };
}
