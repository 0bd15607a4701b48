import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { diskFullCode } from '../../storage/disk-full';
import { Value } from '@sinclair/typebox/value';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { stringify } from 'smol-toml';
import { parseTomlText, TomlSyntaxError } from '../../config/unit/toml-syntax';
import { writeFileAtomic } from '../../config/write';
import { describeSchema, showValue } from '../../describe-schema';
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

export interface BackupSchedule {
  name: string;
  cron: string;
  retentionClass: RetentionClass;
  targets: string[];
}

export interface BackupConfig {
  enabled: boolean;
  localDestination: string;
  maxConcurrent: number;
  compressionLevel: number;
  compressionWorkers: number;
  quiesceServices: boolean;
  quiesceWaitSeconds: number;
  /** IANA zone the schedules are evaluated in (default: the system's zone). */
  timezone: string;
  /** Database backups also carry data/auth/session.key (off by default). */
  includeAuthKey: boolean;
  scope: { services: boolean; dedicated: boolean; templates: boolean; controllerConfig: boolean; stateSync: boolean; database: boolean };
  excludes: string[];
  schedules: BackupSchedule[];
  retention: { hourlyKeep: number; dailyKeep: number; weeklyKeep: number; monthlyKeep: number; keepManual: boolean; failedKeepDays: number };
}

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

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** §6 defaults (frozen: take a copy with `structuredClone` to change one). */
export const BACKUP_DEFAULTS: BackupConfig = deepFreeze({
  enabled: true,
  localDestination: 'data/backups',
  maxConcurrent: 2,
  compressionLevel: 3,
  compressionWorkers: 0,
  quiesceServices: true,
  quiesceWaitSeconds: 2,
  timezone: systemTimeZone(),
  includeAuthKey: false,
  scope: { services: true, dedicated: true, templates: true, controllerConfig: true, stateSync: true, database: true },
  excludes: ['logs/**', 'crash-reports/**', '*.log', '*.log.gz', 'cache/**', 'tmp/**', '*.lock', 'session.lock', '*/region/*.mca.tmp', 'config/bStats/**', 'plugins/bStats/**'],
  schedules: [
    { name: 'hourly', cron: '0 * * * *', retentionClass: 'hourly', targets: ['services', 'dedicated', 'database'] },
    { name: 'daily', cron: '0 3 * * *', retentionClass: 'daily', targets: ['all'] },
    { name: 'weekly', cron: '0 4 * * 0', retentionClass: 'weekly', targets: ['all'] },
  ],
  retention: { hourlyKeep: 24, dailyKeep: 7, weeklyKeep: 4, monthlyKeep: 3, keepManual: true, failedKeepDays: 7 },
});

/** What a schedule entry lacking these fields gets; `name` and `cron` have no default. */
const SCHEDULE_FALLBACK = { retentionClass: 'manual', targets: ['all'] };

const keep = (what: string) => Type.Integer({ minimum: 0, maximum: KEEP_MAX, description: `successful ${what} backups kept per target; older ones are deleted` });
const literals = (words: readonly string[], description?: string) => Type.Union(words.map((w) => Type.Literal(w)), description ? { description } : {});

const ScheduleSchema = Type.Object(
  {
    name: Type.String({ pattern: SCHEDULE_NAME_PATTERN, description: 'unique (ignoring case); letters, digits, _ and -' }),
    cron: Type.String({ maxLength: 128, description: 'minute hour day-of-month month day-of-week, in `timezone`; when both day fields are restricted a day matches either (POSIX)' }),
    retentionClass: literals(RETENTION_CLASSES, `which retention budget its backups use: ${RETENTION_CLASSES.join(', ')} (default manual)`),
    targets: Type.Array(literals(TARGET_WORDS), { minItems: 1, maxItems: TARGET_WORDS.length, description: `what it backs up: ${TARGET_WORDS.join(', ')} (default ["all"]: every type in scope)` }),
  },
  { additionalProperties: false },
);

/** The JSON shape (GET answer, PUT body), every field described; a PUT may leave any field out. */
export const BackupConfigSchema: TObject = Type.Object(
  {
    enabled: Type.Boolean({ description: 'false pauses the schedules; backups started by hand still run' }),
    localDestination: Type.String({ minLength: 1, maxLength: 1024, description: 'where archives are written; relative to the controller folder unless absolute' }),
    maxConcurrent: Type.Integer({ minimum: 1, maximum: 32, description: 'backups that run at the same time' }),
    compressionLevel: Type.Integer({ minimum: 1, maximum: 22, description: 'zstd level' }),
    compressionWorkers: Type.Integer({ minimum: 0, maximum: 64, description: 'zstd worker threads; 0 = half the cores, at least 1' }),
    quiesceServices: Type.Boolean({ description: 'flush running servers and pause their saving (save-off) while they are archived' }),
    quiesceWaitSeconds: Type.Integer({ minimum: 0, maximum: 60, description: 'seconds to wait after `save-all flush`' }),
    timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone the schedules run in, e.g. Europe/Berlin (default: the system zone)' }),
    includeAuthKey: Type.Boolean({
      description:
        'database backups also carry the dashboard-login key data/auth/session.key, so a restore keeps TOTP working. Off by default: with it, whoever holds a database archive can read every TOTP seed (back the key up separately instead)',
    }),
    scope: Type.Object(
      {
        services: Type.Boolean({ description: 'game servers (not dedicated)' }),
        dedicated: Type.Boolean({ description: 'dedicated services' }),
        templates: Type.Boolean({ description: 'the templates folder' }),
        controllerConfig: Type.Boolean({ description: "the controller's config folder" }),
        stateSync: Type.Boolean({ description: 'synced service state' }),
        database: Type.Boolean({ description: "a copy of the controller's database" }),
      },
      { additionalProperties: false, description: 'the types the target "all" covers' },
    ),
    excludes: Type.Array(Type.String({ minLength: 1, maxLength: PATTERN_MAX }), { maxItems: EXCLUDES_MAX, description: 'globs matched against a file name or its path inside the source; an empty list leaves nothing out' }),
    schedules: Type.Array(ScheduleSchema, { maxItems: SCHEDULES_MAX, description: 'when backups run by themselves' }),
    retention: Type.Object(
      {
        hourlyKeep: keep('hourly'),
        dailyKeep: keep('daily'),
        weeklyKeep: keep('weekly'),
        monthlyKeep: keep('monthly'),
        keepManual: Type.Boolean({ description: 'true: manual backups are never pruned' }),
        failedKeepDays: Type.Integer({ minimum: 0, maximum: FAILED_DAYS_MAX, description: 'failed records older than this many days are removed; 0 keeps them' }),
      },
      { additionalProperties: false, description: 'how many backups are kept per target and class' },
    ),
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------------------------------------
// Reading: one walker over the schema for a PUT body and for the file.

/** Field names as the schema spells them, list indexes, and `{ raw }` for a key as the source spelt it. */
type Path = (string | number | { raw: string })[];

class Problem extends Error {
  constructor(
    readonly path: Path,
    readonly what: string,
  ) {
    super(what);
  }
}

/** How a source spells keys: JSON uses the schema's names, the file snake_case. */
type Spell = (key: string) => string;
const asJson: Spell = (key) => key;
const asToml: Spell = (key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `schedules[1].cron`; the whole body is "body". */
function jsonPath(path: Path): string {
  if (path.length === 0) return 'body';
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${typeof part === 'string' ? part : part.raw}`)).join('');
}

/** `backup.schedules[1].retention_class`, `backup.excludes.patterns[2]`. */
function tomlPath(path: Path): string {
  return ['backup', ...path]
    .map((part, i) => {
      if (typeof part === 'number') return `[${part}]`;
      const key = typeof part !== 'string' ? part.raw : part === 'excludes' && i === 1 ? 'excludes.patterns' : asToml(part);
      return `${i === 0 ? '' : '.'}${key}`;
    })
    .join('');
}

const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && [null, Object.prototype].includes(Object.getPrototypeOf(value));

const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;

/**
 * The value at `path` as the schema wants it: a missing key takes the fallback's value (or is
 * required when the fallback has none), an unknown key is refused.
 */
function walk(schema: TSchema, value: unknown, fallback: unknown, path: Path, spell: Spell): unknown {
  const s = schema as TSchema & Record<string, unknown>;
  if (s.type === 'object') {
    if (!isTable(value)) throw new Problem(path, `must be ${spell === asToml ? 'a table' : 'an object'}, got ${showValue(value)}`);
    const properties = s.properties as Record<string, TSchema>;
    const known = new Map(Object.keys(properties).map((key) => [spell(key), key]));
    for (const key of Object.keys(value)) {
      if (!known.has(key)) throw new Problem([...path, { raw: key }], `is not a known key; the keys are ${[...known.keys()].join(', ')}`);
    }
    const out: Record<string, unknown> = {};
    const fallbackTable = isTable(fallback) ? fallback : {};
    for (const [key, property] of Object.entries(properties)) {
      const given = value[spell(key)];
      if (given === undefined) {
        if (!(key in fallbackTable)) throw new Problem([...path, key], 'is required');
        out[key] = structuredClone(fallbackTable[key]);
      } else out[key] = walk(property, given, fallbackTable[key], [...path, key], spell);
    }
    return out;
  }
  if (s.type === 'array') {
    if (!Array.isArray(value)) throw new Problem(path, `must be a list, got ${showValue(value)}`);
    if (typeof s.minItems === 'number' && value.length < s.minItems) throw new Problem(path, `must have at least ${entries(s.minItems)}`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) throw new Problem(path, `must have at most ${entries(s.maxItems)}, got ${value.length}`);
    const items = s.items as TSchema;
    const itemFallback = items === ScheduleSchema ? SCHEDULE_FALLBACK : undefined;
    return value.map((item, i) => walk(items, item, itemFallback, [...path, i], spell));
  }
  if (!Value.Check(schema, value)) throw new Problem(path, `must be ${describeSchema(schema)}, got ${showValue(value)}`);
  return value;
}

/** No line breaks or other control characters, and no lone surrogate (TOML cannot hold one). */
function textProblem(value: string): string | null {
  if (!value.isWellFormed()) return 'must be valid Unicode text (it holds a lone surrogate)';
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain line breaks or other control characters';
  return null;
}

/** The rules the schema cannot say; returns the config with the zone in its canonical spelling. */
function crossCheck(config: BackupConfig): BackupConfig {
  const destination = textProblem(config.localDestination) ?? (config.localDestination.trim() === '' ? 'must not be blank' : null);
  if (destination) throw new Problem(['localDestination'], destination);
  if (!isValidTimeZone(config.timezone)) throw new Problem(['timezone'], `must be an IANA time zone like "Europe/Berlin" or "UTC", got ${showValue(config.timezone)}`);
  config.timezone = canonicalTimeZone(config.timezone);
  for (const [i, pattern] of config.excludes.entries()) {
    const problem = textProblem(pattern);
    if (problem) throw new Problem(['excludes', i], problem);
  }
  const seen = new Map<string, number>();
  for (const [i, schedule] of config.schedules.entries()) {
    const first = seen.get(schedule.name.toLowerCase());
    if (first !== undefined) throw new Problem(['schedules', i, 'name'], `"${schedule.name}" is already the name of schedules[${first}] (names are unique, ignoring case)`);
    seen.set(schedule.name.toLowerCase(), i);
    try {
      validateCron(schedule.cron);
    } catch (error) {
      throw new Problem(['schedules', i, 'cron'], `${JSON.stringify(schedule.cron)}: ${(error as Error).message}`);
    }
    schedule.targets = [...new Set(schedule.targets)];
  }
  return config;
}

function readConfig(body: unknown, spell: Spell): BackupConfig {
  return crossCheck(walk(BackupConfigSchema, body, BACKUP_DEFAULTS, [], spell) as BackupConfig);
}

/**
 * Validates a PUT body: missing fields take their defaults (deep: a missing scope key takes its
 * default), unknown keys are refused, and every rule of §6 is checked. Throws
 * ApiError('BACKUP_CONFIG_INVALID', '<field path like schedules[1].cron>: <what is wrong>', 400).
 */
export function parseBackupConfig(body: unknown): BackupConfig {
  try {
    return readConfig(body, asJson);
  } catch (error) {
    if (error instanceof Problem) throw new ApiError('BACKUP_CONFIG_INVALID', `${jsonPath(error.path)}: ${error.what}`, 400);
    throw error;
  }
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
    if (!isTable(table)) throw new Problem([], `must be a table, got ${showValue(table)}`);
    // The file nests the exclude list one level deeper: [backup.excludes] patterns = [...].
    const body: Record<string, unknown> = { ...table };
    if (table.excludes !== undefined) {
      const excludes = table.excludes;
      if (!isTable(excludes)) return { ok: false, problem: `backup.excludes must be a table with the key patterns, got ${showValue(excludes)}` };
      const other = Object.keys(excludes).find((key) => key !== 'patterns');
      if (other !== undefined) return { ok: false, problem: `backup.excludes.${other} is not a known key; the keys are patterns` };
      body.excludes = excludes.patterns;
    }
    return { ok: true, config: readConfig(body, asToml) };
  } catch (error) {
    if (error instanceof Problem) return { ok: false, problem: `${tomlPath(error.path)} ${error.what}` };
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
