import { describe, expect, test } from 'bun:test';
import { planPrune, type RetentionPolicy, type RetentionRow } from '../../../src/modules/backup/retention';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const POLICY: RetentionPolicy = { hourlyKeep: 24, dailyKeep: 7, weeklyKeep: 4, monthlyKeep: 3, keepManual: true, failedKeepDays: 7 };
const policy = (over: Partial<RetentionPolicy> = {}): RetentionPolicy => ({ ...POLICY, ...over });

let nextId = 1;
/** A SUCCESS hourly archive of service Lobby-1, started `ageMs` before NOW, unless told otherwise. */
function row(ageMs: number, over: Partial<Omit<RetentionRow, 'id' | 'startedAt'>> = {}): RetentionRow {
  const id = nextId++;
  return {
    id, targetType: 'SERVICE', targetName: 'Lobby-1', scheduleClass: 'hourly', status: 'SUCCESS',
    startedAt: NOW - ageMs, archivePath: `service-Lobby-1-${id}.tar.zst`, sizeBytes: 100, ...over,
  };
}
/** `count` rows one `step` apart, newest first (index 0 is the newest). */
const series = (count: number, step: number, over: Partial<Omit<RetentionRow, 'id' | 'startedAt'>> = {}): RetentionRow[] =>
  Array.from({ length: count }, (_, i) => row((i + 1) * step, over));

const removedIds = (rows: readonly RetentionRow[], p: RetentionPolicy, onlyClass?: string): number[] =>
  planPrune(rows, p, NOW, onlyClass).remove.map((r) => r.id).sort((a, b) => a - b);
const ids = (rows: readonly RetentionRow[]): number[] => rows.map((r) => r.id).sort((a, b) => a - b);

describe('keep-N per class', () => {
  const table: [string, keyof RetentionPolicy, string][] = [
    ['hourly', 'hourlyKeep', 'hourly'],
    ['daily', 'dailyKeep', 'daily'],
    ['weekly', 'weeklyKeep', 'weekly'],
    ['monthly', 'monthlyKeep', 'monthly'],
  ];
  test.each(table)('%s keeps exactly N newest, removes the rest', (_name, key, cls) => {
    const rows = series(10, HOUR, { scheduleClass: cls });
    const plan = planPrune(rows, policy({ [key]: 3 }), NOW);
    expect(ids(plan.remove)).toEqual(ids(rows.slice(3)));
  });

  test('fewer rows than N removes nothing', () => {
    expect(planPrune(series(5, HOUR), policy(), NOW).remove).toEqual([]);
  });

  test('exactly N rows removes nothing, N+1 removes the oldest', () => {
    const rows = series(25, HOUR);
    expect(removedIds(rows.slice(0, 24), policy())).toEqual([]);
    expect(removedIds(rows, policy())).toEqual([rows[24]!.id]);
  });

  test('keep 0 removes every archive of that class', () => {
    const rows = series(4, DAY, { scheduleClass: 'weekly' });
    expect(removedIds(rows, policy({ weeklyKeep: 0 }))).toEqual(ids(rows));
  });

  test('input order does not matter', () => {
    const rows = series(6, HOUR);
    const shuffled = [rows[3]!, rows[0]!, rows[5]!, rows[1]!, rows[4]!, rows[2]!];
    expect(removedIds(shuffled, policy({ hourlyKeep: 2 }))).toEqual(ids(rows.slice(2)));
  });

  test('ties on startedAt are broken by id: the higher id is newer', () => {
    const a = row(HOUR); const b = row(HOUR); const c = row(HOUR);
    expect(removedIds([c, a, b], policy({ hourlyKeep: 1 }))).toEqual([a.id, b.id]);
  });

  test('class names are matched case-insensitively', () => {
    const rows = series(3, HOUR, { scheduleClass: 'HOURLY' });
    expect(removedIds(rows, policy({ hourlyKeep: 1 }))).toEqual(ids(rows.slice(1)));
  });
});

describe('groups are independent', () => {
  test('two services in the same class each keep N', () => {
    const lobby = series(5, HOUR);
    const bedwars = series(5, HOUR, { targetName: 'BedWars-1' });
    const plan = planPrune([...lobby, ...bedwars], policy({ hourlyKeep: 2 }), NOW);
    expect(ids(plan.remove)).toEqual(ids([...lobby.slice(2), ...bedwars.slice(2)]));
  });

  test('same name, different target type are separate groups', () => {
    const service = series(3, HOUR, { targetName: 'all' });
    const db = series(3, HOUR, { targetType: 'DATABASE', targetName: 'all' });
    expect(removedIds([...service, ...db], policy({ hourlyKeep: 3 }))).toEqual([]);
  });

  test('classes of one target have separate budgets', () => {
    const hourly = series(5, HOUR);
    const daily = series(5, DAY, { scheduleClass: 'daily' });
    const plan = planPrune([...hourly, ...daily], policy({ hourlyKeep: 1, dailyKeep: 4 }), NOW);
    expect(ids(plan.remove)).toEqual(ids([...hourly.slice(1), daily[4]!]));
    expect(plan.byClass).toEqual({ hourly: 4, daily: 1 });
  });
});

describe('status handling', () => {
  test('RUNNING rows are never removed, not even with keep 0 and very old', () => {
    const running = [row(HOUR, { status: 'RUNNING', archivePath: '' }), row(365 * DAY, { status: 'RUNNING', archivePath: '' })];
    expect(planPrune(running, policy({ hourlyKeep: 0, failedKeepDays: 1 }), NOW).remove).toEqual([]);
  });

  test('RUNNING rows do not use up the budget', () => {
    const running = row(0, { status: 'RUNNING', archivePath: '' });
    const done = series(2, HOUR);
    expect(removedIds([running, ...done], policy({ hourlyKeep: 2 }))).toEqual([]);
  });

  test('PARTIAL with an archive counts toward the budget and can be removed', () => {
    const partial = row(HOUR, { status: 'PARTIAL' });
    const older = series(2, 2 * HOUR);
    expect(removedIds([partial, ...older], policy({ hourlyKeep: 2 }))).toEqual([older[1]!.id]);
    const newest = row(0);
    expect(removedIds([newest, partial], policy({ hourlyKeep: 1 }))).toEqual([partial.id]);
  });

  test('24 archive-less PARTIAL rows do not push out the real hourly backups', () => {
    const skips = series(24, 10 * 60_000, { status: 'PARTIAL', archivePath: '', sizeBytes: 0 });
    const real = series(24, HOUR);
    expect(planPrune([...skips, ...real], policy(), NOW).remove).toEqual([]);
  });

  test('archive-less PARTIAL rows age out after failedKeepDays like FAILED rows', () => {
    const old = row(8 * DAY, { status: 'PARTIAL', archivePath: '', sizeBytes: 0 });
    const recent = row(6 * DAY, { status: 'PARTIAL', archivePath: '', sizeBytes: 0 });
    expect(removedIds([old, recent], policy())).toEqual([old.id]);
  });

  const failedTable: [string, number, number, boolean][] = [
    ['older than failedKeepDays', 8 * DAY, 7, true],
    ['one ms past the limit', 7 * DAY + 1, 7, true],
    ['exactly at the limit', 7 * DAY, 7, false],
    ['newer than failedKeepDays', 6 * DAY, 7, false],
    ['failedKeepDays 0 keeps even a year-old failure', 365 * DAY, 0, false],
  ];
  test.each(failedTable)('FAILED %s → removed %p', (_name, age, days, removed) => {
    const failed = row(age, { status: 'FAILED', archivePath: '', sizeBytes: 0 });
    expect(removedIds([failed], policy({ failedKeepDays: days }))).toEqual(removed ? [failed.id] : []);
  });

  test('FAILED rows do not use up the budget', () => {
    const failed = series(5, 10 * 60_000, { status: 'FAILED', archivePath: '' });
    const ok = series(2, HOUR);
    expect(removedIds([...failed, ...ok], policy({ hourlyKeep: 2 }))).toEqual([]);
  });

  test('old FAILED rows of an unknown class or of manual with keepManual are still removed', () => {
    const a = row(30 * DAY, { status: 'FAILED', archivePath: '', scheduleClass: 'yearly' });
    const b = row(30 * DAY, { status: 'FAILED', archivePath: '', scheduleClass: 'manual' });
    expect(removedIds([a, b], policy())).toEqual([a.id, b.id]);
  });
});

describe('onlyClass', () => {
  const hourly = series(4, HOUR);
  const daily = series(4, DAY, { scheduleClass: 'daily' });
  const failed = row(30 * DAY, { status: 'FAILED', archivePath: '' });
  const skip = row(30 * DAY, { status: 'PARTIAL', archivePath: '' });
  const all = [...hourly, ...daily, failed, skip];
  const p = policy({ hourlyKeep: 1, dailyKeep: 1 });

  test('without a filter every class and the old failures are planned', () => {
    expect(removedIds(all, p)).toEqual(ids([...hourly.slice(1), ...daily.slice(1), failed, skip]));
  });

  test('restricts the plan to one class and leaves failures alone', () => {
    const plan = planPrune(all, p, NOW, 'daily');
    expect(ids(plan.remove)).toEqual(ids(daily.slice(1)));
    expect(plan.byClass).toEqual({ daily: 3 });
  });

  test('is case-insensitive', () => {
    expect(removedIds(all, p, 'HOURLY')).toEqual(ids(hourly.slice(1)));
  });

  test('an unknown class filter removes nothing', () => {
    expect(planPrune(all, p, NOW, 'yearly').remove).toEqual([]);
  });
});

describe('unknown and manual classes', () => {
  test('an unknown class is kept, however many and however old', () => {
    const rows = series(50, 30 * DAY, { scheduleClass: 'yearly' });
    expect(planPrune(rows, policy({ hourlyKeep: 0, dailyKeep: 0, weeklyKeep: 0, monthlyKeep: 0 }), NOW).remove).toEqual([]);
  });

  test('keepManual true keeps every manual archive, even with dailyKeep 0', () => {
    const rows = series(30, DAY, { scheduleClass: 'manual' });
    expect(planPrune(rows, policy({ keepManual: true, dailyKeep: 0 }), NOW).remove).toEqual([]);
    expect(planPrune(rows, policy({ keepManual: true, dailyKeep: 0 }), NOW, 'manual').remove).toEqual([]);
  });

  test('keepManual false keeps the dailyKeep newest manual archives per target, not zero', () => {
    const lobby = series(10, DAY, { scheduleClass: 'manual' });
    const db = series(2, DAY, { scheduleClass: 'manual', targetType: 'DATABASE', targetName: 'all' });
    const plan = planPrune([...lobby, ...db], policy({ keepManual: false, dailyKeep: 7 }), NOW);
    expect(ids(plan.remove)).toEqual(ids(lobby.slice(7)));
    expect(plan.byClass).toEqual({ manual: 3 });
  });

  test('keepManual false shares only the number with daily, not the budget', () => {
    const manual = series(3, DAY, { scheduleClass: 'manual' });
    const daily = series(3, DAY, { scheduleClass: 'daily' });
    expect(removedIds([...manual, ...daily], policy({ keepManual: false, dailyKeep: 3 }))).toEqual([]);
  });
});

describe('plan totals', () => {
  test('freedBytes sums the removed archives only; byClass counts every removed row', () => {
    const kept = row(HOUR, { sizeBytes: 1_000_000 });
    const gone1 = row(2 * HOUR, { sizeBytes: 300 });
    const gone2 = row(3 * HOUR, { status: 'PARTIAL', sizeBytes: 45 });
    const failed = row(30 * DAY, { status: 'FAILED', archivePath: '', sizeBytes: 999 });
    const plan = planPrune([kept, gone1, gone2, failed], policy({ hourlyKeep: 1 }), NOW);
    expect(ids(plan.remove)).toEqual(ids([gone1, gone2, failed]));
    expect(plan.freedBytes).toBe(345);
    expect(plan.byClass).toEqual({ hourly: 3 });
  });

  test('remove is ordered oldest first', () => {
    const rows = series(5, HOUR);
    const plan = planPrune(rows, policy({ hourlyKeep: 0 }), NOW);
    expect(plan.remove.map((r) => r.id)).toEqual(rows.map((r) => r.id).reverse());
  });

  test('an empty table plans nothing', () => {
    expect(planPrune([], policy(), NOW)).toEqual({ remove: [], freedBytes: 0, byClass: {} });
  });

  test('a negative keep (config error) is read as keep everything', () => {
    expect(planPrune(series(5, HOUR), policy({ hourlyKeep: -1 }), NOW).remove).toEqual([]);
  });

  test('the input rows are not mutated or reordered', () => {
    const rows = [row(3 * HOUR), row(HOUR), row(2 * HOUR)];
    const before = JSON.stringify(rows);
    planPrune(rows, policy({ hourlyKeep: 1 }), NOW);
    expect(JSON.stringify(rows)).toBe(before);
  });
});
