import { diskFullCode } from '../../storage/disk-full';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { DocumentProblem, documentPath, isPlainTable, JSON_SPELLING, readDocument, TOML_SPELLING, type DocumentPath } from '../../config/unit/document';
import { renderToml } from '../../config/unit/render';
import { parseTomlText, TomlSyntaxError } from '../../config/unit/toml-syntax';
import { writeFileAtomic } from '../../config/write';
import { showValue } from '../../describe-schema';
import { ApiError } from '../../errors';
import { canonicalTimeZone, isValidTimeZone, validateCron } from './cron';
import { BACKUP_DEFAULTS, BackupConfigSchema, BackupFileSchema, type BackupConfig } from './schema';
import { BACKUP_TOML_TEXT } from './toml-text';

export {
  BACKUP_DEFAULTS,
  BackupConfigSchema,
  RETENTION_CLASSES,
  SCHEDULE_NAME_PATTERN,
  TARGET_WORDS,
  type BackupConfig,
  type BackupSchedule,
  type RetentionClass,
  type TargetWord,
} from './schema';

/**
 * Reading and writing the backup configuration (its schema and the decisions behind it are in
 * schema.ts): a PUT body (camelCase JSON) and `config/modules/backup/backup.toml` (snake_case
 * under `[backup]`) are read by the config-file unit's document reader against the same schema
 * and cross-field checks; the file is rendered from its schema and words (toml-text.ts).
 */
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

/** The file's text: the config under `[backup]` with its words; parseBackupToml gives back `config`. */
export function renderBackupToml(config: BackupConfig): string {
  return renderToml(BackupFileSchema, BACKUP_TOML_TEXT, { backup: { ...config, excludes: { patterns: config.excludes } } });
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
