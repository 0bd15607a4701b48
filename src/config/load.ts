import { existsSync, readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import type { TObject, TSchema } from '@sinclair/typebox';
import { parse as parseToml, TomlError } from 'smol-toml';
import { ConfigSchema, sectionSchema, type Config } from './schema';
import { defaultsOf } from './defaults';
import { describeSchema, showValue } from '../describe-schema';
import { writeFileAtomic } from './write';
import defaultToml from '../../config/svc.toml' with { type: 'text' };

/** A config problem the operator must fix; the process exits with status 2 and this one line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface LoadedConfig {
  config: Config;
  /** Unknown keys and other non-fatal findings, one readable line each. */
  warnings: string[];
  /** True when this launch wrote the default file. */
  created: boolean;
}

export const DEFAULT_CONFIG_TEXT: string = defaultToml;

/** Writes the commented default svc.toml if the file is absent. Returns true when written. */
export function ensureConfigFile(path: string): boolean {
  if (existsSync(path)) return false;
  writeFileAtomic(path, DEFAULT_CONFIG_TEXT);
  return true;
}

export function loadConfig(path: string, env: Record<string, string | undefined> = process.env): LoadedConfig {
  const created = ensureConfigFile(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const { config, warnings } = parseConfigText(text, path);
  applyEnvironment(config, env);
  if (config.controller.strict_config && warnings.length > 0) {
    throw new ConfigError(`${warnings[0]} (strict_config = true refuses unknown keys)`);
  }
  const empty = emptyConfigWarning(text, path);
  if (empty) warnings.unshift(empty);
  return { config, warnings, created };
}

/**
 * A config file with nothing in it (0 bytes or only blanks) is valid TOML and means "all
 * defaults", but is far more often a file a crash or a bad copy truncated than a choice: said
 * loudly at every start and by the doctor. The commented file `svc init` writes is not empty.
 */
export function emptyConfigWarning(text: string, path: string): string | undefined {
  if (text.trim() !== '') return undefined;
  return `${path} is EMPTY (${text.length} bytes): every setting is at its default, whatever this controller was configured with before. If it was truncated, restore it from a backup; to get the commented default file instead, delete it and start once (or run svc init)`;
}

/** Parses and validates svc.toml text. Unknown keys become warnings; bad values throw. */
export function parseConfigText(text: string, file: string): { config: Config; warnings: string[] } {
  const { value, warnings } = parseTomlAgainst(ConfigSchema, text, file);
  return { config: value as Config, warnings };
}

/**
 * Parses TOML whose top level is tables of scalar keys (svc.toml, module configs) against a
 * schema of sections: defaults fill what is absent, unknown keys become warnings, and the first
 * bad value throws a ConfigError naming the file, the key and what was expected.
 */
export function parseTomlAgainst(schema: TObject, text: string, file: string): { value: Record<string, Record<string, unknown>>; warnings: string[] } {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      throw new ConfigError(`${file}:${error.line}:${error.column}: malformed TOML: ${reason}`);
    }
    throw new ConfigError(`${file}: malformed TOML: ${String(error)}`);
  }

  const value = defaultsOf(schema);
  const warnings: string[] = [];
  const sections = Object.keys(schema.properties);

  for (const [section, sectionValue] of Object.entries(raw)) {
    const sectionSchema = (schema.properties as Record<string, TObject>)[section];
    if (!sectionSchema) {
      const isTable = typeof sectionValue === 'object' && sectionValue !== null && !Array.isArray(sectionValue);
      warnings.push(
        isTable
          ? `${file}: unknown section [${section}] (ignored)${suggest(section, sections)}`
          : `${file}: unknown top-level key ${section} (ignored; every key belongs under a [section])`,
      );
      continue;
    }
    if (typeof sectionValue !== 'object' || sectionValue === null || Array.isArray(sectionValue)) {
      throw new ConfigError(`${file}: ${section}: expected a [${section}] table, got ${showValue(sectionValue)}`);
    }
    for (const [key, keyValue] of Object.entries(sectionValue)) {
      const keySchema = (sectionSchema.properties as Record<string, TSchema>)[key];
      if (!keySchema) {
        warnings.push(`${file}: unknown key [${section}] ${key} (ignored)${suggest(key, Object.keys(sectionSchema.properties))}`);
        continue;
      }
      checkValue(keySchema, keyValue, `${file}: [${section}] ${key}`);
      value[section]![key] = keyValue;
    }
  }
  return { value, warnings };
}

function checkValue(schema: TSchema, value: unknown, where: string): void {
  if (Value.Check(schema, value)) return;
  throw new ConfigError(`${where}: expected ${describeSchema(schema)}, got ${showValue(value)}`);
}

/** Environment variables win over the file; their values are validated like file values. */
function applyEnvironment(config: Config, env: Record<string, string | undefined>): void {
  const set = (name: string, section: keyof Config, key: string, numeric = false) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return;
    const value: unknown = numeric ? (/^\d+$/.test(raw) ? Number(raw) : raw) : raw;
    const schema = (sectionSchema(section) as TObject).properties[key] as TSchema;
    checkValue(schema, value, `environment ${name}`);
    (config[section] as Record<string, unknown>)[key] = value;
  };
  set('SVC_API_TOKEN', 'api', 'token');
  set('SVC_CLUSTER_TOKEN', 'cluster', 'token');
  set('SVC_CLUSTER_KEYSTORE_PASSWORD', 'cluster', 'keystore_password');
  set('SVC_CLUSTER_KEYSTORE_PREVIOUS_PASSWORD', 'cluster', 'keystore_previous_password');
  set('SVC_DB_TYPE', 'database', 'type');
  set('SVC_DB_HOST', 'database', 'host');
  set('SVC_DB_PORT', 'database', 'port', true);
  set('SVC_DB_NAME', 'database', 'name');
  set('SVC_DB_USERNAME', 'database', 'username');
  set('SVC_DB_PASSWORD', 'database', 'password');
}

function suggest(word: string, candidates: string[]): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const d = word.length > 64 ? 99 : levenshtein(word, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best ? `; did you mean "${best}"?` : '';
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
