import { Type, type Static } from '@sinclair/typebox';
import { diskFullCode } from '../../storage/disk-full';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { stringify } from 'smol-toml';
import { documentDefaults, DocumentProblem, documentPath, isPlainTable, JSON_SPELLING, readDocument, TOML_SPELLING, type DocumentPath } from '../../config/unit/document';
import { parseTomlText, TomlSyntaxError } from '../../config/unit/toml-syntax';
import { writeFileAtomic } from '../../config/write';
import { showValue } from '../../describe-schema';
import { ApiError } from '../../errors';
import { canonicalTimeZone, isValidTimeZone, machineTimeZone, validateCron } from './cron';

/**
 * The backup module's configuration: `config/modules/backup/backup.toml` (snake_case keys under
 * `[backup]`), and the same as JSON (camelCase) in GET/PUT /api/backups/config. One set of rules
 * (the schema below plus a few checks across fields) judges both a PUT body and the file, so both
 * refuse the same things in the same words, naming the field the way each spells it.
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

// ---------------------------------------------------------------------------------------------
// Reading: the config-file unit's document reader, for a PUT body (camelCase) and the file (snake_case).

/** No line breaks or other control characters, and no lone surrogate (TOML cannot hold one). */
function textProblem(value: string): string | null {
  if (!value.isWellFormed()) return 'must be valid Unicode text (it holds a lone surrogate)';
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain line breaks or other control characters';
  return null;
}

/** The rules the schema cannot say; returns the config with the zone in its canonical spelling. */
function crossCheck(config: BackupConfig): BackupConfig {
  const destination = textProblem(config.localDestination) ?? (config.localDestination.trim() === '' ? 'must not be blank' : null);
  if (destination) throw new DocumentProblem(['localDestination'], destination);
  if (!isValidTimeZone(config.timezone)) throw new DocumentProblem(['timezone'], `must be an IANA time zone like "Europe/Berlin" or "UTC", got ${showValue(config.timezone)}`);
  config.timezone = canonicalTimeZone(config.timezone);
  for (const [i, pattern] of config.excludes.entries()) {
    const problem = textProblem(pattern);
    if (problem) throw new DocumentProblem(['excludes', i], problem);
  }
  const seen = new Map<string, number>();
  for (const [i, schedule] of config.schedules.entries()) {
    const first = seen.get(schedule.name.toLowerCase());
    if (first !== undefined) throw new DocumentProblem(['schedules', i, 'name'], `"${schedule.name}" is already the name of schedules[${first}] (names are unique, ignoring case)`);
    seen.set(schedule.name.toLowerCase(), i);
    try {
      validateCron(schedule.cron);
    } catch (error) {
      throw new DocumentProblem(['schedules', i, 'cron'], `${JSON.stringify(schedule.cron)}: ${(error as Error).message}`);
    }
    schedule.targets = [...new Set(schedule.targets)];
  }
  return config;
}

/**
 * Validates a PUT body: missing fields take their defaults (deep: a missing scope key takes its
 * default), unknown keys are refused, and every rule of §6 is checked. Throws
 * ApiError('BACKUP_CONFIG_INVALID', '<field path like schedules[1].cron>: <what is wrong>', 400).
 */
export function parseBackupConfig(body: unknown): BackupConfig {
  try {
    return crossCheck(readDocument(BackupConfigSchema, body, JSON_SPELLING));
  } catch (error) {
    if (error instanceof DocumentProblem) throw new ApiError('BACKUP_CONFIG_INVALID', `${documentPath(error.path, JSON_SPELLING) || 'body'}: ${error.what}`, 400);
    throw error;
  }
}

/** `backup.schedules[1].retention_class`; the file nests the exclude list one level deeper (`backup.excludes.patterns[2]`). */
function filePath(path: DocumentPath): string {
  const [first, ...rest] = path;
  return documentPath(first === 'excludes' ? [{ raw: 'excludes.patterns' }, ...rest] : path, TOML_SPELLING, 'backup');
}

export type ParsedBackupToml = { ok: true; config: BackupConfig } | { ok: false; problem: string };

/** The config a file's text holds, or what is wrong with it (key as the file spells it, and the expectation). */
export function parseBackupToml(text: string): ParsedBackupToml {
  let raw: Record<string, unknown>;
  try {
    raw = parseTomlText(text);
  } catch (error) {
    if (error instanceof TomlSyntaxError) return { ok: false, problem: error.problem };
    throw error;
  }
  try {
    const unknown = Object.keys(raw).find((key) => key !== 'backup');
    if (unknown !== undefined) return { ok: false, problem: `${unknown} is not a known key; everything goes under [backup]` };
    const table = raw.backup ?? {};
    if (!isPlainTable(table)) throw new DocumentProblem([], `must be a table, got ${showValue(table)}`);
    // The file nests the exclude list one level deeper: [backup.excludes] patterns = [...].
    const body: Record<string, unknown> = { ...table };
    if (table.excludes !== undefined) {
      const excludes = table.excludes;
      if (!isPlainTable(excludes)) return { ok: false, problem: `backup.excludes must be a table with the key patterns, got ${showValue(excludes)}` };
      const other = Object.keys(excludes).find((key) => key !== 'patterns');
      if (other !== undefined) return { ok: false, problem: `backup.excludes.${other} is not a known key; the keys are patterns` };
      body.excludes = excludes.patterns;
    }
    return { ok: true, config: crossCheck(readDocument(BackupConfigSchema, body, TOML_SPELLING)) };
  } catch (error) {
    if (error instanceof DocumentProblem) return { ok: false, problem: `${filePath(error.path)} ${error.what}` };
    throw error;
  }
}

/**
 * Reads the file. A missing file → the defaults, written there with comments; a file that
 * cannot be used → the defaults and the problem (key and expectation, without the file name).
 */
export function loadBackupConfig(file: string): { config: BackupConfig; problem?: string } {
  const defaults = structuredClone(BACKUP_DEFAULTS);
  let text: string;
  try {
    if (!existsSync(file)) {
      writeFileAtomic(file, renderBackupToml(defaults));
      return { config: defaults };
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { config: defaults, problem: `could not be read or written: ${(error as Error).message}` };
  }
  const parsed = parseBackupToml(text);
  return parsed.ok ? { config: parsed.config } : { config: defaults, problem: parsed.problem };
}

// ---------------------------------------------------------------------------------------------
// Writing

const value = (v: unknown): string => stringify({ v }).trim().slice('v = '.length);
const line = (key: string, v: unknown, comment?: string): string => `${comment ? `# ${comment}\n` : ''}${key} = ${value(v)}\n`;

const HEADER = [
  '# Backups: what is archived, where to, when, and how many are kept.',
  '# Read when the controller starts. PUT /api/backups/config checks a new configuration and',
  '# rewrites this file (with these comments); GET /api/backups/config shows it as JSON.',
  '',
  '',
].join('\n');

/** The file's text: a commented header and comments per section; parseBackupToml gives back `config`. */
export function renderBackupToml(config: BackupConfig): string {
  const { scope, retention } = config;
  const out: string[] = [HEADER, '[backup]\n'];
  out.push(line('enabled', config.enabled, 'false pauses the schedules; backups started by hand still run.'));
  out.push(line('local_destination', config.localDestination, "Where archives are written; a relative path is inside the controller's folder."));
  out.push(line('max_concurrent', config.maxConcurrent, 'Backups that run at the same time (1-32).'));
  out.push(line('compression_level', config.compressionLevel, 'zstd level (1-22): 3 is quick, 19 and above small but slow.'));
  out.push(line('compression_workers', config.compressionWorkers, 'zstd worker threads (0-64); 0 = half the cores, at least 1.'));
  out.push(line('quiesce_services', config.quiesceServices, 'Flush running servers and pause their saving (save-off) while they are archived.'));
  out.push(line('quiesce_wait_seconds', config.quiesceWaitSeconds, 'Seconds to wait after save-all flush (0-60).'));
  out.push(line('timezone', config.timezone, 'The IANA time zone the schedules run in, like "Europe/Berlin" or "UTC".'));
  out.push(
    line(
      'include_auth_key',
      config.includeAuthKey,
      'Database backups also carry the dashboard-login key (data/auth/session.key), so a restore keeps\n# TOTP working. Off by default: with it, whoever holds a database archive can read every TOTP\n# seed. Keep a copy of the key somewhere else instead.',
    ),
  );
  if (config.schedules.length === 0) out.push(line('schedules', [], 'No schedules: backups run only when started by hand.'));

  out.push('\n# What the target "all" covers.\n[backup.scope]\n');
  out.push(line('services', scope.services), line('dedicated', scope.dedicated), line('templates', scope.templates));
  out.push(line('controller_config', scope.controllerConfig), line('state_sync', scope.stateSync), line('database', scope.database));

  out.push('\n# Left out of archives: globs matched against a file name or its path inside the\n# source folder. An empty list leaves nothing out.\n[backup.excludes]\n');
  out.push(config.excludes.length === 0 ? 'patterns = []\n' : `patterns = [\n${config.excludes.map((p) => `  ${value(p)},\n`).join('')}]\n`);

  out.push('\n# Successful backups kept per target and class; older ones are deleted.\n[backup.retention]\n');
  out.push(line('hourly_keep', retention.hourlyKeep), line('daily_keep', retention.dailyKeep));
  out.push(line('weekly_keep', retention.weeklyKeep), line('monthly_keep', retention.monthlyKeep));
  out.push(line('keep_manual', retention.keepManual, 'true: manual backups are never deleted by retention.'));
  out.push(line('failed_keep_days', retention.failedKeepDays, 'Failed records older than this many days are removed (0 keeps them).'));

  if (config.schedules.length > 0) {
    out.push(
      [
        '',
        '# Schedules. cron: minute hour day-of-month month day-of-week, in `timezone`; when both day',
        '# fields are restricted a day matches either (as cron does). retention_class: hourly, daily,',
        '# weekly, monthly or manual. targets: all (every type in [backup.scope]), services, dedicated,',
        '# templates, config, controller_config, database, state, state_sync.',
        '',
      ].join('\n'),
    );
    for (const s of config.schedules) {
      out.push('[[backup.schedules]]\n', line('name', s.name), line('cron', s.cron), line('retention_class', s.retentionClass), line('targets', s.targets), '\n');
    }
  }
  return `${out.join('').trimEnd()}\n`;
}

/**
 * Writes the config atomically with comments. A file there that could not be used (an
 * operator's broken hand edit) is kept beside it as `backup.toml.broken` first.
 * Throws ApiError SERVICE_UNAVAILABLE when the file cannot be written (a full disk: the write's own error, answered 507).
 */
export function saveBackupConfig(file: string, config: BackupConfig): void {
  try {
    if (existsSync(file) && statSync(file).isFile() && !parseBackupToml(readFileSync(file, 'utf8')).ok) copyFileSync(file, `${file}.broken`);
    writeFileAtomic(file, renderBackupToml(config));
  } catch (error) {
    // A full disk is the 507 every other write answers (render-error names the file).
    if (diskFullCode(error)) throw error;
    throw new ApiError('SERVICE_UNAVAILABLE', `config/modules/backup/backup.toml could not be written: ${(error as Error).message}`);
  }
}
