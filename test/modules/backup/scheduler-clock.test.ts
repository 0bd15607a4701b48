/**
 * The backup scheduler on a fake clock (no controller, no timer: the test passes every tick):
 * a schedule runs once per due time whatever the wall clock does. Clock changes of the zone are
 * not steps (the instants go on); steps of the clock itself (NTP, `date -s`, a resumed VM) up to
 * 3 hours are made up once (forward) or waited out (back); beyond that the clock was set, the
 * scheduler starts over from the new time and the log says what that skipped or repeats.
 */
import { describe, expect, test } from 'bun:test';
import { BACKUP_DEFAULTS, type BackupConfig, type BackupSchedule } from '../../../src/modules/backup/config';
import type { BackupManager } from '../../../src/modules/backup/manager';
import { BackupScheduler } from '../../../src/modules/backup/scheduler';
import type { BackupStore } from '../../../src/modules/backup/store';
import type { Logger } from '../../../src/log';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function schedule(name: string, cron: string): BackupSchedule {
  return { name, cron, retentionClass: 'daily', targets: ['config'] };
}

/** A scheduler over stand-ins that record what it starts and logs, with the wall clock in the test's hands. */
function harness(schedules: BackupSchedule[], timezone = 'UTC') {
  let now = 0;
  const started: string[] = [];
  const lines: { level: string; msg: string }[] = [];
  const config: BackupConfig = { ...BACKUP_DEFAULTS, enabled: true, timezone, schedules };
  const manager = {
    start: (request: { scheduleName?: string }) => {
      started.push(request.scheduleName ?? '');
      return { rows: [], done: Promise.resolve([]) };
    },
    prune: () => Promise.resolve({ deleted: 0, freedBytes: 0, errors: [], dryRun: false }),
  } as unknown as BackupManager;
  const store = { logSchedule: () => undefined, scheduleLog: () => new Map() } as unknown as BackupStore;
  const record = (level: string) => (obj: unknown, msg?: string) => lines.push({ level, msg: typeof obj === 'string' ? obj : (msg ?? '') });
  const log = { trace: record('trace'), debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error'), fatal: record('fatal') } as unknown as Logger;
  const scheduler = new BackupScheduler(manager, store, () => config, log, () => now);
  return {
    scheduler,
    started,
    warnings: () => lines.filter((l) => l.level === 'warn' || l.level === 'error').map((l) => l.msg),
    /** Sets the clock and runs the tick the timer would run then. */
    tick(iso: string): string[] {
      now = Date.parse(iso);
      return scheduler.tick(new Date(now));
    },
    /** Ticks every minute in [fromIso, toIso); returns the minutes that ran something, with what. */
    everyMinute(fromIso: string, toIso: string): string[] {
      const out: string[] = [];
      for (let t = Date.parse(fromIso); t < Date.parse(toIso); t += MINUTE) {
        now = t + 50;
        for (const name of scheduler.tick(new Date(now))) out.push(`${new Date(t).toISOString()} ${name}`);
      }
      return out;
    },
    setNow(iso: string) {
      now = Date.parse(iso);
    },
  };
}

describe('minute by minute', () => {
  test('a day of ticks runs the daily schedule once, the hourly 24 times; a second tick in a minute runs nothing', () => {
    const h = harness([schedule('daily', '0 3 * * *'), schedule('hourly', '0 * * * *')]);
    const ran = h.everyMinute('2026-05-10T00:00:00Z', '2026-05-11T00:00:00Z');
    expect(ran.filter((r) => r.endsWith('daily'))).toEqual(['2026-05-10T03:00:00.000Z daily']);
    expect(ran.filter((r) => r.endsWith('hourly'))).toHaveLength(24);
    expect(h.tick('2026-05-11T00:00:00.100Z')).toEqual(['hourly']);
    expect(h.tick('2026-05-11T00:00:59.900Z')).toEqual([]);
    expect(h.warnings()).toEqual([]);
  });

  test('start covers the minute it starts in: the first tick that runs anything is the next minute', () => {
    const h = harness([schedule('every', '* * * * *')]);
    h.setNow('2026-05-10T03:00:20Z');
    h.scheduler.start();
    h.scheduler.stop();
    expect(h.tick('2026-05-10T03:00:40Z')).toEqual([]);
    expect(h.tick('2026-05-10T03:01:00.050Z')).toEqual(['every']);
  });

  test('the zone changing its clock is not a step: Berlin fall-back runs 02:30 once and */30 in both passes', () => {
    const h = harness([schedule('daily', '30 2 * * *'), schedule('half', '*/30 * * * *')], 'Europe/Berlin');
    const ran = h.everyMinute('2026-10-24T23:50:00Z', '2026-10-25T02:10:00Z');
    expect(ran).toEqual([
      '2026-10-25T00:00:00.000Z half', // 02:00 CEST
      '2026-10-25T00:30:00.000Z daily', // 02:30 CEST, the first time only
      '2026-10-25T00:30:00.000Z half',
      '2026-10-25T01:00:00.000Z half', // 02:00 CET
      '2026-10-25T01:30:00.000Z half',
      '2026-10-25T02:00:00.000Z half',
    ]);
    expect(h.warnings()).toEqual([]);
  });
});

describe('the wall clock steps forward', () => {
  test('up to 3 h: each schedule with a run in the minutes jumped over runs once, at the first tick after, and the log says so', () => {
    const h = harness([schedule('daily', '0 3 * * *'), schedule('quarter', '*/15 * * * *'), schedule('later', '0 5 * * *')]);
    h.everyMinute('2026-05-10T02:50:00Z', '2026-05-10T02:59:00Z');
    // 02:58 → 04:31: daily (03:00) and quarter (6 runs) were due; later (05:00) was not.
    expect(h.tick('2026-05-10T04:31:00.050Z')).toEqual(['daily', 'quarter']);
    expect(h.started.filter((s) => s === 'daily')).toHaveLength(1);
    expect(h.warnings()).toEqual([expect.stringContaining('made up once: daily (due 2026-05-10T03:00:00.000Z), quarter (due 2026-05-10T03:00:00.000Z)')]);
    // Then on as usual.
    expect(h.everyMinute('2026-05-10T04:32:00Z', '2026-05-10T05:01:00Z')).toEqual(['2026-05-10T04:45:00.000Z quarter', '2026-05-10T05:00:00.000Z quarter', '2026-05-10T05:00:00.000Z later']);
  });

  test('a tick one minute late (a busy event loop) makes up the minute it missed', () => {
    const h = harness([schedule('daily', '0 3 * * *')]);
    h.tick('2026-05-10T02:59:00.050Z');
    expect(h.tick('2026-05-10T03:01:00.050Z')).toEqual(['daily']);
    expect(h.tick('2026-05-10T03:02:00.050Z')).toEqual([]);
  });

  test('more than 3 h: the clock was set; runs jumped over are not made up, and the log names them', () => {
    const h = harness([schedule('daily', '0 3 * * *'), schedule('hourly', '0 * * * *')]);
    h.tick('2026-05-10T02:50:00Z');
    expect(h.tick('2026-05-10T09:00:00Z')).toEqual(['hourly']);
    expect(h.warnings()).toEqual([expect.stringMatching(/moved forward 6\.2 h .*not made up: daily \(due 2026-05-10T03:00:00\.000Z\), hourly \(due 2026-05-10T03:00:00\.000Z\)/)]);
    expect(h.started).toEqual(['hourly']);
  });
});

describe('the wall clock steps back', () => {
  test('up to 3 h: nothing runs again until the clock is past the last minute covered; logged once', () => {
    const h = harness([schedule('daily', '0 3 * * *'), schedule('five', '*/5 * * * *')]);
    expect(h.tick('2026-05-10T03:00:00.050Z')).toEqual(['daily', 'five']);
    h.tick('2026-05-10T03:01:00.050Z');
    // NTP sets the clock back 25 minutes: 02:36 again, then the minutes up to 03:01 come round again.
    expect(h.everyMinute('2026-05-10T02:36:00Z', '2026-05-10T03:02:00Z')).toEqual([]);
    expect(h.warnings()).toEqual([expect.stringContaining('the clock went back 25 min; the minutes up to 2026-05-10T03:01:00.000Z have had their runs')]);
    // Meanwhile the next run shown is the one the scheduler will make.
    h.setNow('2026-05-10T02:50:00Z');
    h.scheduler.tick(new Date('2026-05-10T02:50:00Z'));
    expect(h.scheduler.views().map((v) => [v.name, v.nextRunAt])).toEqual([
      ['daily', '2026-05-11T03:00:00.000Z'],
      ['five', '2026-05-10T03:05:00.000Z'],
    ]);
    // Past it, on as usual; the daily runs the next day and no earlier.
    const ran = h.everyMinute('2026-05-10T03:02:00Z', '2026-05-11T03:01:00Z');
    expect(ran.slice(0, 2)).toEqual(['2026-05-10T03:05:00.000Z five', '2026-05-10T03:10:00.000Z five']);
    expect(ran.filter((r) => r.endsWith('daily'))).toEqual(['2026-05-11T03:00:00.000Z daily']);
    expect(h.started.filter((s) => s === 'daily')).toHaveLength(2);
    expect(h.warnings()).toHaveLength(1);
  });

  test('more than 3 h: the clock was set; schedules run by the new time, and the log says a run may come again', () => {
    const h = harness([schedule('daily', '0 3 * * *')]);
    expect(h.tick('2026-05-10T03:00:00Z')).toEqual(['daily']);
    // Set back a day (the clock was wrong): 03:00 on the 9th comes round and runs.
    expect(h.tick('2026-05-09T02:59:00Z')).toEqual([]);
    expect(h.warnings()).toEqual([expect.stringContaining('the clock was set back 24.0 h')]);
    expect(h.tick('2026-05-09T03:00:00Z')).toEqual(['daily']);
  });
});
