/**
 * GET and PUT /api/backups/config through a real controller: the dashboard's BackupModuleConfig
 * shape, a PUT that reads back the same through GET and through config/modules/backup/backup.toml
 * (snake_case under [backup]), the dashboard's own PUT (the fetched object spread with one field
 * changed, which must keep the fields its types lack, like retention.failedKeepDays), refusals
 * that name the field and leave the file as it was, and who may read and who may write.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import type { BackupConfig } from '../../../src/modules/backup/config';
import { backupRuntimeOf } from '../../../src/modules/backup';
import { BUILTIN_MODULES } from '../../../src/modules/builtin';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';
import { loginAs, testPlayer } from '../../support/dashboard-login';

const VIEW = 'svc.dashboard.backups.view';
const MANAGE = 'svc.dashboard.backups.manage';

let c: TestController;
let file: string;

beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES });
  // Tests drive nothing on the clock here; the real minute timer must not start a schedule mid-test.
  backupRuntimeOf(c.controller.kernel).scheduler.stop();
  file = join(c.dir, 'config', 'modules', 'backup', 'backup.toml');
});
afterAll(() => c.stop());

async function getConfig(token?: string): Promise<BackupConfig> {
  const res = await c.api('/api/backups/config', { token });
  expect(res.status).toBe(200);
  return (await readJson(res)) as BackupConfig;
}

const putConfig = (json: unknown, token?: string) => c.api('/api/backups/config', { method: 'PUT', json, token });

/** The file's [backup] table turned back into the API's camelCase shape. */
function fileAsConfig(): BackupConfig {
  const doc = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  expect(Object.keys(doc)).toEqual(['backup']);
  const b = doc.backup as Record<string, unknown>;
  const scope = b.scope as Record<string, boolean>;
  const retention = b.retention as Record<string, number | boolean>;
  const schedules = (b.schedules ?? []) as Record<string, unknown>[];
  return {
    enabled: b.enabled as boolean,
    localDestination: b.local_destination as string,
    maxConcurrent: b.max_concurrent as number,
    compressionLevel: b.compression_level as number,
    compressionWorkers: b.compression_workers as number,
    quiesceServices: b.quiesce_services as boolean,
    quiesceWaitSeconds: b.quiesce_wait_seconds as number,
    timezone: b.timezone as string,
    includeAuthKey: b.include_auth_key as boolean,
    scope: {
      services: scope.services!,
      dedicated: scope.dedicated!,
      templates: scope.templates!,
      controllerConfig: scope.controller_config!,
      stateSync: scope.state_sync!,
      database: scope.database!,
    },
    excludes: (b.excludes as { patterns: string[] }).patterns,
    schedules: schedules.map((s) => ({ name: s.name, cron: s.cron, retentionClass: s.retention_class, targets: s.targets }) as BackupConfig['schedules'][number]),
    retention: {
      hourlyKeep: retention.hourly_keep as number,
      dailyKeep: retention.daily_keep as number,
      weeklyKeep: retention.weekly_keep as number,
      monthlyKeep: retention.monthly_keep as number,
      keepManual: retention.keep_manual as boolean,
      failedKeepDays: retention.failed_keep_days as number,
    },
  };
}

/** A configuration unlike the defaults in every field. */
const CUSTOM: BackupConfig = {
  enabled: false,
  localDestination: 'data/archives',
  maxConcurrent: 5,
  compressionLevel: 9,
  compressionWorkers: 3,
  quiesceServices: false,
  quiesceWaitSeconds: 11,
  timezone: 'Europe/Berlin',
  includeAuthKey: true,
  scope: { services: false, dedicated: true, templates: false, controllerConfig: true, stateSync: false, database: true },
  excludes: ['*.tmp', 'world/playerdata/**'],
  schedules: [
    { name: 'nightly', cron: '30 2 * * *', retentionClass: 'daily', targets: ['database', 'config'] },
    { name: 'Every-15', cron: '*/15 * * * 1-5', retentionClass: 'hourly', targets: ['templates'] },
  ],
  retention: { hourlyKeep: 12, dailyKeep: 5, weeklyKeep: 2, monthlyKeep: 1, keepManual: false, failedKeepDays: 30 },
};

describe('GET /api/backups/config', () => {
  test('answers the dashboard’s BackupModuleConfig shape with the §6 defaults, and the file on disk says the same', async () => {
    const config = await getConfig();
    expect(Object.keys(config).sort()).toEqual(
      ['compressionLevel', 'compressionWorkers', 'enabled', 'excludes', 'includeAuthKey', 'localDestination', 'maxConcurrent', 'quiesceServices', 'quiesceWaitSeconds', 'retention', 'schedules', 'scope', 'timezone'].sort(),
    );
    expect(config).toMatchObject({ enabled: true, localDestination: 'data/backups', maxConcurrent: 2, compressionLevel: 3, compressionWorkers: 0, quiesceServices: true, quiesceWaitSeconds: 2 });
    expect(typeof config.timezone).toBe('string');
    expect(config.timezone.length).toBeGreaterThan(0);
    expect(config.scope).toEqual({ services: true, dedicated: true, templates: true, controllerConfig: true, stateSync: true, database: true });
    expect(config.excludes).toContain('logs/**');
    expect(config.excludes).toContain('session.lock');
    expect(config.schedules).toEqual([
      { name: 'hourly', cron: '0 * * * *', retentionClass: 'hourly', targets: ['services', 'dedicated', 'database'] },
      { name: 'daily', cron: '0 3 * * *', retentionClass: 'daily', targets: ['all'] },
      { name: 'weekly', cron: '0 4 * * 0', retentionClass: 'weekly', targets: ['all'] },
    ]);
    expect(config.retention).toEqual({ hourlyKeep: 24, dailyKeep: 7, weeklyKeep: 4, monthlyKeep: 3, keepManual: true, failedKeepDays: 7 });
    // The first start wrote the defaults down (with the zone it resolved), so the file and the API agree.
    expect(fileAsConfig()).toEqual(config);
  });
});

describe('PUT /api/backups/config', () => {
  test('round-trips: the answer, a later GET and the TOML file all hold what was sent', async () => {
    const res = await putConfig(CUSTOM);
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual(CUSTOM);
    expect(await getConfig()).toEqual(CUSTOM);
    expect(fileAsConfig()).toEqual(CUSTOM);
    // In force at once: the runtime reads the new config, and the status route reports the new destination.
    expect(backupRuntimeOf(c.controller.kernel).config()).toEqual(CUSTOM);
    const status = await readJson(await c.api('/api/backups/status'));
    expect(status.localDestination).toBe(join(c.dir, 'data', 'archives'));
    expect(status.schedules.map((s: { name: string }) => s.name)).toEqual(['nightly', 'Every-15']);
  });

  test('the dashboard’s PUT (the fetched object spread, one field changed) changes only that field and keeps failedKeepDays', async () => {
    const before = await getConfig();
    const res = await putConfig({ ...before, maxConcurrent: before.maxConcurrent + 1 });
    expect(res.status).toBe(200);
    const after = await getConfig();
    expect(after).toEqual({ ...before, maxConcurrent: before.maxConcurrent + 1 });
    expect(after.retention.failedKeepDays).toBe(before.retention.failedKeepDays);

    // The same with a nested object: the retention editor spreads retention too.
    const res2 = await putConfig({ ...after, retention: { ...after.retention, dailyKeep: 9 } });
    expect(res2.status).toBe(200);
    expect(await getConfig()).toEqual({ ...after, retention: { ...after.retention, dailyKeep: 9 } });
    expect(fileAsConfig()).toEqual({ ...after, retention: { ...after.retention, dailyKeep: 9 } });
  });

  test('fields left out take their defaults', async () => {
    const res = await putConfig({ maxConcurrent: 4, scope: { database: false } });
    expect(res.status).toBe(200);
    const config = await getConfig();
    expect(config.maxConcurrent).toBe(4);
    expect(config.scope).toEqual({ services: true, dedicated: true, templates: true, controllerConfig: true, stateSync: true, database: false });
    expect(config.localDestination).toBe('data/backups');
    expect(config.schedules.map((s) => s.name)).toEqual(['hourly', 'daily', 'weekly']);
    expect(fileAsConfig()).toEqual(config);
  });

  const refusals: { what: string; change: (base: BackupConfig) => unknown; field: string }[] = [
    { what: 'a cron expression that does not parse', change: (b) => ({ ...b, schedules: [{ ...b.schedules[0]!, cron: '61 * * * *' }] }), field: 'schedules[0].cron' },
    { what: 'a cron expression with too few fields', change: (b) => ({ ...b, schedules: [b.schedules[0]!, { ...b.schedules[0]!, name: 'two', cron: '* * *' }] }), field: 'schedules[1].cron' },
    { what: 'an unknown retention class', change: (b) => ({ ...b, schedules: [{ ...b.schedules[0]!, retentionClass: 'yearly' }] }), field: 'schedules[0].retentionClass' },
    { what: 'an unknown schedule target', change: (b) => ({ ...b, schedules: [{ ...b.schedules[0]!, targets: ['database', 'worlds'] }] }), field: 'schedules[0].targets[1]' },
    { what: 'maxConcurrent 0', change: (b) => ({ ...b, maxConcurrent: 0 }), field: 'maxConcurrent' },
    { what: 'compressionLevel 23', change: (b) => ({ ...b, compressionLevel: 23 }), field: 'compressionLevel' },
    { what: 'a negative keep', change: (b) => ({ ...b, retention: { ...b.retention, hourlyKeep: -1 } }), field: 'retention.hourlyKeep' },
    { what: 'an unknown time zone', change: (b) => ({ ...b, timezone: 'Mars/Olympus' }), field: 'timezone' },
    { what: 'a duplicate schedule name (ignoring case)', change: (b) => ({ ...b, schedules: [b.schedules[0]!, { ...b.schedules[1]!, name: b.schedules[0]!.name.toUpperCase() }] }), field: 'schedules[1].name' },
    { what: 'an unknown key', change: (b) => ({ ...b, maxConcurent: 3 }), field: 'maxConcurent' },
    { what: 'a body that is not an object', change: () => [1, 2], field: 'body' },
  ];

  for (const { what, change, field } of refusals) {
    test(`refuses ${what} with 400 BACKUP_CONFIG_INVALID naming ${field}; the file and the config stay as they were`, async () => {
      const before = await getConfig();
      const text = readFileSync(file, 'utf8');
      const res = await putConfig(change(before));
      expect(res.status).toBe(400);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('BACKUP_CONFIG_INVALID');
      expect(body.message.startsWith(`${field}:`)).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(await getConfig()).toEqual(before);
    });
  }
});

describe('who may read and write the backup config', () => {
  test('the service token is refused both ways (admin routes)', async () => {
    const get = await c.api('/api/backups/config', { token: c.service });
    expect(get.status).toBe(403);
    expect((await expectErrorBody(get)).error).toBe('FORBIDDEN');
    const text = readFileSync(file, 'utf8');
    const put = await putConfig({ maxConcurrent: 7 }, c.service);
    expect(put.status).toBe(403);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  test('no token is 401', async () => {
    const res = await c.api('/api/backups/config', { token: null });
    expect(res.status).toBe(401);
    await expectErrorBody(res);
  });

  test('a session with the view node reads the config but may not replace it', async () => {
    const viewer = await loginAs(c, testPlayer(71, 'BackupViewer'), [VIEW]);
    const config = await getConfig(viewer);
    expect(config).toEqual(await getConfig());
    const text = readFileSync(file, 'utf8');
    const res = await putConfig({ ...config, maxConcurrent: 8 }, viewer);
    expect(res.status).toBe(403);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('FORBIDDEN');
    expect(body.message).toStartWith(`Missing permission: ${MANAGE}`);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  test('a session with neither node may not even read it; one with the manage node may write', async () => {
    const stranger = await loginAs(c, testPlayer(72, 'BackupStranger'), []);
    const denied = await c.api('/api/backups/config', { token: stranger });
    expect(denied.status).toBe(403);
    expect((await expectErrorBody(denied)).message).toStartWith(`Missing permission: ${VIEW}`);

    const manager = await loginAs(c, testPlayer(73, 'BackupManager'), [VIEW, MANAGE]);
    const config = await getConfig(manager);
    const res = await putConfig({ ...config, compressionLevel: 7 }, manager);
    expect(res.status).toBe(200);
    expect((await getConfig()).compressionLevel).toBe(7);
    expect(fileAsConfig().compressionLevel).toBe(7);
  });
});
