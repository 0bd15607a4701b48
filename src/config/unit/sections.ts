import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describeSchema, showValue } from '../../describe-schema';
import { defaultsOf } from './defaults';
import { ConfigError } from './config-error';
import { suggest } from './suggest';

/**
 * A config file's schema: `[section]` tables of keys, each key a TypeBox schema with its
 * `default` and `description` (svc.toml, agent.toml, module files). The schema is the only
 * list of keys and types; defaults, reading and the commented file all come from it.
 */
export type SectionsSchema = TObject<Record<string, TObject>>;

export interface ReadSections<S extends TObject> {
  value: Static<S>;
  /** Unknown sections and keys, one readable line each naming the file (the value is ignored). */
  warnings: string[];
}

/**
 * Parsed TOML read against a schema of sections: defaults fill what is absent, unknown keys
 * become warnings, and the first bad value throws a ConfigError naming the file, the key and
 * what was expected: `<file>: [<section>] <key>: expected <what>, got <value>`.
 */
export function readSections<S extends TObject>(schema: S, raw: Record<string, unknown>, file: string): ReadSections<S> {
  const value = defaultsOf(schema);
  const warnings: string[] = [];
  const sections = schema.properties as Record<string, TObject>;
  const sectionNames = Object.keys(sections);

  for (const [section, sectionValue] of Object.entries(raw)) {
    const sectionSchema = sections[section];
    if (!sectionSchema) {
      warnings.push(
        isTable(sectionValue)
          ? `${file}: unknown section [${section}] (ignored)${suggest(section, sectionNames)}`
          : `${file}: unknown top-level key ${section} (ignored; every key belongs under a [section])`,
      );
      continue;
    }
    if (!isTable(sectionValue)) throw new ConfigError(`${file}: ${section}: expected a [${section}] table, got ${showValue(sectionValue)}`);
    const keys = sectionSchema.properties as Record<string, TSchema>;
    for (const [key, keyValue] of Object.entries(sectionValue)) {
      const keySchema = keys[key];
      if (!keySchema) {
        warnings.push(`${file}: unknown key [${section}] ${key} (ignored)${suggest(key, Object.keys(keys))}`);
        continue;
      }
      checkValue(keySchema, keyValue, `${file}: [${section}] ${key}`);
      value[section]![key] = keyValue;
    }
  }
  return { value: asStatic(schema, value), warnings };
}

/** Throws a ConfigError `<where>: expected <what the schema accepts>, got <value>` unless the value fits. */
export function checkValue(schema: TSchema, value: unknown, where: string): void {
  if (Value.Check(schema, value)) return;
  throw new ConfigError(`${where}: expected ${describeSchema(schema)}, got ${showValue(value)}`);
}

/**
 * The value as its schema's type, checked rather than cast: a value that does not fit is a
 * programming error (a key without a default, a default its own schema refuses).
 */
export function asStatic<S extends TSchema>(schema: S, value: unknown): Static<S> {
  if (Value.Check(schema, value)) return value;
  const error = Value.Errors(schema, value).First();
  throw new Error(`config value does not fit its schema at ${error?.path || '/'}: ${error?.message ?? 'unknown'} (a key without a default?)`);
}

// A date counts as a table here, as it always has for these files (it has no keys to read).
const isTable = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
