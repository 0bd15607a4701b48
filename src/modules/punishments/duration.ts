import { ApiError } from '../../errors';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Units, longest spelling first so `mo` is never read as `m` followed by garbage. */
const UNITS: Record<string, number> = { y: 365 * DAY, mo: 30 * DAY, w: 7 * DAY, d: DAY, h: HOUR, m: MINUTE, s: SECOND };
const PART = /(\d{1,6})(mo|y|w|d|h|m|s)/gy;
const PERMANENT_WORDS = new Set(['perm', 'permanent', '0']);
/** Longer than any punishment needs, short enough that its end is a valid date for a century. */
export const MAX_DURATION_MS = 100 * UNITS.y!;

export type Duration = { permanent: true } | { permanent: false; ms: number };

const invalid = (text: string, why: string) =>
  new ApiError('PUNISHMENT_DURATION_INVALID', `duration "${text}" ${why}; write it like 30m, 1d12h, 2w, 2mo or 1y (s, m, h, d, w, mo = 30 days, y = 365 days), or perm`);

/**
 * The duration grammar: one or more `<number><unit>` parts, each unit at most once, spaces
 * between parts allowed, any case; `perm`, `permanent` or `0` for permanent. Anything else
 * (stray characters, a zero total, more than a century) is refused, never guessed.
 */
export function parseDuration(text: string): Duration {
  const trimmed = text.trim().toLowerCase();
  if (PERMANENT_WORDS.has(trimmed)) return { permanent: true };
  const compact = trimmed.replace(/\s+/g, '');
  if (compact === '') throw invalid(text, 'is empty');
  PART.lastIndex = 0;
  const seen = new Set<string>();
  let total = 0;
  let at = 0;
  for (let match = PART.exec(compact); match !== null; match = PART.exec(compact)) {
    const unit = match[2]!;
    if (seen.has(unit)) throw invalid(text, `names the unit "${unit}" twice`);
    seen.add(unit);
    total += Number(match[1]) * UNITS[unit]!;
    at = PART.lastIndex;
  }
  if (at !== compact.length) throw invalid(text, `cannot be read from "${compact.slice(at)}"`);
  if (total === 0) throw invalid(text, 'is zero (it would end before it began)');
  if (total > MAX_DURATION_MS) throw invalid(text, 'is longer than 100 years');
  return { permanent: false, ms: total };
}

/**
 * Time left as players read it: `7d 12h 5m`, `45m`, `30s` under a minute, `permanent` for
 * null. Seconds show only under a minute; zero parts are left out.
 */
export function formatRemaining(ms: number | null): string {
  if (ms === null) return 'permanent';
  const seconds = Math.max(0, Math.ceil(ms / SECOND));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.ceil(ms / MINUTE);
  const days = Math.floor(minutes / (24 * 60));
  const hours = Math.floor((minutes % (24 * 60)) / 60);
  const rest = minutes % 60;
  return [days > 0 ? `${days}d` : '', hours > 0 ? `${hours}h` : '', rest > 0 ? `${rest}m` : ''].filter(Boolean).join(' ');
}
