import { afterAll, describe, expect, test } from 'bun:test';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { ApiError } from '../../../src/errors';
import {
  BACKUP_DEFAULTS,
  BackupConfigSchema,
  loadBackupConfig,
  parseBackupConfig,
  saveBackupConfig,
  type BackupConfig,
} from '../../../src/modules/backup/config';

const root = mkdtempSync(join(tmpdir(), 'svc-backup-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
/** A fresh `config/modules/backup/backup.toml` path whose folders do not exist yet. */
const freshFile = () => join(root, `case-${++counter}`, 'config', 'modules', 'backup', 'backup.toml');
function fileWith(text: string): string {
  const file = freshFile();
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const systemZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** §6 of REFERENCE-MODULES.md, spelled out. */
const SECTION_6: BackupConfig = {
  enabled: true,
  localDestination: 'data/backups',
  maxConcurrent: 2,
  compressionLevel: 3,
  compressionWorkers: 0,
  quiesceServices: true,
  quiesceWaitSeconds: 2,
  timezone: systemZone,
  // svc: the dashboard-login key rides with database backups only when asked to.
  includeAuthKey: false,
  scope: { services: true, dedicated: true, templates: true, controllerConfig: true, stateSync: true, database: true },
  excludes: ['logs/**', 'crash-reports/**', '*.log', '*.log.gz', 'cache/**', 'tmp/**', '*.lock', 'session.lock', '*/region/*.mca.tmp', 'config/bStats/**', 'plugins/bStats/**'],
  schedules: [
    { name: 'hourly', cron: '0 * * * *', retentionClass: 'hourly', targets: ['services', 'dedicated', 'database'] },
    { name: 'daily', cron: '0 3 * * *', retentionClass: 'daily', targets: ['all'] },
    { name: 'weekly', cron: '0 4 * * 0', retentionClass: 'weekly', targets: ['all'] },
  ],
  retention: { hourlyKeep: 24, dailyKeep: 7, weeklyKeep: 4, monthlyKeep: 3, keepManual: true, failedKeepDays: 7 },
};

/** Every field changed from its default, with text TOML must escape. */
const CUSTOM: BackupConfig = {
  enabled: false,
  localDestination: '/srv/backups/"quoted" \\ back slash/ünïcode 😀',
  maxConcurrent: 32,
  compressionLevel: 22,
  compressionWorkers: 64,
  quiesceServices: false,
  quiesceWaitSeconds: 60,
  timezone: 'America/New_York',
  includeAuthKey: true,
  scope: { services: false, dedicated: true, templates: false, controllerConfig: false, stateSync: true, database: false },
  excludes: ['*.tmp', 'world/"odd" name/**', 'a\\b', '#not-a-comment'],
  schedules: [
    { name: 'Night_1', cron: '30 2 * * 1-5', retentionClass: 'daily', targets: ['services', 'state_sync'] },
    { name: 'month-end', cron: '0 0 13 * FRI', retentionClass: 'monthly', targets: ['database', 'controller_config', 'config', 'state', 'templates', 'dedicated'] },
    { name: 'adhoc', cron: '*/5 * * * *', retentionClass: 'manual', targets: ['all'] },
  ],
  retention: { hourlyKeep: 0, dailyKeep: 100000, weeklyKeep: 1, monthlyKeep: 12, keepManual: false, failedKeepDays: 0 },
};

describe('defaults', () => {
  test('are those of §6, in the system time zone', () => {
    expect(BACKUP_DEFAULTS).toEqual(SECTION_6);
  });

  test('cannot be changed by accident', () => {
    expect(Object.isFrozen(BACKUP_DEFAULTS.schedules[0])).toBe(true);
    const copy = parseBackupConfig({});
    copy.scope.database = false;
    copy.schedules[0]?.targets.push('templates');
    expect(BACKUP_DEFAULTS).toEqual(SECTION_6);
  });

  test('the response schema accepts them and describes every field', () => {
    expect(Value.Check(BackupConfigSchema, BACKUP_DEFAULTS)).toBe(true);
    expect(Value.Check(BackupConfigSchema, CUSTOM)).toBe(true);
    const undescribed: string[] = [];
    const visit = (schema: TSchema, path: string) => {
      const s = schema as TSchema & { properties?: Record<string, TSchema>; items?: TSchema };
      for (const [key, inner] of Object.entries(s.properties ?? {})) {
        if (!inner.description) undescribed.push(`${path}${key}`);
        visit(inner, `${path}${key}.`);
      }
      if (s.items) visit(s.items, `${path}[].`);
    };
    visit(BackupConfigSchema, '');
    expect(undescribed).toEqual([]);
  });
});

describe('loadBackupConfig', () => {
  test('a missing file: the defaults, written with comments, readable by a TOML parser', () => {
    const file = freshFile();
    expect(loadBackupConfig(file)).toEqual({ config: SECTION_6 });
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('# ')).toBe(true);
    expect(text.split('\n').filter((l) => l.startsWith('#')).length).toBeGreaterThan(10);
    const raw = parse(text) as { backup: Record<string, unknown> & { scope: Record<string, unknown>; excludes: { patterns: string[] }; schedules: Record<string, unknown>[]; retention: Record<string, unknown> } };
    expect(raw.backup.max_concurrent).toBe(2);
    expect(raw.backup.local_destination).toBe('data/backups');
    expect(raw.backup.timezone).toBe(systemZone);
    expect(raw.backup.scope.controller_config).toBe(true);
    expect(raw.backup.excludes.patterns).toEqual(SECTION_6.excludes);
    expect(raw.backup.schedules).toEqual([
      { name: 'hourly', cron: '0 * * * *', retention_class: 'hourly', targets: ['services', 'dedicated', 'database'] },
      { name: 'daily', cron: '0 3 * * *', retention_class: 'daily', targets: ['all'] },
      { name: 'weekly', cron: '0 4 * * 0', retention_class: 'weekly', targets: ['all'] },
    ]);
    expect(raw.backup.retention.failed_keep_days).toBe(7);
    // Read again: the same, and the file is left as it is.
    expect(loadBackupConfig(file)).toEqual({ config: SECTION_6 });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  test('a partial file: what it says, the defaults for the rest; the file is not rewritten', () => {
    const text = '[backup]\nmax_concurrent = 5\ntimezone = "Europe/Berlin"\n\n[backup.scope]\ndatabase = false\n\n[backup.retention]\nkeep_manual = false\n';
    const file = fileWith(text);
    const expected = structuredClone(SECTION_6);
    expected.maxConcurrent = 5;
    expected.timezone = 'Europe/Berlin';
    expected.scope.database = false;
    expected.retention.keepManual = false;
    expect(loadBackupConfig(file)).toEqual({ config: expected });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  test('an empty file is all defaults', () => {
    expect(loadBackupConfig(fileWith(''))).toEqual({ config: SECTION_6 });
  });

  test('schedules in the file: a missing class is manual, missing targets are all; an empty list means none', () => {
    const file = fileWith('[[backup.schedules]]\nname = "a"\ncron = "0 1 * * *"\n');
    expect(loadBackupConfig(file).config.schedules).toEqual([{ name: 'a', cron: '0 1 * * *', retentionClass: 'manual', targets: ['all'] }]);
    expect(loadBackupConfig(fileWith('[backup]\nschedules = []\n')).config.schedules).toEqual([]);
  });

  test('an empty exclude list stays empty', () => {
    expect(loadBackupConfig(fileWith('[backup.excludes]\npatterns = []\n'))).toEqual({ config: { ...SECTION_6, excludes: [] } });
  });

  test('bad TOML: the defaults, and a problem saying where', () => {
    const file = fileWith('[backup]\nmax_concurrent = 3\ncompression_level = \n');
    const loaded = loadBackupConfig(file);
    expect(loaded.config).toEqual(SECTION_6);
    expect(loaded.problem).toMatch(/^not valid TOML: .* at line 3, column \d+$/);
    // Left for the operator to fix.
    expect(readFileSync(file, 'utf8')).toBe('[backup]\nmax_concurrent = 3\ncompression_level = \n');
  });

  const unusable: [string, string, string][] = [
    ['a wrong type', '[backup]\nmax_concurrent = "two"\n', 'backup.max_concurrent must be an integer between 1 and 32, got "two"'],
    ['out of range', '[backup]\ncompression_level = 23\n', 'backup.compression_level must be an integer between 1 and 22, got 23'],
    ['a scope flag that is not a boolean', '[backup.scope]\ncontroller_config = 1\n', 'backup.scope.controller_config must be true or false, got 1'],
    ['a negative keep', '[backup.retention]\nfailed_keep_days = -1\n', 'backup.retention.failed_keep_days must be an integer between 0 and 36500, got -1'],
    ['an exclude that is not a string', '[backup.excludes]\npatterns = ["a", 2]\n', 'backup.excludes.patterns[1] must be a string of 1 to 256 characters, got 2'],
    ['excludes not a table', '[backup]\nexcludes = ["a"]\n', 'backup.excludes must be a table with the key patterns, got ["a"]'],
    ['an unknown key in excludes', '[backup.excludes]\npattern = ["a"]\n', 'backup.excludes.pattern is not a known key; the keys are patterns'],
    ['a misspelt key', '[backup]\nmax_concurent = 4\n', 'backup.max_concurent is not a known key; the keys are enabled, local_destination, max_concurrent, compression_level, compression_workers, quiesce_services, quiesce_wait_seconds, timezone, include_auth_key, scope, excludes, schedules, retention'],
    ['a camelCase key', '[backup]\nmaxConcurrent = 4\n', 'backup.maxConcurrent is not a known key; the keys are enabled, local_destination, max_concurrent, compression_level, compression_workers, quiesce_services, quiesce_wait_seconds, timezone, include_auth_key, scope, excludes, schedules, retention'],
    ['a table outside [backup]', '[backups]\nenabled = false\n', 'backups is not a known key; everything goes under [backup]'],
    ['backup not a table', 'backup = 3\n', 'backup must be a table, got 3'],
    ['a bad class', '[[backup.schedules]]\nname = "a"\ncron = "0 1 * * *"\n\n[[backup.schedules]]\nname = "b"\ncron = "0 1 * * *"\nretention_class = "yearly"\n', 'backup.schedules[1].retention_class must be one of "hourly", "daily", "weekly", "monthly", "manual", got "yearly"'],
    ['a bad cron', '[[backup.schedules]]\nname = "a"\ncron = "0 25 * * *"\n', 'backup.schedules[0].cron "0 25 * * *": hour field: 25 is out of range 0-23'],
    ['a schedule without cron', '[[backup.schedules]]\nname = "a"\n', 'backup.schedules[0].cron is required'],
    ['a bad zone', '[backup]\ntimezone = "Europe/Atlantis"\n', 'backup.timezone must be an IANA time zone like "Europe/Berlin" or "UTC", got "Europe/Atlantis"'],
  ];
  for (const [what, text, problem] of unusable) {
    test(`${what}: the defaults, and the problem names the key`, () => {
      expect(loadBackupConfig(fileWith(text))).toEqual({ config: SECTION_6, problem });
    });
  }

  test('a path that cannot be read: the defaults and the reason', () => {
    const file = freshFile();
    mkdirSync(file, { recursive: true });
    const loaded = loadBackupConfig(file);
    expect(loaded.config).toEqual(SECTION_6);
    expect(loaded.problem).toMatch(/^could not be read or written: /);
  });
});

describe('saveBackupConfig', () => {
  test('round trip: a config with every field changed comes back equal', () => {
    const file = freshFile();
    saveBackupConfig(file, CUSTOM);
    expect(loadBackupConfig(file)).toEqual({ config: CUSTOM });
    // And the written file is what a PUT of the same JSON gives.
    expect(parseBackupConfig(structuredClone(CUSTOM))).toEqual(CUSTOM);
  });

  test('round trip: no schedules and no excludes', () => {
    const file = freshFile();
    const bare = { ...structuredClone(SECTION_6), schedules: [], excludes: [] };
    saveBackupConfig(file, bare);
    expect(readFileSync(file, 'utf8')).toContain('schedules = []');
    expect(loadBackupConfig(file)).toEqual({ config: bare });
  });

  test('replaces the file atomically, leaving no temp file', () => {
    const file = freshFile();
    saveBackupConfig(file, SECTION_6);
    saveBackupConfig(file, CUSTOM);
    expect(loadBackupConfig(file).config).toEqual(CUSTOM);
    expect(existsSync(`${file}.broken`)).toBe(false);
    const folder = join(file, '..');
    expect(readdirSync(folder)).toEqual(['backup.toml']);
  });

  test('a broken hand edit is kept as backup.toml.broken before it is replaced', () => {
    const file = fileWith('[backup]\nmax_concurrent = nope\n');
    saveBackupConfig(file, CUSTOM);
    expect(readFileSync(`${file}.broken`, 'utf8')).toBe('[backup]\nmax_concurrent = nope\n');
    expect(loadBackupConfig(file).config).toEqual(CUSTOM);
  });

  test('a file that cannot be written is a 503 SERVICE_UNAVAILABLE, not a crash', () => {
    const file = freshFile();
    mkdirSync(join(file, 'occupied'), { recursive: true });
    let thrown: unknown;
    try {
      saveBackupConfig(file, CUSTOM);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).errorCode).toBe('SERVICE_UNAVAILABLE');
    expect((thrown as ApiError).status).toBe(503);
    expect((thrown as ApiError).message).toMatch(/^config\/modules\/backup\/backup.toml could not be written: /);
  });
});

describe('parseBackupConfig: refusals name the field', () => {
  const schedule = (extra: Record<string, unknown>) => ({ name: 'a', cron: '0 1 * * *', retentionClass: 'daily', targets: ['all'], ...extra });
  const refusals: [string, unknown, string][] = [
    ['maxConcurrent 0', { maxConcurrent: 0 }, 'maxConcurrent: must be an integer between 1 and 32, got 0'],
    ['maxConcurrent 33', { maxConcurrent: 33 }, 'maxConcurrent: must be an integer between 1 and 32, got 33'],
    ['maxConcurrent 1.5', { maxConcurrent: 1.5 }, 'maxConcurrent: must be an integer between 1 and 32, got 1.5'],
    ['compressionLevel 0', { compressionLevel: 0 }, 'compressionLevel: must be an integer between 1 and 22, got 0'],
    ['compressionLevel 23', { compressionLevel: 23 }, 'compressionLevel: must be an integer between 1 and 22, got 23'],
    ['compressionWorkers 65', { compressionWorkers: 65 }, 'compressionWorkers: must be an integer between 0 and 64, got 65'],
    ['quiesceWaitSeconds 61', { quiesceWaitSeconds: 61 }, 'quiesceWaitSeconds: must be an integer between 0 and 60, got 61'],
    ['a schedule name with a space and !', { schedules: [schedule({ name: 'bad name!' })] }, 'schedules[0].name: must be a string matching ^[A-Za-z0-9_-]{1,64}$, got "bad name!"'],
    ['a duplicate schedule name', { schedules: [schedule({}), schedule({ name: 'b' }), schedule({ name: 'b' })] }, 'schedules[2].name: "b" is already the name of schedules[1] (names are unique, ignoring case)'],
    ['a duplicate schedule name in another case', { schedules: [schedule({ name: 'Daily' }), schedule({ name: 'daily' })] }, 'schedules[1].name: "daily" is already the name of schedules[0] (names are unique, ignoring case)'],
    ['an unknown class', { schedules: [schedule({}), schedule({ name: 'b', retentionClass: 'yearly' })] }, 'schedules[1].retentionClass: must be one of "hourly", "daily", "weekly", "monthly", "manual", got "yearly"'],
    ['a bad cron', { schedules: [schedule({}), schedule({ name: 'b', cron: '61 * * * *' })] }, 'schedules[1].cron: "61 * * * *": minute field: 61 is out of range 0-59'],
    ['a cron with six fields', { schedules: [schedule({ cron: '0 0 1 * * *' })] }, 'schedules[0].cron: "0 0 1 * * *": must have five fields (minute hour day-of-month month day-of-week), got 6; seconds are not supported'],
    ['an unknown target', { schedules: [schedule({ targets: ['services', 'worlds'] })] }, 'schedules[0].targets[1]: must be one of "all", "services", "dedicated", "templates", "config", "controller_config", "database", "state", "state_sync", got "worlds"'],
    ['no targets', { schedules: [schedule({ targets: [] })] }, 'schedules[0].targets: must have at least 1 entry'],
    ['targets not a list', { schedules: [schedule({ targets: 'all' })] }, 'schedules[0].targets: must be a list, got "all"'],
    ['a schedule without a name', { schedules: [{ cron: '0 1 * * *' }] }, 'schedules[0].name: is required'],
    ['an unknown key in a schedule', { schedules: [schedule({ retention: 'daily' })] }, 'schedules[0].retention: is not a known key; the keys are name, cron, retentionClass, targets'],
    ['an unknown top-level key', { enabled: true, maxConcurent: 3 }, 'maxConcurent: is not a known key; the keys are enabled, localDestination, maxConcurrent, compressionLevel, compressionWorkers, quiesceServices, quiesceWaitSeconds, timezone, includeAuthKey, scope, excludes, schedules, retention'],
    ['an unknown scope key', { scope: { worlds: true } }, 'scope.worlds: is not a known key; the keys are services, dedicated, templates, controllerConfig, stateSync, database'],
    ['a snake_case key', { retention: { hourly_keep: 3 } }, 'retention.hourly_keep: is not a known key; the keys are hourlyKeep, dailyKeep, weeklyKeep, monthlyKeep, keepManual, failedKeepDays'],
    ['a wrong type', { enabled: 'yes' }, 'enabled: must be true or false, got "yes"'],
    ['a number as a string', { compressionLevel: '3' }, 'compressionLevel: must be an integer between 1 and 22, got "3"'],
    ['scope not an object', { scope: [true] }, 'scope: must be an object, got [true]'],
    ['a null field', { localDestination: null }, 'localDestination: must be a string of 1 to 1024 characters, got null'],
    ['a bad time zone', { timezone: 'Mars/Olympus_Mons' }, 'timezone: must be an IANA time zone like "Europe/Berlin" or "UTC", got "Mars/Olympus_Mons"'],
    ['a negative keep', { retention: { dailyKeep: -1 } }, 'retention.dailyKeep: must be an integer between 0 and 100000, got -1'],
    ['a negative failedKeepDays', { retention: { failedKeepDays: -7 } }, 'retention.failedKeepDays: must be an integer between 0 and 36500, got -7'],
    ['a blank destination', { localDestination: '   ' }, 'localDestination: must not be blank'],
    ['a destination with a line break', { localDestination: 'data/\nbackups' }, 'localDestination: must not contain line breaks or other control characters'],
    ['an empty exclude', { excludes: ['*.log', ''] }, 'excludes[1]: must be a string of 1 to 256 characters, got ""'],
    ['an exclude too long', { excludes: ['x'.repeat(257)] }, `excludes[0]: must be a string of 1 to 256 characters, got "${'x'.repeat(56)}...`],
    ['an exclude with a lone surrogate', { excludes: ['a\ud800'] }, 'excludes[0]: must be valid Unicode text (it holds a lone surrogate)'],
    ['excludes not a list', { excludes: '*.log' }, 'excludes: must be a list, got "*.log"'],
    ['a body that is not an object', [1, 2], 'body: must be an object, got [1,2]'],
    ['a null body', null, 'body: must be an object, got null'],
  ];
  for (const [what, body, message] of refusals) {
    test(what, () => {
      let thrown: unknown;
      try {
        parseBackupConfig(body);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      const error = thrown as ApiError;
      expect({ code: error.errorCode, status: error.status, message: error.message }).toEqual({ code: 'BACKUP_CONFIG_INVALID', status: 400, message });
    });
  }
});

describe('parseBackupConfig: acceptance', () => {
  test('an empty body is the defaults', () => {
    expect(parseBackupConfig({})).toEqual(SECTION_6);
  });

  test('missing fields take defaults, deeply', () => {
    const config = parseBackupConfig({ maxConcurrent: 8, scope: { database: false }, retention: { hourlyKeep: 48 } });
    expect(config).toEqual({
      ...SECTION_6,
      maxConcurrent: 8,
      scope: { ...SECTION_6.scope, database: false },
      retention: { ...SECTION_6.retention, hourlyKeep: 48 },
    });
  });

  test('a schedule without class or targets is manual, of all', () => {
    expect(parseBackupConfig({ schedules: [{ name: 'x', cron: '0 0 * * *' }] }).schedules).toEqual([{ name: 'x', cron: '0 0 * * *', retentionClass: 'manual', targets: ['all'] }]);
  });

  test('an empty exclude list and an empty schedule list stay empty', () => {
    const config = parseBackupConfig({ excludes: [], schedules: [] });
    expect(config.excludes).toEqual([]);
    expect(config.schedules).toEqual([]);
  });

  test('the zone is stored in its canonical spelling; offsets and UTC are zones too', () => {
    expect(parseBackupConfig({ timezone: 'europe/berlin' }).timezone).toBe('Europe/Berlin');
    expect(parseBackupConfig({ timezone: 'UTC' }).timezone).toBe('UTC');
    expect(parseBackupConfig({ timezone: '+05:30' }).timezone).toBe('+05:30');
  });

  test('repeated targets are kept once, in order', () => {
    expect(parseBackupConfig({ schedules: [{ name: 'x', cron: '0 0 * * *', targets: ['database', 'all', 'database'] }] }).schedules[0]?.targets).toEqual(['database', 'all']);
  });

  test('what GET answers is accepted back unchanged (the dashboard spreads it into its PUT)', () => {
    expect(parseBackupConfig(JSON.parse(JSON.stringify(CUSTOM)))).toEqual(CUSTOM);
    expect(parseBackupConfig(JSON.parse(JSON.stringify(BACKUP_DEFAULTS)))).toEqual(SECTION_6);
  });

  test('limits at their edges are accepted', () => {
    const config = parseBackupConfig({ maxConcurrent: 1, compressionLevel: 1, compressionWorkers: 0, quiesceWaitSeconds: 0, excludes: ['x'.repeat(256)], schedules: [{ name: 'n'.repeat(64), cron: '0 0 * * *' }] });
    expect(config.maxConcurrent).toBe(1);
    expect(config.schedules[0]?.name).toHaveLength(64);
  });
});
