/**
 * The backup scheduler through a real controller, driven minute by minute with
 * `runtime.scheduler.tick(date)` (the real minute timer is stopped): a schedule fires once in a
 * matching minute (a second tick in that minute does nothing), its runs are recorded with the
 * schedule's name and `triggeredBy: scheduler`, the schedule log (GET /schedules) is written when
 * the run has ended; `enabled = false` pauses it; cron is read in the config's time zone; a target
 * still busy from another run makes the tick log and record FAILED without a 500 or a crash; the
 * hourly retention runs from the tick. A PUT config is what the next tick uses.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcEvent } from '../../../src/events/catalogue';
import { backupModule, backupRuntimeOf } from '../../../src/modules/backup';
import type { BackupConfig } from '../../../src/modules/backup/config';
import type { BackupView } from '../../../src/modules/backup/model';
import type { BackupRuntime } from '../../../src/modules/backup/runtime';
import { readJson, startController, waitFor, type TestController } from '../../support/controller';

interface ScheduleView {
  name: string;
  cron: string;
  retentionClass: string;
  targets: string[];
  lastRunAt: string | null;
  nextRunAt: string | null;
  lastStatus: string;
}

let c: TestController;
let runtime: BackupRuntime;
const events: SvcEvent[] = [];

beforeAll(async () => {
  c = await startController({ modules: [backupModule] });
  runtime = backupRuntimeOf(c.controller.kernel);
  // Only the test's ticks run schedules.
  runtime.scheduler.stop();
  c.controller.kernel.bus.subscribe((e) => events.push(e));
});
afterAll(() => c.stop());

/** PUTs the current config with these fields replaced (the scheduler reads it at the next tick). */
async function configure(change: Partial<BackupConfig>): Promise<void> {
  const res = await c.api('/api/backups/config', { method: 'PUT', json: { ...runtime.config(), ...change } });
  expect(res.status).toBe(200);
}

async function schedules(): Promise<ScheduleView[]> {
  const res = await c.api('/api/backups/schedules');
  expect(res.status).toBe(200);
  return (await readJson(res)) as ScheduleView[];
}

async function recordsOf(scheduleName: string): Promise<BackupView[]> {
  const res = await c.api('/api/backups?limit=1000');
  expect(res.status).toBe(200);
  return ((await readJson(res)).backups as BackupView[]).filter((b) => b.scheduleName === scheduleName);
}

const at = (iso: string) => new Date(iso);
const EVERY_MINUTE = { name: 'every', cron: '* * * * *', retentionClass: 'hourly' as const, targets: ['config'] };

describe('a schedule that fires every minute', () => {
  beforeAll(() => configure({ enabled: true, timezone: 'UTC', schedules: [EVERY_MINUTE] }));

  test('fires once per minute: a second tick in the same minute does nothing; the record names the schedule and the scheduler', async () => {
    const since = events.length;
    expect(runtime.scheduler.tick(at('2025-03-10T12:00:00.000Z'))).toEqual(['every']);
    // The run has started (RUNNING, stored synchronously) and has not ended: the schedule log is not written yet.
    const running = runtime.store.running();
    expect(running.map((b) => [b.targetType, b.scheduleName, b.scheduleClass, b.triggeredBy])).toEqual([['CONFIG', 'every', 'hourly', 'scheduler']]);
    expect(runtime.scheduler.views()).toEqual([{ ...EVERY_MINUTE, lastRunAt: null, nextRunAt: expect.any(String), lastStatus: '' }]);

    expect(runtime.scheduler.tick(at('2025-03-10T12:00:30.000Z'))).toEqual([]);
    expect(runtime.scheduler.tick(at('2025-03-10T12:00:59.999Z'))).toEqual([]);
    await runtime.manager.settled();

    const records = await recordsOf('every');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ targetType: 'CONFIG', targetName: 'all', scheduleClass: 'hourly', scheduleName: 'every', status: 'SUCCESS', triggeredBy: 'scheduler' });
    expect(records[0]!.archivePath).toStartWith('config-all-hourly-');

    // After the run: the log holds the tick's minute and the outcome.
    const [view] = await waitFor(async () => {
      const list = await schedules();
      return list[0]?.lastStatus === 'SUCCESS' ? list : null;
    }, { what: 'the schedule log of the first run' });
    expect(view).toEqual({ ...EVERY_MINUTE, lastRunAt: '2025-03-10T12:00:00.000Z', nextRunAt: expect.any(String), lastStatus: 'SUCCESS' });
    // The next run is the next real minute (the views use the real clock).
    const next = Date.parse(view!.nextRunAt!);
    expect(next % 60_000).toBe(0);
    expect(next).toBeGreaterThan(Date.now() - 60_000);
    expect(next).toBeLessThanOrEqual(Date.now() + 60_000);

    // Events: started by the system on the scheduler's behalf, then completed.
    const started = events.slice(since).filter((e) => e.type === 'BACKUP_STARTED');
    expect(started.map((e) => [e.data.id, e.data.triggeredBy, e.actor])).toEqual([[String(records[0]!.id), 'scheduler', 'system']]);
    expect(events.slice(since).filter((e) => e.type === 'BACKUP_COMPLETED').map((e) => [e.data.id, e.data.status])).toEqual([[String(records[0]!.id), 'SUCCESS']]);

    // The next minute fires again, and the log moves on.
    expect(runtime.scheduler.tick(at('2025-03-10T12:01:00.000Z'))).toEqual(['every']);
    await runtime.manager.settled();
    expect(await recordsOf('every')).toHaveLength(2);
    await waitFor(async () => (await schedules())[0]?.lastRunAt === '2025-03-10T12:01:00.000Z', { what: 'the schedule log of the second run' });
  });

  test('a schedule whose source is missing logs PARTIAL', async () => {
    await configure({ schedules: [{ name: 'tpl', cron: '* * * * *', retentionClass: 'daily', targets: ['templates'] }] });
    rmSync(join(c.dir, 'templates'), { recursive: true, force: true });
    expect(runtime.scheduler.tick(at('2025-03-10T12:05:00.000Z'))).toEqual(['tpl']);
    await runtime.manager.settled();
    const [record] = await recordsOf('tpl');
    expect(record).toMatchObject({ status: 'PARTIAL', archivePath: '' });
    await waitFor(async () => (await schedules())[0]?.lastStatus === 'PARTIAL', { what: 'the PARTIAL outcome in the schedule log' });
  });
});

describe('enabled = false', () => {
  test('pauses the schedules: a matching minute starts nothing and there is no next run', async () => {
    await configure({ enabled: false, timezone: 'UTC', schedules: [{ ...EVERY_MINUTE, name: 'paused' }] });
    expect(runtime.scheduler.tick(at('2025-03-10T13:00:00.000Z'))).toEqual([]);
    expect(runtime.store.running()).toEqual([]);
    await runtime.manager.settled();
    expect(await recordsOf('paused')).toEqual([]);
    expect(await schedules()).toEqual([{ ...EVERY_MINUTE, name: 'paused', lastRunAt: null, nextRunAt: null, lastStatus: '' }]);

    // Turned back on by a PUT: the next minute fires.
    await configure({ enabled: true });
    expect(runtime.scheduler.tick(at('2025-03-10T13:01:00.000Z'))).toEqual(['paused']);
    await runtime.manager.settled();
    expect(await recordsOf('paused')).toHaveLength(1);
  });
});

describe('time zones', () => {
  const BERLIN = { name: 'berlin', cron: '0 3 * * *', retentionClass: 'daily' as const, targets: ['config'] };
  beforeAll(() => configure({ enabled: true, timezone: 'Europe/Berlin', schedules: [BERLIN] }));

  test('"0 3 * * *" in Europe/Berlin fires at 02:00Z in winter (CET) and not at 03:00Z', async () => {
    expect(runtime.scheduler.tick(at('2025-01-15T02:00:00.000Z'))).toEqual(['berlin']);
    await runtime.manager.settled();
    expect(runtime.scheduler.tick(at('2025-01-15T03:00:00.000Z'))).toEqual([]);
    expect(runtime.scheduler.tick(at('2025-01-15T01:00:00.000Z'))).toEqual([]);
    expect(await recordsOf('berlin')).toHaveLength(1);
    await waitFor(async () => (await schedules())[0]?.lastRunAt === '2025-01-15T02:00:00.000Z', { what: 'the winter run in the log' });
  });

  test('and at 01:00Z in summer (CEST), not at 02:00Z', async () => {
    expect(runtime.scheduler.tick(at('2025-07-15T02:00:00.000Z'))).toEqual([]);
    expect(runtime.scheduler.tick(at('2025-07-16T01:00:00.000Z'))).toEqual(['berlin']);
    await runtime.manager.settled();
    expect(await recordsOf('berlin')).toHaveLength(2);
  });

  test('the next run is 03:00 Berlin time', async () => {
    const [view] = await schedules();
    const next = new Date(view!.nextRunAt!);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    const berlin = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(next);
    expect(berlin).toBe('03:00');
  });
});

describe('a schedule whose target is still being backed up', () => {
  test('logs and records FAILED for that minute, without a 500 or a crash; the next minute runs again', async () => {
    // A slow manual run of the config folder: zstd level 19 on incompressible bytes, one worker.
    await configure({ enabled: true, timezone: 'UTC', compressionLevel: 19, compressionWorkers: 1, schedules: [{ ...EVERY_MINUTE, name: 'busy' }] });
    const big = join(c.dir, 'config', 'big.bin');
    writeFileSync(big, randomBytes(6 * 1024 * 1024));
    const res = await c.api('/api/backups/trigger', { method: 'POST', json: { targets: ['config'] } });
    expect(res.status).toBe(201);
    const [manual] = (await readJson(res)).backups as [BackupView];

    expect(runtime.store.get(manual.id)!.status).toBe('RUNNING');
    expect(runtime.scheduler.tick(at('2025-03-11T08:00:00.000Z'))).toEqual(['busy']);
    expect(runtime.store.get(manual.id)!.status).toBe('RUNNING');
    // Refused before anything was stored; the log says FAILED at once (there is no run to wait for).
    expect(await recordsOf('busy')).toEqual([]);
    expect(await schedules()).toEqual([{ ...EVERY_MINUTE, name: 'busy', lastRunAt: '2025-03-11T08:00:00.000Z', nextRunAt: expect.any(String), lastStatus: 'FAILED' }]);
    expect(c.logs.some((line) => line.includes('backup schedule busy did not run'))).toBe(true);
    const status = await c.api('/api/backups/status');
    expect(status.status).toBe(200);
    expect((await readJson(status)).activeJobs).toBe(1);

    // When the manual run is over, the next minute backs up as usual (bounded: a hung archiver fails here).
    await waitFor(() => runtime.store.get(manual.id)!.status !== 'RUNNING', { timeoutMs: 4_000, intervalMs: 25, what: 'the slow manual run to end' });
    await runtime.manager.settled();
    expect((await c.api(`/api/backups/${manual.id}`)).status).toBe(200);
    rmSync(big);
    await configure({ compressionLevel: 3, compressionWorkers: 0 });
    expect(runtime.scheduler.tick(at('2025-03-11T08:01:00.000Z'))).toEqual(['busy']);
    await runtime.manager.settled();
    expect((await recordsOf('busy')).map((b) => b.status)).toEqual(['SUCCESS']);
    await waitFor(async () => (await schedules())[0]?.lastStatus === 'SUCCESS', { what: 'the schedule log after the busy minute' });
  });
});

describe('a schedule with one target busy and another free', () => {
  test('backs up the free one and leaves the busy one to the run still going', async () => {
    await configure({ enabled: true, timezone: 'UTC', compressionLevel: 19, compressionWorkers: 1, schedules: [{ ...EVERY_MINUTE, name: 'mixed', targets: ['config', 'database'] }] });
    const big = join(c.dir, 'config', 'big-mixed.bin');
    writeFileSync(big, randomBytes(6 * 1024 * 1024));
    const res = await c.api('/api/backups/trigger', { method: 'POST', json: { targets: ['config'] } });
    expect(res.status).toBe(201);
    const [manual] = (await readJson(res)).backups as [BackupView];
    expect(runtime.store.get(manual.id)!.status).toBe('RUNNING');

    expect(runtime.scheduler.tick(at('2025-03-12T09:00:00.000Z'))).toEqual(['mixed']);
    // Only the database was started by the schedule; the config folder stays with the manual run.
    expect((await recordsOf('mixed')).map((b) => b.targetType)).toEqual(['DATABASE']);
    expect(c.logs.some((line) => line.includes('still being backed up by an earlier one'))).toBe(true);
    await runtime.manager.settled();
    rmSync(big);
    await configure({ compressionLevel: 3, compressionWorkers: 0 });
    expect((await recordsOf('mixed')).map((b) => b.status)).toEqual(['SUCCESS']);
  });
});

describe('retention from the tick', () => {
  test('the first tick an hour after the last prune applies retention as the system', async () => {
    await configure({ schedules: [], retention: { ...runtime.config().retention, dailyKeep: 1 } });
    // Two daily backups of the config folder (from the Berlin schedule) exist; keep one.
    const daily = (await recordsOf('berlin')).filter((b) => b.status === 'SUCCESS');
    expect(daily).toHaveLength(2);
    const since = events.length;
    // An hour past the scheduler's start (its first prune is due a minute after it starts).
    expect(runtime.scheduler.tick(new Date(Date.now() + 2 * 3_600_000))).toEqual([]);
    const pruned = await waitFor(() => events.slice(since).find((e) => e.type === 'BACKUP_PRUNED'), { what: 'BACKUP_PRUNED from the tick' });
    expect(pruned.actor).toBe('system');
    expect(pruned.data.count).toBe('1');
    const left = (await recordsOf('berlin')).filter((b) => b.status === 'SUCCESS');
    expect(left.map((b) => b.id)).toEqual([Math.max(...daily.map((b) => b.id))]);
  });
});
