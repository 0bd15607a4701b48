import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import type { Static, TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { stringify } from 'smol-toml';
import { parseTomlOr } from '../../config/unit/toml-syntax';
import { writeFileAtomic } from '../../config/write';
import { describeSchema, showValue } from '../../describe-schema';
import type { Logger } from '../../log';

/**
 * A settings document kept as one TOML file an operator may also edit by hand: camelCase in
 * the API and in memory, snake_case on disk. A missing file means defaults (nothing is
 * written until something changes). A file that cannot be used is reported by name and key,
 * the defaults apply, and before the next save the bad file is copied aside to `<file>.broken`
 * so no hand edit is lost.
 */
export class SettingsFile<S extends TObject> {
  private broken = false;

  constructor(
    readonly file: string,
    private readonly schema: S,
    private readonly header: string,
    private readonly log: Logger,
  ) {}

  load(): Static<S> {
    this.broken = false;
    if (!existsSync(this.file)) return this.defaults();
    try {
      return this.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      this.broken = true;
      this.log.error(`${this.file}: ${(error as Error).message}; using the defaults until it is fixed (the file is kept)`);
      return this.defaults();
    }
  }

  /** Writes the whole document atomically and durably. */
  save(value: Static<S>): void {
    if (this.broken && existsSync(this.file)) {
      copyFileSync(this.file, `${this.file}.broken`);
      this.log.warn(`${this.file}: the unusable file was kept as ${this.file}.broken`);
      this.broken = false;
    }
    const body = stringify(mapKeys(value as Record<string, unknown>, toSnake) as Record<string, unknown>);
    writeFileAtomic(this.file, `${this.header.replace(/^/gm, '# ')}\n\n${body}\n`);
  }

  defaults(): Static<S> {
    return Value.Default(this.schema, {}) as Static<S>;
  }

  private parse(text: string): Static<S> {
    const raw = parseTomlOr(text, (error) => new Error(error.problem));
    const value = Value.Default(this.schema, mapKeys(raw, toCamel));
    const problem = Value.Errors(this.schema, value).First();
    if (problem) {
      const key = problem.path.replace(/^\//, '').split('/').map(toSnake).join('.');
      throw new Error(`"${key}" must be ${describeSchema(problem.schema)}, got ${showValue(problem.value)}`);
    }
    return value as Static<S>;
  }
}

const toSnake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const toCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * Renames the keys of nested tables. The keys of a name-keyed table (maintenance `groups`)
 * are data and keep their spelling; the fields of its entries are renamed.
 */
function mapKeys(value: unknown, rename: (key: string) => string, keysAreNames = false): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const renamed = keysAreNames ? key : rename(key);
    out[renamed] = mapKeys(inner, rename, !keysAreNames && NAME_KEYED_TABLES.has(renamed));
  }
  return out;
}

/** Tables whose keys are names, not fields. */
const NAME_KEYED_TABLES = new Set(['groups']);
