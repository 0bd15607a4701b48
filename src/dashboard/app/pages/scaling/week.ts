/**
 * A schedule laid on a week: the blocks each rule covers (by day and minute), the warm-up strips
 * ahead of them, what covers an hour cell, and the time now in the schedule's zone. The module's
 * rule reading (src/modules/scaling/schedule.ts) is the one followed: a rule opens on each listed
 * day at `from` and closes at `to` that day when `to` is after `from`, otherwise the next day
 * (from == to is 24 hours), so the part after midnight belongs to the next day's column.
 */
import { WEEKDAYS, type Rule, type Weekday } from './model';

export const DAY_MINUTES = 1440;

export const DAY_NAMES: Readonly<Record<Weekday, string>> = {
  MONDAY: 'Monday',
  TUESDAY: 'Tuesday',
  WEDNESDAY: 'Wednesday',
  THURSDAY: 'Thursday',
  FRIDAY: 'Friday',
  SATURDAY: 'Saturday',
  SUNDAY: 'Sunday',
};
export const DAY_SHORT: Readonly<Record<Weekday, string>> = { MONDAY: 'Mon', TUESDAY: 'Tue', WEDNESDAY: 'Wed', THURSDAY: 'Thu', FRIDAY: 'Fri', SATURDAY: 'Sat', SUNDAY: 'Sun' };

/** "HH:MM" (or "H:MM") from 00:00 to 23:59 → minutes of the day; null otherwise. */
export function parseClock(text: string): number | null {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!match) return null;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  return hour > 23 || minute > 59 ? null : hour * 60 + minute;
}

/** Minutes of the day as "HH:MM" (1440 is "24:00", the end of a day). */
export function clockText(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** A stretch of one day's column: [start, end) in minutes. */
export interface Segment {
  day: number;
  start: number;
  end: number;
  /** The rule's index in the schedule. */
  rule: number;
  kind: 'rule' | 'warmup';
}

/** The blocks a rule covers: one a listed day, and the part after midnight in the next day's column. */
export function ruleSegments(rule: Rule, index: number): Segment[] {
  const from = parseClock(rule.from);
  const to = parseClock(rule.to);
  if (from === null || to === null) return [];
  const segments: Segment[] = [];
  for (const name of rule.days) {
    const day = WEEKDAYS.indexOf(name);
    if (day < 0) continue;
    if (to > from) {
      segments.push({ day, start: from, end: to, rule: index, kind: 'rule' });
      continue;
    }
    segments.push({ day, start: from, end: DAY_MINUTES, rule: index, kind: 'rule' });
    if (to > 0) segments.push({ day: (day + 1) % 7, start: 0, end: to, rule: index, kind: 'rule' });
  }
  return merge(segments);
}

/** Touching or overlapping stretches of the same day, rule and kind as one. */
function merge(segments: Segment[]): Segment[] {
  const sorted = [...segments].sort((a, b) => a.day - b.day || a.start - b.start);
  const out: Segment[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && last.day === s.day && last.rule === s.rule && last.kind === s.kind && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/** [start, end) minus the ranges in `cut` (all on one day). */
function subtract(start: number, end: number, cut: readonly { start: number; end: number }[]): { start: number; end: number }[] {
  let parts = [{ start, end }];
  for (const c of cut) {
    parts = parts.flatMap((p) => {
      if (c.end <= p.start || c.start >= p.end) return [p];
      const left = c.start > p.start ? [{ start: p.start, end: c.start }] : [];
      const right = c.end < p.end ? [{ start: c.end, end: p.end }] : [];
      return [...left, ...right];
    });
  }
  return parts;
}

/**
 * The warm-up ahead of each opening: the `lead` minutes before `from` on each listed day (into
 * the day before when it starts early), where the rule is not already in force.
 */
export function warmupSegments(rule: Rule, index: number, lead: number): Segment[] {
  const from = parseClock(rule.from);
  if (from === null || lead <= 0) return [];
  const own = ruleSegments(rule, index);
  const raw: Segment[] = [];
  for (const name of rule.days) {
    const day = WEEKDAYS.indexOf(name);
    if (day < 0) continue;
    const begin = from - Math.min(lead, DAY_MINUTES);
    if (begin >= 0) raw.push({ day, start: begin, end: from, rule: index, kind: 'warmup' });
    else {
      if (from > 0) raw.push({ day, start: 0, end: from, rule: index, kind: 'warmup' });
      raw.push({ day: (day + 6) % 7, start: DAY_MINUTES + begin, end: DAY_MINUTES, rule: index, kind: 'warmup' });
    }
  }
  const out: Segment[] = [];
  for (const s of raw) {
    const inForce = own.filter((o) => o.day === s.day);
    for (const part of subtract(s.start, s.end, inForce)) out.push({ ...s, ...part });
  }
  return merge(out);
}

/** A block placed in its day's column: side by side with those it overlaps. */
export interface Placed extends Segment {
  lane: number;
  lanes: number;
}

/** Lanes for one day's blocks: a cluster of overlapping blocks shares the column's width. */
export function place(segments: readonly Segment[]): Placed[] {
  const placed: Placed[] = [];
  for (let day = 0; day < 7; day++) {
    const today = segments.filter((s) => s.day === day).sort((a, b) => a.start - b.start || a.kind.localeCompare(b.kind) || a.rule - b.rule);
    let cluster: Placed[] = [];
    let clusterEnd = -1;
    const close = () => {
      const lanes = Math.max(1, ...cluster.map((p) => p.lane + 1));
      for (const p of cluster) p.lanes = lanes;
      placed.push(...cluster);
      cluster = [];
    };
    for (const s of today) {
      if (s.start >= clusterEnd && cluster.length > 0) close();
      const ends: number[] = [];
      for (const p of cluster) ends[p.lane] = Math.max(ends[p.lane] ?? 0, p.end);
      let lane = ends.findIndex((end) => end <= s.start);
      if (lane < 0) lane = ends.length;
      cluster.push({ ...s, lane, lanes: 1 });
      clusterEnd = Math.max(clusterEnd, s.end);
    }
    if (cluster.length > 0) close();
  }
  return placed;
}

/** Every block of a schedule: the rules, and their warm-up when it is on. */
export function weekSegments(rules: readonly Rule[], warmupLead: number | null): Segment[] {
  return rules.flatMap((rule, i) => [...ruleSegments(rule, i), ...(warmupLead === null ? [] : warmupSegments(rule, i, warmupLead))]);
}

/** "at least 3, at most 8" / "at least 3". */
export function boundsText(rule: Pick<Rule, 'minInstances' | 'maxInstances'>): string {
  return `at least ${rule.minInstances}${rule.maxInstances === null ? '' : `, at most ${rule.maxInstances}`}`;
}

/** What covers the hour `hour` of `day`, in words (the cell's accessible name). */
export function cellText(day: number, hour: number, rules: readonly Rule[], segments: readonly Segment[]): string {
  const start = hour * 60;
  const end = start + 60;
  const covering = segments.filter((s) => s.day === day && s.start < end && s.end > start);
  const where = `${DAY_NAMES[WEEKDAYS[day]!]} ${clockText(start)} to ${clockText(end)}`;
  if (covering.length === 0) return `${where}: no rule`;
  const parts = covering
    .sort((a, b) => (a.kind === b.kind ? a.rule - b.rule : a.kind === 'rule' ? -1 : 1))
    .map((s) => {
      const rule = rules[s.rule]!;
      const partly = s.start > start ? ` from ${clockText(s.start)}` : s.end < end ? ` until ${clockText(s.end)}` : '';
      return s.kind === 'rule' ? `rule ${rule.name} (${boundsText(rule)})${partly}` : `warm-up for rule ${rule.name}${partly}`;
    });
  return `${where}: ${parts.join('; ')}`;
}

/** The rule an activated cell edits: the covering rule with the highest minimum (as the engine picks), or null. */
export function ruleAt(day: number, hour: number, rules: readonly Rule[], segments: readonly Segment[]): number | null {
  const start = hour * 60;
  let best: number | null = null;
  for (const s of segments) {
    if (s.kind !== 'rule' || s.day !== day || s.start >= start + 60 || s.end <= start) continue;
    if (best === null || rules[s.rule]!.minInstances > rules[best]!.minInstances) best = s.rule;
  }
  return best;
}

/** The rule's window in words: "18:00 to 02:00 the next day", "all day from 00:00". */
export function windowText(rule: Pick<Rule, 'from' | 'to'>): string {
  const from = parseClock(rule.from);
  const to = parseClock(rule.to);
  if (from === null || to === null) return `${rule.from} to ${rule.to}`;
  if (from === to) return from === 0 ? 'all day' : `24 hours from ${rule.from}`;
  return to > from ? `${rule.from} to ${rule.to}` : `${rule.from} to ${rule.to} the next day`;
}

/** The days in words: "every day", "Monday to Friday", "Fri, Sat, Sun". */
export function daysText(days: readonly Weekday[]): string {
  const indexes = [...new Set(days.map((d) => WEEKDAYS.indexOf(d)).filter((i) => i >= 0))].sort((a, b) => a - b);
  if (indexes.length === 7) return 'every day';
  if (indexes.length === 0) return 'no day';
  const consecutive = indexes.length >= 3 && indexes.every((d, i) => i === 0 || d === indexes[i - 1]! + 1);
  if (consecutive) return `${DAY_NAMES[WEEKDAYS[indexes[0]!]!]} to ${DAY_NAMES[WEEKDAYS[indexes[indexes.length - 1]!]!]}`;
  if (indexes.length === 1) return DAY_NAMES[WEEKDAYS[indexes[0]!]!];
  return indexes.map((i) => DAY_SHORT[WEEKDAYS[i]!]).join(', ');
}

const SHORT_DAYS: readonly string[] = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** The day (0 = Monday) and minute of the day at `ms` in the zone; null for a zone this browser does not know. */
export function localNow(ms: number, timeZone: string): { day: number; minute: number } | null {
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms);
    const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
    const day = SHORT_DAYS.indexOf(get('weekday'));
    const hour = Number(get('hour')) % 24;
    const minute = Number(get('minute'));
    if (day < 0 || !Number.isFinite(hour) || !Number.isFinite(minute)) return null;
    return { day, minute: hour * 60 + minute };
  } catch {
    return null;
  }
}

/** Whether this browser knows the zone (the controller checks it again on save). */
export function knownTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
