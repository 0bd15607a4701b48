/**
 * The local wall clock of IANA zones, and the instants of wall times, around clock changes:
 * Europe/Berlin 2026-03-29 (02:00 → 03:00) and 2026-10-25 (03:00 → 02:00), America/New_York
 * 2026-03-08 and 2026-11-01, Australia/Lord_Howe (30-minute changes) and Pacific/Apia (which
 * skipped 2011-12-30 entirely).
 */
import { describe, expect, test } from 'bun:test';
import { addDays, hourEnd, hourStart, instantOf, isValidTimeZone, localParts, machineTimeZone, weekdayOf, WEEKDAYS, type Weekday } from '../../../src/modules/scaling/zoned';

const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad test instant ${iso}`);
  return ms;
};
const iso = (ms: number): string => new Date(ms).toISOString();

describe('localParts', () => {
  const cases: [string, string, string, Weekday][] = [
    // [instant, zone, local "YYYY-MM-DD HH:MM", weekday]
    ['2026-03-06T12:34:56.789Z', 'UTC', '2026-03-06 12:34', 'FRIDAY'],
    ['2026-03-28T23:00:00Z', 'Europe/Berlin', '2026-03-29 00:00', 'SUNDAY'], // midnight is hour 0, not 24
    ['2026-03-29T00:59:59.999Z', 'Europe/Berlin', '2026-03-29 01:59', 'SUNDAY'],
    ['2026-03-29T01:00:00Z', 'Europe/Berlin', '2026-03-29 03:00', 'SUNDAY'], // spring forward
    ['2026-10-25T00:30:00Z', 'Europe/Berlin', '2026-10-25 02:30', 'SUNDAY'], // 02:30 CEST
    ['2026-10-25T01:30:00Z', 'Europe/Berlin', '2026-10-25 02:30', 'SUNDAY'], // 02:30 CET, again
    ['2026-12-31T23:30:00Z', 'Europe/Berlin', '2027-01-01 00:30', 'FRIDAY'],
    ['2026-03-08T06:59:00Z', 'America/New_York', '2026-03-08 01:59', 'SUNDAY'],
    ['2026-03-08T07:00:00Z', 'America/New_York', '2026-03-08 03:00', 'SUNDAY'],
    ['2026-11-01T05:30:00Z', 'America/New_York', '2026-11-01 01:30', 'SUNDAY'], // EDT
    ['2026-11-01T06:30:00Z', 'America/New_York', '2026-11-01 01:30', 'SUNDAY'], // EST
    ['2026-03-09T03:59:00Z', 'America/New_York', '2026-03-08 23:59', 'SUNDAY'],
    ['2026-04-04T14:59:00Z', 'Australia/Lord_Howe', '2026-04-05 01:59', 'SUNDAY'], // +11
    ['2026-04-04T15:00:00Z', 'Australia/Lord_Howe', '2026-04-05 01:30', 'SUNDAY'], // back to +10:30
    ['2026-10-03T15:30:00Z', 'Australia/Lord_Howe', '2026-10-04 02:30', 'SUNDAY'], // 02:00 → 02:30
    ['2026-01-01T00:00:00Z', 'Asia/Kolkata', '2026-01-01 05:30', 'THURSDAY'],
    ['2011-12-30T09:59:00Z', 'Pacific/Apia', '2011-12-29 23:59', 'THURSDAY'],
    ['2011-12-30T10:00:00Z', 'Pacific/Apia', '2011-12-31 00:00', 'SATURDAY'], // Friday the 30th never happened
  ];
  test.each(cases)('%s in %s is %s %s', (instant, zone, expected, weekday) => {
    const p = localParts(at(instant), zone);
    const pad = (n: number) => String(n).padStart(2, '0');
    expect(`${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}`).toBe(expected);
    expect(p.weekday).toBe(weekday);
    expect(p.minuteOfDay).toBe(p.hour * 60 + p.minute);
  });

  test('the hour is 0-23 at every minute of a day with a clock change', () => {
    for (let t = at('2026-10-24T21:00:00Z'); t < at('2026-10-26T00:00:00Z'); t += 60_000) {
      const p = localParts(t, 'Europe/Berlin');
      expect(p.hour).toBeGreaterThanOrEqual(0);
      expect(p.hour).toBeLessThanOrEqual(23);
    }
  });
});

describe('isValidTimeZone', () => {
  test.each(['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'europe/berlin'])('%p is valid', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
    expect(isValidTimeZone(zone)).toBe(true); // again, from the cache
  });
  test.each(['', '   ', 'Mars/Olympus_Mons', 'Europe/Berln', 'Berlin', 'not a zone'])('%p is not valid and does not throw', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
    expect(isValidTimeZone(zone)).toBe(false);
  });
  test('a zone the runtime does not know makes localParts throw', () => {
    expect(() => localParts(0, 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});

describe('machineTimeZone', () => {
  test('is a valid zone', () => {
    expect(isValidTimeZone(machineTimeZone())).toBe(true);
  });
  test.each([
    ['America/Chicago', 'America/Chicago'],
    ['', 'UTC'],
  ])('with TZ=%p it is %p', (tz, expected) => {
    const script = `import { machineTimeZone } from ${JSON.stringify(`${import.meta.dir}/../../../src/modules/scaling/zoned.ts`)}; console.log(machineTimeZone());`;
    const result = Bun.spawnSync([process.execPath, '-e', script], { env: { ...process.env, TZ: tz }, stdout: 'pipe', stderr: 'pipe' });
    expect(result.stderr.toString()).toBe('');
    expect(result.stdout.toString().trim()).toBe(expected);
  });
});

describe('instantOf', () => {
  const cases: [string, string, string, string][] = [
    // [zone, local "YYYY-MM-DD HH:MM", expected instant, why]
    ['UTC', '2026-03-06 12:34', '2026-03-06T12:34:00.000Z', 'plain'],
    ['Europe/Berlin', '2026-03-29 01:59', '2026-03-29T00:59:00.000Z', 'last minute before the gap'],
    ['Europe/Berlin', '2026-03-29 02:00', '2026-03-29T01:00:00.000Z', 'gap: the first instant after it (03:00 CEST)'],
    ['Europe/Berlin', '2026-03-29 02:30', '2026-03-29T01:00:00.000Z', 'gap'],
    ['Europe/Berlin', '2026-03-29 02:59', '2026-03-29T01:00:00.000Z', 'gap'],
    ['Europe/Berlin', '2026-03-29 03:00', '2026-03-29T01:00:00.000Z', 'first wall time after the gap'],
    ['Europe/Berlin', '2026-10-25 01:59', '2026-10-24T23:59:00.000Z', 'before the overlap'],
    ['Europe/Berlin', '2026-10-25 02:00', '2026-10-25T00:00:00.000Z', 'overlap: the earlier (CEST)'],
    ['Europe/Berlin', '2026-10-25 02:30', '2026-10-25T00:30:00.000Z', 'overlap: the earlier (CEST)'],
    ['Europe/Berlin', '2026-10-25 03:00', '2026-10-25T02:00:00.000Z', 'after the overlap'],
    ['Europe/Berlin', '2026-07-01 00:00', '2026-06-30T22:00:00.000Z', 'summer'],
    ['America/New_York', '2026-03-08 02:30', '2026-03-08T07:00:00.000Z', 'gap'],
    ['America/New_York', '2026-11-01 01:30', '2026-11-01T05:30:00.000Z', 'overlap: the earlier (EDT)'],
    ['America/New_York', '2026-11-01 02:00', '2026-11-01T07:00:00.000Z', 'after the overlap'],
    ['Australia/Lord_Howe', '2026-10-04 02:15', '2026-10-03T15:30:00.000Z', '30-minute gap'],
    ['Australia/Lord_Howe', '2026-04-05 01:45', '2026-04-04T14:45:00.000Z', '30-minute overlap: the earlier (+11)'],
    ['Asia/Kolkata', '2026-01-01 05:30', '2026-01-01T00:00:00.000Z', 'half-hour offset'],
    ['Pacific/Apia', '2011-12-30 12:00', '2011-12-30T10:00:00.000Z', 'a whole skipped day'],
  ];
  test.each(cases)('%s %s → %s (%s)', (zone, local, expected) => {
    const [date = '', time = ''] = local.split(' ');
    const [year, month, day] = date.split('-').map(Number);
    const [hour, minute] = time.split(':').map(Number);
    expect(iso(instantOf({ year: year ?? 0, month: month ?? 0, day: day ?? 0, hour: hour ?? 0, minute: minute ?? 0 }, zone))).toBe(expected);
  });

  test.each(['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'UTC'])('round trip at every quarter hour around the changes in %s', (zone) => {
    const ranges: [string, string][] = [
      ['2026-03-07T00:00:00Z', '2026-03-10T00:00:00Z'],
      ['2026-03-28T00:00:00Z', '2026-03-30T12:00:00Z'],
      ['2026-04-04T00:00:00Z', '2026-04-06T00:00:00Z'],
      ['2026-10-03T00:00:00Z', '2026-10-05T00:00:00Z'],
      ['2026-10-24T00:00:00Z', '2026-10-26T00:00:00Z'],
      ['2026-10-31T00:00:00Z', '2026-11-02T12:00:00Z'],
    ];
    for (const [from, to] of ranges) {
      for (let t = at(from); t < at(to); t += 15 * 60_000) {
        const local = localParts(t, zone);
        const back = instantOf(local, zone);
        // The same wall time; the earlier of two when the clock shows it twice.
        expect(localParts(back, zone)).toEqual(local);
        expect(back).toBeLessThanOrEqual(t);
        expect(t - back).toBeLessThanOrEqual(60 * 60_000);
      }
    }
  });
});

describe('addDays', () => {
  const cases: [string, number, string][] = [
    ['2026-03-01', -1, '2026-02-28'],
    ['2024-03-01', -1, '2024-02-29'],
    ['2026-12-31', 1, '2027-01-01'],
    ['2026-01-01', -7, '2025-12-25'],
    ['2026-03-29', 7, '2026-04-05'],
    ['2026-03-29', 0, '2026-03-29'],
    ['2026-01-31', 365, '2027-01-31'],
    ['0050-01-01', 1, '0050-01-02'], // Date.UTC would have made it 1950
  ];
  test.each(cases)('%s plus %d days = %s', (date, n, expected) => {
    const [year = 0, month = 0, day = 0] = date.split('-').map(Number);
    const r = addDays({ year, month, day }, n);
    expect(`${String(r.year).padStart(4, '0')}-${String(r.month).padStart(2, '0')}-${String(r.day).padStart(2, '0')}`).toBe(expected);
  });
});

describe('weekdayOf', () => {
  test.each([
    [2026, 3, 6, 'FRIDAY'],
    [2026, 3, 8, 'SUNDAY'],
    [2026, 3, 9, 'MONDAY'],
    [2027, 1, 1, 'FRIDAY'],
    [2024, 2, 29, 'THURSDAY'],
  ] as const)('%d-%d-%d is a %s', (year, month, day, weekday) => {
    expect(weekdayOf({ year, month, day })).toBe(weekday);
  });
  test('WEEKDAYS runs Monday to Sunday', () => {
    expect(WEEKDAYS).toEqual(['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']);
  });
});

describe('hourStart / hourEnd', () => {
  const cases: [string, string, string, string][] = [
    // [zone, instant, start, end]
    ['UTC', '2026-03-06T12:34:56.789Z', '2026-03-06T12:00:00.000Z', '2026-03-06T13:00:00.000Z'],
    ['Asia/Kolkata', '2026-01-01T00:10:00Z', '2025-12-31T23:30:00.000Z', '2026-01-01T00:30:00.000Z'],
    ['Europe/Berlin', '2026-03-29T00:59:59Z', '2026-03-29T00:00:00.000Z', '2026-03-29T01:00:00.000Z'], // 01:xx CET
    ['Europe/Berlin', '2026-03-29T01:00:00Z', '2026-03-29T01:00:00.000Z', '2026-03-29T02:00:00.000Z'], // 03:xx CEST
    ['Europe/Berlin', '2026-10-25T00:59:00Z', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z'], // 02:xx CEST
    ['Europe/Berlin', '2026-10-25T01:00:00Z', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z'], // 02:xx CET
    ['Australia/Lord_Howe', '2026-04-04T15:10:00Z', '2026-04-04T14:00:00.000Z', '2026-04-04T15:30:00.000Z'], // 01:xx, 90 minutes
    ['Australia/Lord_Howe', '2026-10-03T15:45:00Z', '2026-10-03T15:30:00.000Z', '2026-10-03T16:00:00.000Z'], // 02:3x-02:59, 30 minutes
  ];
  test.each(cases)('%s: the hour containing %s is [%s, %s)', (zone, instant, start, end) => {
    const s = hourStart(at(instant), zone);
    expect(iso(s)).toBe(start);
    expect(iso(hourEnd(s, zone))).toBe(end);
    expect(iso(hourEnd(at(instant), zone))).toBe(end);
  });
});
