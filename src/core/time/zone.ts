import { readlinkSync } from 'node:fs';
/**
 * Time-zone primitives shared by every schedule (backup cron, smart scaling): the wall time of
 * an instant in an IANA zone and the zone's offset, from Intl. A "wall" time is the local date
 * and time written as if it were UTC milliseconds, so calendar arithmetic on it is plain UTC
 * arithmetic.
 */

/**
 * UTC needs no time-zone data: its offset is always 0. Answering it here keeps the runtime's
 * ICU calendar (~5 MiB resident once loaded) out of a controller whose schedules run in UTC,
 * which is what most servers use.
 */
const UTC = 'UTC';

// One formatter per zone: building one costs far more than formatting with it, and the scaling
// loop asks for the same few zones many times a second.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  const cached = formatters.get(timeZone);
  if (cached) return cached;
  // Throws RangeError for a zone the runtime does not know; nothing is cached then.
  const created = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    // Seconds too: historic offsets (local mean time) are not whole minutes, and offsets must be exact.
    second: 'numeric',
  });
  formatters.set(timeZone, created);
  return created;
}

/** Date.UTC for any Common Era year (Date.UTC maps years 0-99 to 1900-1999). */
export function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (year >= 100 || year < 0) return ms;
  const d = new Date(ms);
  d.setUTCFullYear(year, month - 1, day);
  return d.getTime();
}

/** The wall time of the whole second that contains the instant. */
function wallOfSecond(instantMs: number, timeZone: string): number {
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of formatter(timeZone).formatToParts(new Date(instantMs))) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
    // Some engines still print midnight as 24 even with h23.
    else if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minute = Number(part.value);
    else if (part.type === 'second') second = Number(part.value);
  }
  return utc(year, month, day, hour, minute, second);
}

/** Offsets already computed, by zone and exact second: a scaling tick asks for the same few instants (hour starts, the weeks before) for every group of a zone. */
const offsets = new Map<string, number>();
const MAX_CACHED_OFFSETS = 4096;

/** The zone's offset (wall - instant) in force at the instant, in milliseconds. */
export function offsetAt(instantMs: number, timeZone: string): number {
  if (timeZone === UTC) return 0;
  const second = Math.floor(instantMs / 1000) * 1000;
  const key = `${timeZone}\u0000${second}`;
  const cached = offsets.get(key);
  if (cached !== undefined) return cached;
  const offset = wallOfSecond(second, timeZone) - second;
  if (offsets.size >= MAX_CACHED_OFFSETS) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/** The wall time of the instant, to the millisecond. */
export function wallOf(instantMs: number, timeZone: string): number {
  return instantMs + offsetAt(instantMs, timeZone);
}

/** Whether the runtime knows the zone (IANA names like Europe/Berlin, UTC; Intl also takes offsets like +01:00). Never throws. */
export function isValidTimeZone(timeZone: string): boolean {
  if (typeof timeZone !== 'string' || timeZone.trim() === '') return false;
  if (timeZone === UTC) return true;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Names the system uses for UTC (TZ, or where /etc/localtime points under zoneinfo/). */
const UTC_ALIASES = new Set(['UTC', 'UCT', 'GMT', 'GMT0', 'Universal', 'Zulu', 'Greenwich', 'Etc/UTC', 'Etc/UCT', 'Etc/GMT', 'Etc/GMT0', 'Etc/Universal', 'Etc/Zulu', 'Etc/Greenwich']);

/**
 * The zone this process runs in (honours TZ); 'UTC' when the runtime reports none. A machine
 * set to UTC is recognised from TZ or the /etc/localtime link without loading the runtime's
 * zone data; any other zone is asked of Intl.
 */
export function machineTimeZone(): string {
  const tz = process.env.TZ;
  if (tz !== undefined) {
    if (tz === '' || UTC_ALIASES.has(tz.replace(/^:/, ''))) return UTC;
  } else if (process.platform !== 'win32') {
    let target: string | null = null;
    try {
      target = readlinkSync('/etc/localtime');
    } catch (error) {
      // No /etc/localtime at all: the C library runs in UTC (a minimal container).
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return UTC;
    }
    const zone = target === null ? null : /zoneinfo\/(.+)$/.exec(target)?.[1];
    if (zone && UTC_ALIASES.has(zone)) return UTC;
  }
  return new Intl.DateTimeFormat().resolvedOptions().timeZone || UTC;
}

/** The zone's own spelling of a name it accepts (`europe/berlin` → `Europe/Berlin`); throws RangeError for an unknown zone. */
export function canonicalTimeZone(timeZone: string): string {
  if (timeZone === UTC) return UTC;
  return formatter(timeZone).resolvedOptions().timeZone;
}
