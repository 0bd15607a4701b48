/**
 * Prediction helpers: nearest-rank percentiles, instances for a player count, the coming local
 * hours as real-time slots, and the same local hour in past weeks, across clock changes
 * (Europe/Berlin 2026-03-29 and 2026-10-25, America/New_York 2026-03-08 and 2026-11-01,
 * Australia/Lord_Howe with its 30-minute changes).
 */
import { describe, expect, test } from 'bun:test';
import { hourSlots, instancesFor, percentile, sameHourWindows } from '../../../src/modules/scaling/prediction';
import { localParts } from '../../../src/modules/scaling/zoned';

const HOUR = 3_600_000;
const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad test instant ${iso}`);
  return ms;
};
const iso = (ms: number): string => new Date(ms).toISOString();
const oneToTen = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describe('percentile', () => {
  test.each([
    ['empty', [], 50, 0],
    ['empty p100', [], 100, 0],
    ['single value p1', [7], 1, 7],
    ['single value p100', [7], 100, 7],
    ['1..10 p90', oneToTen, 90, 9],
    ['1..10 p100 is the max', oneToTen, 100, 10],
    ['1..10 p50', oneToTen, 50, 5],
    ['1..10 p70', oneToTen, 70, 7],
    ['1..25 p28 (0.28 × 25 is 7.000000000000001 in floating point)', Array.from({ length: 25 }, (_, i) => i + 1), 28, 7],
    ['1..10 p91 rounds the rank up', oneToTen, 91, 10],
    ['1..10 p10', oneToTen, 10, 1],
    ['1..10 p0.1 is the min', oneToTen, 0.1, 1],
    ['p above 100 is the max', oneToTen, 150, 10],
    ['p 0 is the min', oneToTen, 0, 1],
    ['unsorted', [50, 10, 40, 20, 30], 60, 30],
    ['numeric, not lexicographic, order', [100, 9, 20], 100, 100],
    ['duplicates', [3, 3, 3, 8], 75, 3],
    ['negative values', [-5, 0, 5], 34, 0],
    ['p95 of 20 values', Array.from({ length: 20 }, (_, i) => i + 1), 95, 19],
  ] as [string, number[], number, number][])('%s: p%d of %j = %d', (_name, values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });

  test('does not mutate its input', () => {
    const values = [5, 1, 4, 2, 3];
    const frozen = Object.freeze([...values]);
    expect(percentile(values, 60)).toBe(3);
    expect(percentile(frozen, 100)).toBe(5);
    expect(values).toEqual([5, 1, 4, 2, 3]);
  });
});

describe('instancesFor', () => {
  test.each([
    // [players, playersPerInstance, scaleThreshold, instances]
    [41, 20, 0.8, 3], // ceil(41 / 16)
    [32, 20, 0.8, 2], // exactly full
    [33, 20, 0.8, 3],
    [1, 20, 0.8, 1],
    [21, 10, 0.7, 3],
    [9, 3, 0.6, 5], // 9 / (3 × 0.6) is 5.000000000000001 in floating point
    [21, 6, 0.7, 5], // likewise
    [30, 10, 0.3, 10], // 10 × 0.3 is 3.0000000000000004
    [100, 20, 1, 5],
    [3, 1, 0.5, 6],
    [0, 20, 0.8, 0],
    [-5, 20, 0.8, 0],
    [10, 0, 0.8, 10], // no capacity: 1 per instance
    [10, -3, 0.5, 10],
    [10, 5, 0, 2], // no threshold: playersPerInstance
    [10, 5, -1, 2],
    [10, 5, Number.NaN, 2],
  ])('%d players, %d per instance, threshold %d → %d', (players, perInstance, threshold, expected) => {
    expect(instancesFor(players, perInstance, threshold)).toBe(expected);
  });
});

describe('hourSlots', () => {
  test.each([
    // [zone, instant, count, expected "hour@startZ" list]
    ['UTC', '2026-03-06T12:34:00Z', 3, ['12@2026-03-06T12:00', '13@2026-03-06T13:00', '14@2026-03-06T14:00']],
    ['Asia/Kolkata', '2026-01-01T00:10:00Z', 2, ['5@2025-12-31T23:30', '6@2026-01-01T00:30']],
    // Berlin fall-back: 02:00-03:00 happens twice, as two slots with hour 2.
    ['Europe/Berlin', '2026-10-24T22:30:00Z', 6, ['0@2026-10-24T22:00', '1@2026-10-24T23:00', '2@2026-10-25T00:00', '2@2026-10-25T01:00', '3@2026-10-25T02:00', '4@2026-10-25T03:00']],
    // Berlin spring-forward: no hour 2.
    ['Europe/Berlin', '2026-03-28T23:10:00Z', 4, ['0@2026-03-28T23:00', '1@2026-03-29T00:00', '3@2026-03-29T01:00', '4@2026-03-29T02:00']],
    ['America/New_York', '2026-11-01T04:00:00Z', 4, ['0@2026-11-01T04:00', '1@2026-11-01T05:00', '1@2026-11-01T06:00', '2@2026-11-01T07:00']],
    ['America/New_York', '2026-03-08T05:59:59Z', 3, ['0@2026-03-08T05:00', '1@2026-03-08T06:00', '3@2026-03-08T07:00']],
    // Lord_Howe moves 30 minutes: the hour the change lands in is 90 (fall) or 30 (spring) minutes.
    ['Australia/Lord_Howe', '2026-04-04T14:20:00Z', 3, ['1@2026-04-04T14:00', '2@2026-04-04T15:30', '3@2026-04-04T16:30']],
    ['Australia/Lord_Howe', '2026-10-03T15:00:00Z', 3, ['1@2026-10-03T14:30', '2@2026-10-03T15:30', '3@2026-10-03T16:00']],
  ] as [string, string, number, string[]][])('%s from %s, %d slots', (zone, instant, count, expected) => {
    const slots = hourSlots(at(instant), zone, count);
    expect(slots.map((s) => `${s.hour}@${iso(s.startMs).slice(0, 16)}`)).toEqual(expected);
    // The first slot contains the instant; slots follow each other without gaps.
    expect(slots[0]?.startMs).toBeLessThanOrEqual(at(instant));
    expect(slots[0]?.endMs).toBeGreaterThan(at(instant));
    for (let i = 1; i < slots.length; i++) expect(slots[i]?.startMs).toBe(slots[i - 1]?.endMs ?? Number.NaN);
  });

  test.each(['Europe/Berlin', 'America/New_York'])('in %s every slot is one real hour, two weeks across each clock change', (zone) => {
    for (const start of ['2026-03-01T00:00:00Z', '2026-10-20T00:00:00Z']) {
      const slots = hourSlots(at(start), zone, 24 * 14);
      expect(slots).toHaveLength(24 * 14);
      for (const slot of slots) {
        expect(slot.endMs - slot.startMs).toBe(HOUR);
        const local = localParts(slot.startMs, zone);
        expect([local.hour, local.minute, local.weekday]).toEqual([slot.hour, 0, slot.dayOfWeek]);
      }
    }
  });

  test('weekday turns with the local date, not the UTC one', () => {
    const slots = hourSlots(at('2026-03-28T22:30:00Z'), 'Europe/Berlin', 2); // Saturday 23:30 CET
    expect(slots.map((s) => [s.hour, s.dayOfWeek])).toEqual([
      [23, 'SATURDAY'],
      [0, 'SUNDAY'],
    ]);
  });

  test.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('count %d → no slots', (count) => {
    expect(hourSlots(at('2026-03-06T12:00:00Z'), 'UTC', count)).toEqual([]);
  });
});

describe('sameHourWindows', () => {
  const windowsOf = (target: string, zone: string, weeks: number) =>
    sameHourWindows(at(target), zone, weeks).map((w) => `${iso(w.fromMs).slice(0, 16)}/${iso(w.toMs).slice(0, 16)}`);

  test.each([
    // [zone, target, weeks, expected windows (UTC), why]
    ['UTC', '2026-03-12T20:30:00Z', 2, ['2026-03-05T20:00/2026-03-05T21:00', '2026-02-26T20:00/2026-02-26T21:00'], 'plain'],
    // Thursday 20:30 CEST, a week after spring-forward: the week before was CET, 19:00Z not 18:00Z.
    ['Europe/Berlin', '2026-04-02T18:30:00Z', 3, ['2026-03-26T19:00/2026-03-26T20:00', '2026-03-19T19:00/2026-03-19T20:00', '2026-03-12T19:00/2026-03-12T20:00'], 'week after spring-forward'],
    // Thursday 20:30 CET, a week after fall-back.
    ['Europe/Berlin', '2026-10-29T19:30:00Z', 2, ['2026-10-22T18:00/2026-10-22T19:00', '2026-10-15T18:00/2026-10-15T19:00'], 'week after fall-back'],
    // Thursday 20:30 EDT (00:30Z Friday), a week after New York springs forward.
    ['America/New_York', '2026-03-13T00:30:00Z', 2, ['2026-03-06T01:00/2026-03-06T02:00', '2026-02-27T01:00/2026-02-27T02:00'], 'New York, across the UTC date'],
    // Sunday 02:30 CEST: on 2026-03-29 there was no 02:00 hour, so that week is left out.
    ['Europe/Berlin', '2026-04-05T00:30:00Z', 3, ['2026-03-22T01:00/2026-03-22T02:00', '2026-03-15T01:00/2026-03-15T02:00'], 'gap week left out'],
    // Sunday 02:30 CET: on 2026-10-25 the 02:00 hour happened twice; the first time counts.
    ['Europe/Berlin', '2026-11-01T01:30:00Z', 2, ['2026-10-25T00:00/2026-10-25T01:00', '2026-10-18T00:00/2026-10-18T01:00'], 'overlap week: first time'],
    // 23:30 CEST: the window ends at the next local day's 00:00.
    ['Europe/Berlin', '2026-04-02T21:30:00Z', 1, ['2026-03-26T22:00/2026-03-26T23:00'], 'hour 23'],
    // Lord_Howe Sunday 01:30 (+10:30), a week after its 30-minute fall-back: that week's hour 1 lasted 90 minutes.
    ['Australia/Lord_Howe', '2026-04-11T15:00:00Z', 2, ['2026-04-04T14:00/2026-04-04T15:30', '2026-03-28T14:00/2026-03-28T15:00'], '30-minute fall-back'],
    ['Europe/Berlin', '2026-04-02T18:30:00Z', 0, [], 'no weeks'],
    ['Europe/Berlin', '2026-04-02T18:30:00Z', Number.POSITIVE_INFINITY, [], 'not a number of weeks'],
  ] as [string, string, number, string[], string][])('%s target %s, %d weeks (%s)', (zone, target, weeks, expected) => {
    expect(windowsOf(target, zone, weeks)).toEqual(expected);
  });

  test.each([
    ['Europe/Berlin', '2026-04-02T18:30:00Z'],
    ['Europe/Berlin', '2026-11-01T13:15:00Z'],
    ['America/New_York', '2026-03-15T16:45:00Z'],
    ['America/New_York', '2026-11-05T02:10:00Z'],
  ])('%s, target %s: 8 windows, each one real hour at the target local weekday and hour, newest first', (zone, target) => {
    const want = localParts(at(target), zone);
    const windows = sameHourWindows(at(target), zone, 8);
    expect(windows).toHaveLength(8);
    let previous = at(target);
    for (const w of windows) {
      expect(w.toMs - w.fromMs).toBe(HOUR);
      expect(w.toMs).toBeLessThanOrEqual(previous);
      previous = w.fromMs;
      const local = localParts(w.fromMs, zone);
      expect([local.weekday, local.hour, local.minute]).toEqual([want.weekday, want.hour, 0]);
    }
  });
});
