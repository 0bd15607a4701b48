/**
 * The weekly timetable: a rule opens on each listed day at `from` and closes at `to` that day,
 * or the NEXT day when to <= from (overnight; from == to is 24 hours), judged by the local wall
 * clock so that clock-change days come out right.
 *
 * Calendar used below: 2026-03-06 is a Friday. Europe/Berlin changes 2026-03-29 (02:00 CET →
 * 03:00 CEST, at 01:00Z) and 2026-10-25 (03:00 CEST → 02:00 CET, at 01:00Z); America/New_York
 * 2026-03-08 (at 07:00Z) and 2026-11-01 (at 06:00Z).
 */
import { describe, expect, test } from 'bun:test';
import { activeRule, effectiveRule, parseClock, parseDay, ruleActiveAt, warmupRule, type ScheduleRule } from '../../../src/modules/scaling/schedule';
import type { Weekday } from '../../../src/modules/scaling/zoned';

const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad test instant ${iso}`);
  return ms;
};

const rule = (name: string, days: Weekday[], from: string, to: string, minInstances = 1): ScheduleRule => ({ name, days, from, to, minInstances, maxInstances: null });

/** How many whole minutes in [fromIso, toIso) the rule is in force. */
function activeMinutes(r: ScheduleRule, fromIso: string, toIso: string, zone: string): number {
  let n = 0;
  for (let t = at(fromIso); t < at(toIso); t += 60_000) if (ruleActiveAt(r, t, zone)) n++;
  return n;
}

describe('parseDay', () => {
  test.each([
    ['MON', 'MONDAY'],
    ['mon', 'MONDAY'],
    ['Monday', 'MONDAY'],
    [' SUNDAY ', 'SUNDAY'],
    ['tue', 'TUESDAY'],
    ['WEDNESDAY', 'WEDNESDAY'],
    ['Thu', 'THURSDAY'],
    ['fri', 'FRIDAY'],
    ['SAT', 'SATURDAY'],
    ['sun', 'SUNDAY'],
  ])('%p → %s', (text, day) => {
    expect(parseDay(text)).toBe(day as Weekday);
  });
  test.each(['Mo', 'FUNDAY', '', '  ', 'MONDAYS', 'M', 'TUES', 'MON,TUE', '1'])('%p is rejected', (text) => {
    expect(parseDay(text)).toBeNull();
  });
});

describe('parseClock', () => {
  test.each([
    ['17:00', 1020],
    ['7:05', 425],
    ['07:05', 425],
    ['00:00', 0],
    ['23:59', 1439],
    ['0:00', 0],
    [' 17:00 ', 1020], // surrounding spaces ignored, as for days
  ])('%p → %d', (text, minutes) => {
    expect(parseClock(text)).toBe(minutes);
  });
  test.each(['24:00', '17:60', '1700', '17:00:00', '', '7:5', '17:', ':30', '-1:00', '17.00', 'ab:cd', '017:00', '１７:００'])('%p is rejected', (text) => {
    expect(parseClock(text)).toBeNull();
  });
});

describe('ruleActiveAt', () => {
  const sameDay = rule('evening', ['MONDAY'], '17:00', '19:00');
  const overnight = rule('friday night', ['FRIDAY'], '22:00', '02:00');
  const sundayNight = rule('sunday night', ['SUNDAY'], '23:00', '01:00');
  const fullDay = rule('24h', ['SATURDAY'], '18:00', '18:00');
  const always = rule('always', ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'], '00:00', '00:00');
  const cases: [string, string, boolean, ScheduleRule][] = [
    // Monday 2026-03-09
    ['same day: before from', '2026-03-09T16:59:00Z', false, sameDay],
    ['same day: from is inclusive', '2026-03-09T17:00:00Z', true, sameDay],
    ['same day: inside', '2026-03-09T18:59:59Z', true, sameDay],
    ['same day: to is exclusive', '2026-03-09T19:00:00Z', false, sameDay],
    ['same day: other day', '2026-03-10T18:00:00Z', false, sameDay],
    ['same day: a week later', '2026-03-16T18:00:00Z', true, sameDay],
    // Friday 2026-03-06 22:00 - Saturday 02:00
    ['overnight: Friday 21:59', '2026-03-06T21:59:00Z', false, overnight],
    ['overnight: Friday 22:00', '2026-03-06T22:00:00Z', true, overnight],
    ['overnight: Friday 23:00', '2026-03-06T23:00:00Z', true, overnight],
    ['overnight: Saturday 00:00', '2026-03-07T00:00:00Z', true, overnight],
    ['overnight: Saturday 01:00', '2026-03-07T01:00:00Z', true, overnight],
    ['overnight: Saturday 01:59', '2026-03-07T01:59:00Z', true, overnight],
    ['overnight: Friday 01:00 is OUT (the window opens Friday evening)', '2026-03-06T01:00:00Z', false, overnight],
    ['overnight: Saturday 02:00', '2026-03-07T02:00:00Z', false, overnight],
    ['overnight: Saturday 23:00 (Saturday not listed)', '2026-03-07T23:00:00Z', false, overnight],
    ['overnight: Sunday 01:00', '2026-03-08T01:00:00Z', false, overnight],
    ['overnight: Thursday 23:00', '2026-03-05T23:00:00Z', false, overnight],
    // Sunday 23:00 - Monday 01:00: the week wraps
    ['overnight Sunday: Sunday 23:30', '2026-03-08T23:30:00Z', true, sundayNight],
    ['overnight Sunday: Monday 00:30', '2026-03-09T00:30:00Z', true, sundayNight],
    ['overnight Sunday: Monday 01:00', '2026-03-09T01:00:00Z', false, sundayNight],
    ['overnight Sunday: Sunday 00:30', '2026-03-08T00:30:00Z', false, sundayNight],
    // from == to: 24 hours from Saturday 18:00
    ['24 h: Saturday 17:59', '2026-03-07T17:59:00Z', false, fullDay],
    ['24 h: Saturday 18:00', '2026-03-07T18:00:00Z', true, fullDay],
    ['24 h: Sunday 00:00', '2026-03-08T00:00:00Z', true, fullDay],
    ['24 h: Sunday 17:59', '2026-03-08T17:59:00Z', true, fullDay],
    ['24 h: Sunday 18:00', '2026-03-08T18:00:00Z', false, fullDay],
    ['every day 00:00-00:00: Monday 00:00', '2026-03-09T00:00:00Z', true, always],
    ['every day 00:00-00:00: Wednesday 13:37', '2026-03-11T13:37:00Z', true, always],
    ['every day 00:00-00:00: Sunday 23:59', '2026-03-08T23:59:00Z', true, always],
    // Rules a validator would reject are simply never in force.
    ['no days', '2026-03-09T12:00:00Z', false, rule('x', [], '00:00', '00:00')],
    ['bad from', '2026-03-09T18:00:00Z', false, rule('x', ['MONDAY'], '25:00', '19:00')],
    ['bad to', '2026-03-09T18:00:00Z', false, rule('x', ['MONDAY'], '17:00', '7pm')],
    ['empty from', '2026-03-09T18:00:00Z', false, rule('x', ['MONDAY'], '', '19:00')],
  ];
  test.each(cases)('%s at %s → %p (UTC)', (_name, instant, expected, r) => {
    expect(ruleActiveAt(r, at(instant), 'UTC')).toBe(expected);
  });

  test.each([
    // The same windows judged in Berlin (+01:00 in early March) and New York (-05:00 before 03-08).
    ['Europe/Berlin', '2026-03-06T21:30:00Z', true], // Friday 22:30
    ['Europe/Berlin', '2026-03-07T00:59:00Z', true], // Saturday 01:59
    ['Europe/Berlin', '2026-03-07T01:00:00Z', false], // Saturday 02:00
    ['Europe/Berlin', '2026-03-06T22:30:00Z', true], // Friday 23:30, while UTC is still on Friday
    ['Europe/Berlin', '2026-03-06T00:30:00Z', false], // Friday 01:30
    ['America/New_York', '2026-03-07T03:00:00Z', true], // Friday 22:00
    ['America/New_York', '2026-03-07T02:59:00Z', false], // Friday 21:59
    ['America/New_York', '2026-03-07T06:59:00Z', true], // Saturday 01:59
    ['America/New_York', '2026-03-07T07:00:00Z', false], // Saturday 02:00
  ])('overnight Friday rule in %s at %s → %p', (zone, instant, expected) => {
    expect(ruleActiveAt(overnight, at(instant), zone)).toBe(expected);
  });
});

describe('clock changes', () => {
  const sunday = (from: string, to: string) => rule(`${from}-${to}`, ['SUNDAY'], from, to);
  const instants: [string, string, boolean, string, ScheduleRule][] = [
    // [zone, instant, expected, local time, rule]
    ['Europe/Berlin', '2026-03-28T23:59:00Z', false, 'Sun 00:59 CET', sunday('01:00', '04:00')],
    ['Europe/Berlin', '2026-03-29T00:00:00Z', true, 'Sun 01:00 CET', sunday('01:00', '04:00')],
    ['Europe/Berlin', '2026-03-29T00:30:00Z', true, 'Sun 01:30 CET', sunday('01:00', '04:00')],
    ['Europe/Berlin', '2026-03-29T01:30:00Z', true, 'Sun 03:30 CEST', sunday('01:00', '04:00')],
    ['Europe/Berlin', '2026-03-29T02:00:00Z', false, 'Sun 04:00 CEST', sunday('01:00', '04:00')],
    ['Europe/Berlin', '2026-10-25T00:00:00Z', true, 'Sun 02:00 CEST', sunday('02:00', '03:00')],
    ['Europe/Berlin', '2026-10-25T00:59:00Z', true, 'Sun 02:59 CEST', sunday('02:00', '03:00')],
    ['Europe/Berlin', '2026-10-25T01:00:00Z', true, 'Sun 02:00 CET', sunday('02:00', '03:00')],
    ['Europe/Berlin', '2026-10-25T01:59:00Z', true, 'Sun 02:59 CET', sunday('02:00', '03:00')],
    ['Europe/Berlin', '2026-10-25T02:00:00Z', false, 'Sun 03:00 CET', sunday('02:00', '03:00')],
    ['America/New_York', '2026-03-08T06:00:00Z', true, 'Sun 01:00 EST', sunday('01:00', '04:00')],
    ['America/New_York', '2026-03-08T07:00:00Z', true, 'Sun 03:00 EDT', sunday('01:00', '04:00')],
    ['America/New_York', '2026-03-08T08:00:00Z', false, 'Sun 04:00 EDT', sunday('01:00', '04:00')],
    ['America/New_York', '2026-11-01T05:30:00Z', true, 'Sun 01:30 EDT', sunday('01:00', '02:00')],
    ['America/New_York', '2026-11-01T06:30:00Z', true, 'Sun 01:30 EST', sunday('01:00', '02:00')],
    ['America/New_York', '2026-11-01T07:00:00Z', false, 'Sun 02:00 EST', sunday('01:00', '02:00')],
  ];
  for (const [zone, instant, expected, local, r] of instants) {
    test(`${zone} Sunday ${r.from}-${r.to} at ${instant} (${local}) → ${expected}`, () => {
      expect(ruleActiveAt(r, at(instant), zone)).toBe(expected);
    });
  }

  const nights: [string, string, string, number, ScheduleRule][] = [
    // [zone, night from, night to, real minutes in force, rule]
    ['Europe/Berlin', '2026-03-28T20:00:00Z', '2026-03-29T06:00:00Z', 120, sunday('01:00', '04:00')], // spring: two real hours
    ['Europe/Berlin', '2026-03-28T20:00:00Z', '2026-03-29T06:00:00Z', 0, sunday('02:00', '03:00')], // spring: never happens
    ['Europe/Berlin', '2026-03-28T20:00:00Z', '2026-03-29T06:00:00Z', 60, sunday('02:30', '04:00')], // opens at the end of the gap
    ['Europe/Berlin', '2026-10-24T20:00:00Z', '2026-10-25T06:00:00Z', 240, sunday('01:00', '04:00')], // fall: four real hours
    ['Europe/Berlin', '2026-10-24T20:00:00Z', '2026-10-25T06:00:00Z', 120, sunday('02:00', '03:00')], // fall: the repeated hour twice
    ['Europe/Berlin', '2026-03-28T18:00:00Z', '2026-03-29T06:00:00Z', 240, rule('sat night', ['SATURDAY'], '22:00', '02:00')],
    ['Europe/Berlin', '2026-10-24T18:00:00Z', '2026-10-25T06:00:00Z', 240, rule('sat night', ['SATURDAY'], '22:00', '02:00')],
    ['Europe/Berlin', '2026-03-28T18:00:00Z', '2026-03-29T06:00:00Z', 240, rule('sat night', ['SATURDAY'], '22:00', '03:00')],
    ['Europe/Berlin', '2026-10-24T18:00:00Z', '2026-10-25T06:00:00Z', 360, rule('sat night', ['SATURDAY'], '22:00', '03:00')],
    ['America/New_York', '2026-03-08T02:00:00Z', '2026-03-08T12:00:00Z', 120, sunday('01:00', '04:00')],
    ['America/New_York', '2026-03-08T02:00:00Z', '2026-03-08T12:00:00Z', 0, sunday('02:00', '03:00')],
    ['America/New_York', '2026-11-01T02:00:00Z', '2026-11-01T12:00:00Z', 120, sunday('01:00', '02:00')],
    ['Australia/Lord_Howe', '2026-10-03T12:00:00Z', '2026-10-03T20:00:00Z', 90, sunday('01:00', '03:00')], // 30-minute spring forward
    ['Australia/Lord_Howe', '2026-04-04T12:00:00Z', '2026-04-04T20:00:00Z', 150, sunday('01:00', '03:00')], // 30-minute fall back
    ['UTC', '2026-03-28T20:00:00Z', '2026-03-29T06:00:00Z', 180, sunday('01:00', '04:00')],
  ];
  for (const [zone, from, to, minutes, r] of nights) {
    test(`${zone} ${r.days.join(',')} ${r.from}-${r.to}, from ${from} to ${to}: in force ${minutes} real minutes`, () => {
      expect(activeMinutes(r, from, to, zone)).toBe(minutes);
    });
  }
});

describe('activeRule', () => {
  const monday18 = '2026-03-09T18:00:00Z';
  const low = rule('low', ['MONDAY'], '17:00', '19:00', 2);
  const highA = rule('highA', ['MONDAY'], '16:00', '20:00', 5);
  const highB = rule('highB', ['MONDAY'], '18:00', '18:30', 5);
  const highest = rule('highest', ['TUESDAY'], '17:00', '19:00', 9); // not in force on Monday
  const broken = rule('broken', ['MONDAY'], 'noon', '19:00', 99);
  test.each([
    ['no rules', null, []],
    ['one rule', 'low', [low]],
    ['highest minInstances wins', 'highA', [low, highA]],
    ['highest wins whatever the order', 'highA', [highA, low]],
    ['tie: the earlier in the list', 'highA', [low, highA, highB]],
    ['tie: the earlier in the list (swapped)', 'highB', [low, highB, highA]],
    ['a rule not in force does not count', 'low', [low, highest]],
    ['a broken rule is skipped', 'low', [broken, low]],
    ['nothing in force', null, [highest, broken]],
  ] as [string, string | null, ScheduleRule[]][])('%s → %p', (_name, expected, rules) => {
    expect(activeRule(rules, at(monday18), 'UTC')?.name ?? null).toBe(expected);
  });
});

describe('warmupRule', () => {
  const evening = rule('evening', ['MONDAY'], '17:00', '19:00', 4);
  const saturday = rule('saturday', ['SATURDAY'], '00:00', '06:00', 3);
  const sunday = rule('sunday', ['SUNDAY'], '00:00', '06:00', 3);
  const short = rule('short', ['MONDAY'], '17:00', '17:05', 6);
  const bigger = rule('bigger', ['MONDAY'], '17:05', '19:00', 8);
  const cases: [string, string, number, string | null, ScheduleRule[]][] = [
    ['10 min before, lead 10', '2026-03-09T16:50:00Z', 10, 'evening', [evening]],
    ['11 min before, lead 10', '2026-03-09T16:49:00Z', 10, null, [evening]],
    ['1 min before, lead 10', '2026-03-09T16:59:00Z', 10, 'evening', [evening]],
    ['already in force: not a warm-up', '2026-03-09T17:00:00Z', 10, null, [evening]],
    ['10 min before the end, lead 10: in force, not a warm-up', '2026-03-09T18:50:00Z', 10, null, [evening]],
    ['lead 0', '2026-03-09T16:59:00Z', 0, null, [evening]],
    ['negative lead', '2026-03-09T16:59:00Z', -10, null, [evening]],
    ['not on this weekday', '2026-03-10T16:55:00Z', 10, null, [evening]],
    ['across midnight into Saturday 00:00', '2026-03-06T23:55:00Z', 10, 'saturday', [saturday]],
    ['across midnight, lead too short', '2026-03-06T23:55:00Z', 4, null, [saturday]],
    ['across midnight into an unlisted day', '2026-03-06T23:55:00Z', 10, null, [sunday]],
    ['a rule shorter than the lead still warms up', '2026-03-09T16:58:00Z', 10, 'short', [short]],
    ['highest minInstances among the coming rules', '2026-03-09T16:58:00Z', 10, 'bigger', [evening, bigger]],
    ['tie: the earlier in the list', '2026-03-09T16:50:00Z', 10, 'evening', [evening, rule('twin', ['MONDAY'], '16:55', '18:00', 4)]],
    ['broken rules never warm up', '2026-03-09T16:55:00Z', 10, null, [rule('broken', ['MONDAY'], '17:00', '24:00', 9)]],
    ['a lead longer than a day', '2026-03-08T18:00:00Z', 26 * 60, 'evening', [evening]],
  ];
  test.each(cases)('%s (at %s, lead %d) → %p', (_name, instant, lead, expected, rules) => {
    expect(warmupRule(rules, at(instant), 'UTC', lead)?.name ?? null).toBe(expected);
  });

  test('10 minutes before a rule: warmupRule returns it, activeRule does not', () => {
    const now = at('2026-03-09T16:50:00Z');
    expect(activeRule([evening], now, 'UTC')).toBeNull();
    expect(warmupRule([evening], now, 'UTC', 10)).toBe(evening);
  });

  test('across the spring-forward gap the lead is real time (Berlin 01:55 CET is 5 real minutes before 03:00 CEST)', () => {
    const early = rule('early', ['SUNDAY'], '03:00', '05:00');
    expect(warmupRule([early], at('2026-03-29T00:55:00Z'), 'Europe/Berlin', 5)).toBe(early);
    expect(warmupRule([early], at('2026-03-29T00:54:00Z'), 'Europe/Berlin', 5)).toBeNull();
  });

  test('a `from` the clock skips opens at the end of the gap, where 1 January is summer time too (Sydney 02:30, 2026-10-04)', () => {
    // 02:00 AEST → 03:00 AEDT at 16:00Z: the 02:30 rule opens at 03:00 AEDT, 5 real minutes after 01:55 AEST.
    const skipped = rule('skipped', ['SUNDAY'], '02:30', '05:00');
    expect(warmupRule([skipped], at('2026-10-03T15:55:00Z'), 'Australia/Sydney', 5)).toBe(skipped);
    expect(warmupRule([skipped], at('2026-10-03T15:54:00Z'), 'Australia/Sydney', 5)).toBeNull();
    expect(ruleActiveAt(skipped, at('2026-10-03T16:00:00Z'), 'Australia/Sydney')).toBe(true);
  });

  test('the second time a repeated hour opens a rule, it warms up again (Berlin fall-back, 02:00-02:30)', () => {
    const twice = rule('twice', ['SUNDAY'], '02:00', '02:30');
    expect(warmupRule([twice], at('2026-10-24T23:55:00Z'), 'Europe/Berlin', 10)).toBe(twice); // 01:55 CEST
    expect(warmupRule([twice], at('2026-10-25T00:55:00Z'), 'Europe/Berlin', 10)).toBe(twice); // 02:55 CEST, before 02:00 CET
  });
});

describe('effectiveRule', () => {
  const now = '2026-03-09T16:55:00Z'; // Monday
  const inForce = (min: number) => rule(`active${min}`, ['MONDAY'], '16:00', '18:00', min);
  const coming = (min: number) => rule(`coming${min}`, ['MONDAY'], '17:00', '19:00', min);
  test.each([
    ['nothing', 10, null, []],
    ['only active', 10, { name: 'active2', warmup: false }, [inForce(2)]],
    ['only warm-up', 10, { name: 'coming3', warmup: true }, [coming(3)]],
    ['warm-up higher than active', 10, { name: 'coming5', warmup: true }, [inForce(2), coming(5)]],
    ['active higher than warm-up', 10, { name: 'active5', warmup: false }, [inForce(5), coming(2)]],
    ['tie: active', 10, { name: 'active5', warmup: false }, [coming(5), inForce(5)]],
    ['warm-up out of reach', 4, { name: 'active2', warmup: false }, [inForce(2), coming(5)]],
  ] as [string, number, { name: string; warmup: boolean } | null, ScheduleRule[]][])('%s (lead %d) → %p', (_name, lead, expected, rules) => {
    const result = effectiveRule(rules, at(now), 'UTC', lead);
    expect(result === null ? null : { name: result.rule.name, warmup: result.warmup }).toEqual(expected);
  });
});
