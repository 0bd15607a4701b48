/**
 * The punishments module's duration grammar, read here as the API reads it
 * (src/modules/punishments/duration.ts) so the form shows what a duration means before it is
 * sent: one or more `<number><unit>` parts (s, m, h, d, w, mo = 30 days, y = 365 days), each
 * unit at most once, spaces between parts allowed, any case; `perm`, `permanent` or `0` for
 * permanent. Stray characters, a zero total or more than a century are refused. The API has
 * the last word: its refusal is shown when it disagrees.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const UNITS: Record<string, number> = { y: 365 * DAY, mo: 30 * DAY, w: 7 * DAY, d: DAY, h: HOUR, m: MINUTE, s: SECOND };
const PERMANENT_WORDS = new Set(['perm', 'permanent', '0']);
const MAX_MS = 100 * 365 * DAY;

export const DURATION_HELP = 'Like 30m, 1d12h, 2w, 2mo or 1y (s, m, h, d, w, mo = 30 days, y = 365 days), or perm.';

export type ParsedDuration = { ok: true; permanent: true } | { ok: true; permanent: false; ms: number } | { ok: false; problem: string };

const refused = (text: string, why: string): ParsedDuration => ({ ok: false, problem: `“${text}” ${why}. ${DURATION_HELP}` });

export function parseDuration(text: string): ParsedDuration {
  const trimmed = text.trim().toLowerCase();
  if (PERMANENT_WORDS.has(trimmed)) return { ok: true, permanent: true };
  const compact = trimmed.replace(/\s+/g, '');
  if (compact === '') return refused(text, 'is empty');
  const part = /(\d{1,6})(mo|y|w|d|h|m|s)/y;
  const seen = new Set<string>();
  let total = 0;
  let at = 0;
  for (let match = part.exec(compact); match !== null; match = part.exec(compact)) {
    const unit = match[2]!;
    if (seen.has(unit)) return refused(text, `names the unit “${unit}” twice`);
    seen.add(unit);
    total += Number(match[1]) * UNITS[unit]!;
    at = part.lastIndex;
  }
  if (at !== compact.length) return refused(text, `cannot be read from “${compact.slice(at)}”`);
  if (total === 0) return refused(text, 'is zero (it would end before it began)');
  if (total > MAX_MS) return refused(text, 'is longer than 100 years');
  return { ok: true, permanent: false, ms: total };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A span in words, largest parts first: `1 day 12 hours`, `45 minutes`, `30 seconds`. */
export function spanText(ms: number): string {
  let rest = Math.max(0, Math.round(ms / SECOND));
  const parts: string[] = [];
  for (const [size, word] of [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(plural(n, word));
  }
  return parts.length === 0 ? '0 seconds' : parts.slice(0, 3).join(' ');
}

/** Time left as a short phrase: `in 2 hours 5 minutes`, `ended`. */
export function remainingText(untilMs: number, now: number): string {
  const left = untilMs - now;
  if (left <= 0) return 'ended';
  // Whole minutes above a minute, so it does not read as more precise than the page's clock.
  return `in ${spanText(left < MINUTE ? left : Math.ceil(left / MINUTE) * MINUTE)}`;
}

/** A moment as the operator's browser writes dates. */
export function dateText(iso: string | number): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
