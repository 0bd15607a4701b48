import { Type, type Static } from '@sinclair/typebox';
import { documentDefaults } from '../../config/unit/document';
import { isValidTimeZone, machineTimeZone } from './cron';

/**
 * The backup module's configuration: `config/modules/backup/backup.toml` (snake_case keys under
 * `[backup]`), and the same as JSON (camelCase) in GET/PUT /api/backups/config. One set of rules
 * (the schema below plus a few checks across fields in config.ts) judges both a PUT body and the
 * file, so both refuse the same things in the same words, naming the field the way each spells it.
 *
 * Decisions beyond the reference (REFERENCE-MODULES.md §6):
 * - `timezone` (new): the IANA zone the schedules are evaluated in. Default: the system's zone,
 *   which is what an operator reading "0 3 * * *" expects; the file written on first start
 *   records it, so moving the host to another zone later does not move the backups.
 * - `localDestination`: any non-blank path; a relative one is inside the controller's folder
 *   (resolved by the manager at each use), an absolute one is taken as it is.
 * - An empty `excludes` list stays empty (the reference turned it back into the defaults).
 * - Unknown keys are refused, in a PUT and in the file (a typo must not silently do nothing).
 * - Schedule names are unique ignoring case; duplicate targets in a schedule are dropped.
 * - A schedule without `retentionClass` is "manual", without `targets` is ["all"] (as the
 *   reference read its file); every other missing field takes its default.
 * - `includeAuthKey` (new, default false): database backups carry the dashboard-login key
 *   (data/auth/session.key) only when asked to. The key and the TOTP secrets it seals must not
 *   travel together by default: whoever holds such an archive can read every player's seed.
 */

export const TARGET_WORDS = ['all', 'services', 'dedicated', 'templates', 'config', 'controller_config', 'database', 'state', 'state_sync'] as const;
export type TargetWord = (typeof TARGET_WORDS)[number];
export const RETENTION_CLASSES = ['hourly', 'daily', 'weekly', 'monthly', 'manual'] as const;
export type RetentionClass = (typeof RETENTION_CLASSES)[number];

export const SCHEDULE_NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const SCHEDULES_MAX = 64;
const EXCLUDES_MAX = 256;
const PATTERN_MAX = 256;
const KEEP_MAX = 100_000;
const FAILED_DAYS_MAX = 36_500;

function systemTimeZone(): string {
  const zone = machineTimeZone();
  return isValidTimeZone(zone) ? zone : 'UTC';
}

const keep = (what: string, d: number) => Type.Integer({ minimum: 0, maximum: KEEP_MAX, default: d, description: `successful ${what} backups kept per target; older ones are deleted` });
const literals = <W extends string>(words: readonly W[], options: { description?: string; default?: NoInfer<W> } = {}) => Type.Union(words.map((w) => Type.Literal(w)), options);
/** Target words are typed as plain strings (callers pass lists of words around); the schema still refuses unknown ones. */
const targetWord = Type.Union(TARGET_WORDS.map((w) => Type.Literal<string>(w)));

/** One schedule; a missing class is "manual" and missing targets are ["all"] (as the reference read its file). */
const ScheduleSchema = Type.Object(
  {
    name: Type.String({ pattern: SCHEDULE_NAME_PATTERN, description: 'unique (ignoring case); letters, digits, _ and -' }),
    cron: Type.String({ maxLength: 128, description: 'minute hour day-of-month month day-of-week, in `timezone`; when both day fields are restricted a day matches either (POSIX)' }),
    retentionClass: literals(RETENTION_CLASSES, { default: 'manual', description: `which retention budget its backups use: ${RETENTION_CLASSES.join(', ')} (default manual)` }),
    targets: Type.Array(targetWord, { minItems: 1, maxItems: TARGET_WORDS.length, default: ['all'], description: `what it backs up: ${TARGET_WORDS.join(', ')} (default ["all"]: every type in scope)` }),
  },
  { additionalProperties: false },
);

/**
 * The one source of the configuration's keys, types, limits and defaults (§6): the JSON shape
 * (GET answer, PUT body, every field described; a PUT may leave any field out) and, spelt
 * snake_case, the file's.
 */
export const BackupConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'false pauses the schedules; backups started by hand still run' }),
    localDestination: Type.String({ minLength: 1, maxLength: 1024, default: 'data/backups', description: 'where archives are written; relative to the controller folder unless absolute' }),
    maxConcurrent: Type.Integer({ minimum: 1, maximum: 32, default: 2, description: 'backups that run at the same time' }),
    compressionLevel: Type.Integer({ minimum: 1, maximum: 22, default: 3, description: 'zstd level' }),
    compressionWorkers: Type.Integer({ minimum: 0, maximum: 64, default: 0, description: 'zstd worker threads; 0 = half the cores, at least 1' }),
    quiesceServices: Type.Boolean({ default: true, description: 'flush running servers and pause their saving (save-off) while they are archived' }),
    quiesceWaitSeconds: Type.Integer({ minimum: 0, maximum: 60, default: 2, description: 'seconds to wait after `save-all flush`' }),
    timezone: Type.String({ minLength: 1, maxLength: 64, default: systemTimeZone(), description: 'IANA time zone the schedules run in, e.g. Europe/Berlin (default: the system zone)' }),
    includeAuthKey: Type.Boolean({
      default: false,
      description:
        'database backups also carry the dashboard-login key data/auth/session.key, so a restore keeps TOTP working. Off by default: with it, whoever holds a database archive can read every TOTP seed (back the key up separately instead)',
    }),
    scope: Type.Object(
      {
        services: Type.Boolean({ default: true, description: 'game servers (not dedicated)' }),
        dedicated: Type.Boolean({ default: true, description: 'dedicated services' }),
        templates: Type.Boolean({ default: true, description: 'the templates folder' }),
        controllerConfig: Type.Boolean({ default: true, description: "the controller's config folder" }),
        stateSync: Type.Boolean({ default: true, description: 'synced service state' }),
        database: Type.Boolean({ default: true, description: "a copy of the controller's database" }),
      },
      { additionalProperties: false, description: 'the types the target "all" covers' },
    ),
    excludes: Type.Array(Type.String({ minLength: 1, maxLength: PATTERN_MAX }), {
      maxItems: EXCLUDES_MAX,
      default: ['logs/**', 'crash-reports/**', '*.log', '*.log.gz', 'cache/**', 'tmp/**', '*.lock', 'session.lock', '*/region/*.mca.tmp', 'config/bStats/**', 'plugins/bStats/**'],
      description: 'globs matched against a file name or its path inside the source; an empty list leaves nothing out',
    }),
    schedules: Type.Array(ScheduleSchema, {
      maxItems: SCHEDULES_MAX,
      default: [
        { name: 'hourly', cron: '0 * * * *', retentionClass: 'hourly', targets: ['services', 'dedicated', 'database'] },
        { name: 'daily', cron: '0 3 * * *', retentionClass: 'daily', targets: ['all'] },
        { name: 'weekly', cron: '0 4 * * 0', retentionClass: 'weekly', targets: ['all'] },
      ],
      description: 'when backups run by themselves',
    }),
    retention: Type.Object(
      {
        hourlyKeep: keep('hourly', 24),
        dailyKeep: keep('daily', 7),
        weeklyKeep: keep('weekly', 4),
        monthlyKeep: keep('monthly', 3),
        keepManual: Type.Boolean({ default: true, description: 'true: manual backups are never pruned' }),
        failedKeepDays: Type.Integer({ minimum: 0, maximum: FAILED_DAYS_MAX, default: 7, description: 'failed records older than this many days are removed; 0 keeps them' }),
      },
      { additionalProperties: false, description: 'how many backups are kept per target and class' },
    ),
  },
  { additionalProperties: false },
);

export type BackupConfig = Static<typeof BackupConfigSchema>;
export type BackupSchedule = Static<typeof ScheduleSchema>;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** §6 defaults, read from the schema (frozen: take a copy with `structuredClone` to change one). */
export const BACKUP_DEFAULTS: BackupConfig = deepFreeze(documentDefaults(BackupConfigSchema));

/**
 * The file's shape: everything under `[backup]` (snake_case on disk), the exclude list one level
 * deeper (`[backup.excludes] patterns = [...]`). What backup.toml is rendered from.
 */
export const BackupFileSchema = Type.Object({
  backup: Type.Object({ ...BackupConfigSchema.properties, excludes: Type.Object({ patterns: BackupConfigSchema.properties.excludes }) }),
});
