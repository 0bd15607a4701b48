import type { TObject } from '@sinclair/typebox';
import { ConfigSchema, sectionSchema, type Config } from './schema';
import { ConfigError } from './unit/config-error';
import { checkValue } from './unit/sections';
import { SectionsFile } from './unit/sections-file';
import { SVC_TOML_TEXT } from './svc-toml-text';

export { ConfigError };

export interface LoadedConfig {
  config: Config;
  /** Unknown keys and other non-fatal findings, one readable line each. */
  warnings: string[];
  /** True when this launch wrote the default file. */
  created: boolean;
}

/**
 * svc.toml as a config-file unit. Its commented default file is rendered from ConfigSchema and
 * its words (svc-toml-text.ts); config/svc.toml in the repository is a copy of it, kept equal by a test.
 */
export const svcToml = new SectionsFile({ schema: ConfigSchema, title: 'svc controller configuration', text: SVC_TOML_TEXT });

/** The commented default svc.toml (what `svc init` and a first launch write). */
export const DEFAULT_CONFIG_TEXT: string = svcToml.render();

/** Writes the commented default svc.toml if the file is absent. Returns true when written. */
export function ensureConfigFile(path: string): boolean {
  return svcToml.ensure(path);
}

export function loadConfig(path: string, env: Record<string, string | undefined> = process.env): LoadedConfig {
  const { value: config, warnings, text, created } = svcToml.load(path);
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
  const { value, warnings } = svcToml.parse(text, file);
  return { config: value, warnings };
}

/** Environment variables win over the file; their values are validated like file values. */
function applyEnvironment(config: Config, env: Record<string, string | undefined>): void {
  const set = (name: string, section: keyof Config, key: string, numeric = false) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return;
    const value: unknown = numeric ? (/^\d+$/.test(raw) ? Number(raw) : raw) : raw;
    const schema = (sectionSchema(section) as TObject).properties[key]!;
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
