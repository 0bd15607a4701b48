/**
 * The adapter between the `cron` package and svc's schedules (src/core/time/cron-adapter.ts):
 * what it hands the package (normaliseCron), why (the package's own answer beside ours where
 * they differ, on the exact version package.json pins), and how it reads clock changes in zones
 * where they go both ways. The cronie semantics themselves are specified by
 * test/modules/backup/cron.test.ts.
 */
import { describe, expect, test } from 'bun:test';
import { CronTime } from 'cron';
import { join } from 'node:path';
import { firesAt, nextRun, normaliseCron, validateCron } from '../../../src/core/time/cron-adapter';

const MINUTE = 60_000;
const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => (d ? d.toISOString() : null);

function runs(expression: string, from: string, timeZone: string, n: number): string[] {
  const out: string[] = [];
  let cursor: Date | null = at(from);
  for (let i = 0; i < n && cursor; i++) {
    cursor = nextRun(expression, cursor, timeZone);
    if (cursor) out.push(cursor.toISOString());
  }
  return out;
}

/** What the package answers on its own, given the expression as written and the zone. */
function packageRuns(expression: string, from: string, timeZone: string, n: number): string[] {
  const time = new CronTime(expression, timeZone);
  const out: string[] = [];
  let cursor = at(from);
  for (let i = 0; i < n; i++) {
    cursor = time.getNextDateFrom(cursor, timeZone).toJSDate();
    out.push(cursor.toISOString());
  }
  return out;
}

describe('normaliseCron: what the package is handed', () => {
  test.each([
    // [written, handed over, weekdays checked by the adapter, follows real time]
    ['0 3 * * *', '0 3 * * *', null, false],
    ['*/15 * * * *', '0,15,30,45 * * * *', null, true],
    ['5/20 * * * *', '5,25,45 * * * *', null, true],
    ['10-40/10 8-18/5 * * *', '10,20,30,40 8,13,18 * * *', null, false],
    ['0 9 * jan MON-fri', '0 9 * 1 1-5', null, false],
    // 7 is Sunday, folded into 0.
    ['0 4 * * 7', '0 4 * * 0', null, false],
    ['0 4 * * 5-7', '0 4 * * 0,5-6', null, false],
    // OR (neither day field starts with *), both restricted: the package ORs them too.
    ['0 0 13 * 5', '0 0 13 * 5', null, false],
    // OR with a field that covers every day is every day; the package would apply the other field alone.
    ['0 0 1-31 * 1', '0 0 * * *', null, false],
    ['0 0 5 * 0-6', '0 0 * * *', null, false],
    ['0 0 5 * 0-7', '0 0 * * *', null, false],
    // AND (a field starts with *) where one side covers everything: the package applies the other, as cronie.
    ['0 0 */1 * 1', '0 0 * * 1', null, false],
    ['0 0 5 * */1', '0 0 5 * *', null, false],
    ['0 0 * * 1', '0 0 * * 1', null, false],
    // AND of two restricted fields, which the package cannot say: it gets the days, the adapter checks the weekday.
    ['0 0 */2 * 1', '0 0 1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31 * *', [1], false],
    ['0 0 1-7 * */7', '0 0 1-7 * *', [0], false],
    ['0 * * * *', '0 * * * *', null, true],
    ['0 0-23 * * *', '0 * * * *', null, true],
  ] as [string, string, number[] | null, boolean][])('%p → %p', (written, expression, weekdays, followsRealTime) => {
    expect(normaliseCron(written)).toEqual({ expression, weekdays, followsRealTime });
  });

  test('six fields, @shortcuts and names the package would take are refused, naming the problem', () => {
    // The package reads six fields as seconds first and knows @daily; cronie has neither.
    expect(() => new CronTime('0 0 0 * * *', 'UTC')).not.toThrow();
    expect(() => validateCron('0 0 0 * * *')).toThrow(/five fields .*got 6; seconds are not supported/);
    expect(() => new CronTime('@daily', 'UTC')).not.toThrow();
    expect(() => validateCron('@daily')).toThrow(/shortcuts like @daily are not supported/);
    // The package's own messages do not say which field is wrong.
    expect(() => new CronTime('60 * * * *', 'UTC')).toThrow(/^Field value \(60\) is out of range$/);
    expect(() => validateCron('60 * * * *')).toThrow(/^minute field: 60 is out of range 0-59$/);
  });
});

describe('the day rule, against the package on its own', () => {
  test('0 0 */2 * 1: odd days that are Mondays (the package: odd days OR Mondays)', () => {
    expect(runs('0 0 */2 * 1', '2026-03-01T00:00:00Z', 'UTC', 3)).toEqual(['2026-03-09T00:00:00.000Z', '2026-03-23T00:00:00.000Z', '2026-04-13T00:00:00.000Z']);
    expect(packageRuns('0 0 */2 * 1', '2026-03-01T00:00:00Z', 'UTC', 3)).toEqual(['2026-03-02T00:00:00.000Z', '2026-03-03T00:00:00.000Z', '2026-03-05T00:00:00.000Z']);
  });

  test('0 0 1-31 * 1: every day (the package: Mondays only)', () => {
    expect(runs('0 0 1-31 * 1', '2026-03-01T00:00:00Z', 'UTC', 2)).toEqual(['2026-03-02T00:00:00.000Z', '2026-03-03T00:00:00.000Z']);
    expect(packageRuns('0 0 1-31 * 1', '2026-03-01T00:00:00Z', 'UTC', 2)).toEqual(['2026-03-02T00:00:00.000Z', '2026-03-09T00:00:00.000Z']);
  });

  test('an AND rule whose next day is years away is "never" within the horizon, not a search of years', () => {
    // 29 February on a Sunday: 2032. The package, handed the days, would step through leap years up to 8 years from now.
    expect(nextRun('0 0 29 2 */7', at('2026-03-01T00:00:00Z'), 'UTC')).toBeNull();
    expect(iso(nextRun('0 0 29 2 */7', at('2031-03-01T00:00:00Z'), 'UTC'))).toBe('2032-02-29T00:00:00.000Z');
  });
});

describe('clock changes both ways, where the package given the zone is wrong', () => {
  test('Europe/Berlin fall-back: 0 3 * * * runs at 03:00 CET (the package: 02:00 CET and again at 03:00)', () => {
    expect(runs('0 3 * * *', '2026-10-24T12:00:00Z', 'Europe/Berlin', 2)).toEqual(['2026-10-25T02:00:00.000Z', '2026-10-26T02:00:00.000Z']);
    expect(packageRuns('0 3 * * *', '2026-10-24T12:00:00Z', 'Europe/Berlin', 2)).toEqual(['2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z']);
  });

  test('Europe/Berlin fall-back: 30 2 * * * once, at the first 02:30, even when asked inside the repeated hour', () => {
    expect(runs('30 2 * * *', '2026-10-24T12:00:00Z', 'Europe/Berlin', 2)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    expect(iso(nextRun('30 2 * * *', at('2026-10-25T01:10:00Z'), 'Europe/Berlin'))).toBe('2026-10-26T01:30:00.000Z');
    expect(packageRuns('30 2 * * *', '2026-10-25T01:10:00Z', 'Europe/Berlin', 1)).toEqual(['2026-10-25T01:30:00.000Z']);
  });

  test('Europe/Berlin spring-forward: 30 * * * * does not run at 03:00 (the package makes one up)', () => {
    expect(runs('30 * * * *', '2026-03-29T00:00:00Z', 'Europe/Berlin', 2)).toEqual(['2026-03-29T00:30:00.000Z', '2026-03-29T01:30:00.000Z']);
    expect(packageRuns('30 * * * *', '2026-03-29T00:30:00Z', 'Europe/Berlin', 1)).toEqual(['2026-03-29T01:00:00.000Z']);
  });

  test('America/New_York both ways: 30 2 * * * at 03:00 EDT in March, once at 02:30 EST in November', () => {
    expect(runs('30 2 * * *', '2026-03-07T12:00:00Z', 'America/New_York', 2)).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
    expect(runs('30 1 * * *', '2026-10-31T12:00:00Z', 'America/New_York', 2)).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    expect(runs('*/30 * * * *', '2026-11-01T05:10:00Z', 'America/New_York', 4)).toEqual([
      '2026-11-01T05:30:00.000Z', // 01:30 EDT
      '2026-11-01T06:00:00.000Z', // 01:00 EST
      '2026-11-01T06:30:00.000Z', // 01:30 EST
      '2026-11-01T07:00:00.000Z', // 02:00 EST
    ]);
  });

  test('Australia/Sydney (1 January is summer time): a skipped 02:30 runs at 03:00 (the package: 03:30)', () => {
    // 2026-10-04 02:00 AEST → 03:00 AEDT (16:00Z).
    expect(runs('30 2 * * *', '2026-10-03T12:00:00Z', 'Australia/Sydney', 2)).toEqual(['2026-10-03T16:00:00.000Z', '2026-10-04T15:30:00.000Z']);
    expect(packageRuns('30 2 * * *', '2026-10-03T12:00:00Z', 'Australia/Sydney', 1)).toEqual(['2026-10-03T16:30:00.000Z']);
    // 2026-04-05 03:00 AEDT → 02:00 AEST (16:00Z): 02:30 runs the first time only; an hourly job both times.
    expect(runs('30 2 * * *', '2026-04-04T12:00:00Z', 'Australia/Sydney', 2)).toEqual(['2026-04-04T15:30:00.000Z', '2026-04-05T16:30:00.000Z']);
    expect(runs('30 * * * *', '2026-04-04T15:00:00Z', 'Australia/Sydney', 3)).toEqual(['2026-04-04T15:30:00.000Z', '2026-04-04T16:30:00.000Z', '2026-04-04T17:30:00.000Z']);
  });

  test('Australia/Lord_Howe (30-minute changes): the repeated half hour runs once for a daily job, twice for a real-time one', () => {
    // 2026-04-05 02:00 (+11) → 01:30 (+10:30) at 15:00Z: 01:45 is shown at 14:45Z and 15:15Z.
    expect(runs('45 1 * * *', '2026-04-04T12:00:00Z', 'Australia/Lord_Howe', 1)).toEqual(['2026-04-04T14:45:00.000Z']);
    expect(runs('45 * * * *', '2026-04-04T14:00:00Z', 'Australia/Lord_Howe', 3)).toEqual(['2026-04-04T14:45:00.000Z', '2026-04-04T15:15:00.000Z', '2026-04-04T16:15:00.000Z']);
  });

  test('firesAt and nextRun agree minute by minute through the Sydney changes', () => {
    for (const [from, to] of [['2026-04-04T13:00:00Z', '2026-04-04T19:00:00Z'], ['2026-10-03T13:00:00Z', '2026-10-03T19:00:00Z']] as const) {
      for (const expression of ['30 2 * * *', '*/20 * * * *', '0 1-4 * * *']) {
        const ticks: string[] = [];
        for (let t = at(from).getTime(); t < at(to).getTime(); t += MINUTE) if (firesAt(expression, new Date(t), 'Australia/Sydney')) ticks.push(new Date(t).toISOString());
        const chain: string[] = [];
        let cursor: Date | null = new Date(at(from).getTime() - MINUTE);
        while ((cursor = nextRun(expression, cursor, 'Australia/Sydney')) && cursor < at(to)) chain.push(cursor.toISOString());
        expect({ expression, chain }).toEqual({ expression, chain: ticks });
      }
    }
  });
});

describe('answers do not depend on what was asked before', () => {
  test('asking earlier after later (a clock step back) gives the earlier answer', () => {
    expect(iso(nextRun('0 3 * * *', at('2026-05-10T05:00:00Z'), 'UTC'))).toBe('2026-05-11T03:00:00.000Z');
    expect(iso(nextRun('0 3 * * *', at('2026-05-09T05:00:00Z'), 'UTC'))).toBe('2026-05-10T03:00:00.000Z');
    expect(firesAt('0 3 * * *', at('2026-05-10T03:00:00Z'), 'UTC')).toBe(true);
    expect(iso(nextRun('0 3 * * *', at('2026-05-10T02:00:00Z'), 'UTC'))).toBe('2026-05-10T03:00:00.000Z');
    // The same expression in another zone is another schedule.
    expect(iso(nextRun('0 3 * * *', at('2026-05-10T02:00:00Z'), 'Europe/Berlin'))).toBe('2026-05-11T01:00:00.000Z');
  });
});

describe('loading', () => {
  test('the package is loaded by the first run computed, not by importing the adapter or checking an expression', async () => {
    const script = `
      const adapter = await import(${JSON.stringify(join(import.meta.dir, '../../../src/core/time/cron-adapter.ts'))});
      const loaded = () => Object.keys(require.cache).some((path) => /node_modules\\/(cron|luxon)\\//.test(path));
      adapter.validateCron('0 3 * * *');
      const before = loaded();
      adapter.nextRun('0 3 * * *', new Date('2026-01-01T00:00:00Z'), 'UTC');
      console.log(JSON.stringify({ before, after: loaded() }));
    `;
    const child = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe' });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(out)).toEqual({ before: false, after: true });
  });
});
