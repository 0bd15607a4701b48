import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import type { Static, TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { stringify } from 'smol-toml';
import { fromFileKeys, toFileKeys, toSnake } from './respell';
import { asStatic } from './sections';
import { parseTomlOr } from './toml-syntax';
import { writeFileAtomic } from '../write';
import { describeSchema, showValue } from '../../describe-schema';
import type { Logger } from '../../log';

/**
 * A settings document kept as one TOML file an operator may also edit by hand (config/proxy.toml,
 * config/maintenance.toml): camelCase in the API and in memory, snake_case on disk, the schema
 * (with its defaults) the only list of keys and types. A missing file means defaults (nothing is
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
    const body = stringify(toFileKeys(this.schema, value) as Record<string, unknown>);
    writeFileAtomic(this.file, `${this.header.replace(/^/gm, '# ')}\n\n${body}\n`);
  }

  defaults(): Static<S> {
    return asStatic(this.schema, Value.Default(this.schema, {}));
  }

  private parse(text: string): Static<S> {
    const raw = parseTomlOr(text, (error) => new Error(error.problem));
    const value = Value.Default(this.schema, fromFileKeys(this.schema, raw));
    if (Value.Check(this.schema, value)) return value;
    const problem = Value.Errors(this.schema, value).First();
    const key = (problem?.path ?? '').replace(/^\//, '').split('/').map(toSnake).join('.');
    throw new Error(`"${key}" must be ${describeSchema(problem?.schema)}, got ${showValue(problem?.value)}`);
  }
}
