import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describeSchema, showValue } from '../../describe-schema';
import { tomlString } from '../patch';
import { parseTomlOr } from './toml-syntax';

/**
 * A file that is one table of fields, some in sub-tables (`[group]`, `[group.resources]`, …;
 * `[dedicated]`): a group's or a dedicated service's file. Its field table (the API name of each
 * field → where it lives under the table, its schema, its default) is the one source of keys,
 * types, defaults and the order keys are written in; the API's flat form comes from it too.
 */
export interface TableField {
  /** Where the value lives under the file's table, e.g. ['resources', 'memory']. */
  path: readonly string[];
  schema: TSchema;
  default: unknown;
}

export interface ReadTable {
  /** Every field by its API name: the file's value, or a copy of its default. */
  values: Record<string, unknown>;
  /** The file's table as written, for checks the field table cannot make (is a key there at all?). */
  table: Record<string, unknown>;
  /** Unknown keys, `<file>: unknown key <table>.<key> (ignored)`. */
  warnings: string[];
}

/**
 * Reads `text` as the table `name` of `fields`. A missing field takes its default, except those
 * named in `required` (`<file>: [<name>] <key> is required`); a value its schema refuses,
 * malformed TOML or a missing table is thrown as what `fail` makes of the message, which names
 * the file and the key: `<file>: [<name>.<sub>] <key>: expected <what>, got <value>`.
 */
export function readFieldTable(text: string, file: string, name: string, fields: Readonly<Record<string, TableField>>, fail: (message: string) => Error, required: readonly string[] = []): ReadTable {
  const raw = parseTomlOr(text, (error) => fail(error.inFile(file)));
  const warnings: string[] = [];
  for (const key of Object.keys(raw)) if (key !== name) warnings.push(`${file}: unknown top-level key ${key} (ignored)`);
  const table = raw[name];
  if (!isTable(table)) throw fail(`${file}: the [${name}] table is missing`);

  const values: Record<string, unknown> = {};
  const known = new Set<string>();
  for (const [key, field] of Object.entries(fields)) {
    const tablePath = [name, ...field.path.slice(0, -1)].join('.');
    const last = field.path[field.path.length - 1];
    known.add(tablePath);
    known.add(`${tablePath}.${last}`);
    const value = lookup(table, field.path);
    if (value === undefined) {
      if (required.includes(key)) throw fail(`${file}: [${name}] ${last} is required`);
      values[key] = structuredClone(field.default);
      continue;
    }
    if (!Value.Check(field.schema, value)) throw fail(`${file}: [${tablePath}] ${last}: expected ${describeSchema(field.schema)}, got ${showValue(value)}`);
    values[key] = value;
  }
  collectUnknown(table, [name], known, file, warnings);
  return { values, table, warnings };
}

/** The value at `path` under a table, or undefined. */
export function lookup(table: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = table;
  for (const segment of path) {
    if (!isTable(current)) return undefined;
    current = current[segment];
  }
  return current;
}

/**
 * The file: a comment line, then `[<name>]` with its fields and each sub-table after it, in
 * field-table order. Deterministic, so the same value always gives the same bytes.
 */
export function renderFieldTable(header: string, name: string, fields: Readonly<Record<string, TableField>>, value: Readonly<Record<string, unknown>>): string {
  const tables = new Map<string, string[]>([[name, []]]);
  for (const [key, field] of Object.entries(fields)) {
    const table = [name, ...field.path.slice(0, -1)].join('.');
    const lines = tables.get(table) ?? [];
    lines.push(`${field.path[field.path.length - 1]} = ${renderValue(value[key])}`);
    tables.set(table, lines);
  }
  const out = [`# ${header}`];
  for (const [table, lines] of tables) out.push('', `[${table}]`, ...lines);
  return `${out.join('\n')}\n`;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (Array.isArray(value)) return `[${value.map(renderValue).join(', ')}]`;
  return String(value);
}

const isTable = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function collectUnknown(table: Record<string, unknown>, path: string[], known: Set<string>, file: string, warnings: string[]): void {
  for (const [key, value] of Object.entries(table)) {
    const full = [...path, key].join('.');
    if (!known.has(full)) {
      warnings.push(`${file}: unknown key ${full} (ignored)`);
      continue;
    }
    if (isTable(value)) collectUnknown(value, [...path, key], known, file, warnings);
  }
}
