import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describeSchema, showValue } from '../../describe-schema';

/**
 * Reading a nested document (tables in tables, lists of tables) against its TypeBox schema:
 * the unit's reader for config files that are more than `[section]` tables of scalars, and for
 * the same document as a JSON body (backup.toml and PUT /api/backups/config).
 *
 * The rules, all from the schema:
 * - every object is closed: an unknown key is refused, naming the keys there are (or, for a
 *   file whose unknown keys are only reported, skipped: `unknownKeys: 'ignore'`);
 * - a missing key takes the `default` its schema declares; a missing object without one is
 *   read as `{}` (so its own keys' defaults fill it); any other missing key is required;
 * - a list is checked for its length, then each item;
 * - any other value must pass the schema (`must be <what it accepts>, got <value>`).
 * Problems carry the path in the schema's names; a caller says it the way its source spells it.
 */

/** Field names as the schema spells them, list indexes, and `{ raw }` for a key as the source spelt it. */
export type DocumentPath = (string | number | { raw: string })[];

/** The first thing wrong with a document: where, and what (`is required`, `must be …`). */
export class DocumentProblem extends Error {
  override name = 'DocumentProblem';

  constructor(
    readonly path: DocumentPath,
    readonly what: string,
  ) {
    super(what);
  }
}

/** How a source spells a schema's keys, and what it calls an object. */
export interface Spelling {
  key(name: string): string;
  /** `a table` (TOML) or `an object` (JSON), in `must be …` */
  object: string;
}

export const JSON_SPELLING: Spelling = { key: (name) => name, object: 'an object' };
/** camelCase schema keys as snake_case file keys. */
export const TOML_SPELLING: Spelling = { key: (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), object: 'a table' };

/** What to do with a key the schema does not name: refuse the document (default) or skip the key. */
export type UnknownKeys = 'refuse' | 'ignore';

/** The document as its schema's type, defaults filled; throws a DocumentProblem at the first thing wrong. */
export function readDocument<S extends TSchema>(schema: S, value: unknown, spelling: Spelling, unknownKeys: UnknownKeys = 'refuse'): Static<S> {
  const read = walk(schema, value, [], { spelling, unknownKeys });
  if (Value.Check(schema, read)) return read;
  // Only a schema whose defaults it refuses itself gets here: a programming error.
  throw new Error(`a document read against its schema does not fit it: ${Value.Errors(schema, read).First()?.message ?? 'unknown'}`);
}

/** Every default of a document schema (what an empty document reads as). */
export function documentDefaults<S extends TSchema>(schema: S): Static<S> {
  return readDocument(schema, {}, JSON_SPELLING);
}

/** `schedules[1].cron`, in the schema's names (or the source's, for an unknown key); the whole document is `root`. */
export function documentPath(path: DocumentPath, spelling: Spelling, root?: string): string {
  const parts = root === undefined ? path : [root, ...path];
  if (parts.length === 0) return '';
  return parts
    .map((part, i) => {
      if (typeof part === 'number') return `[${part}]`;
      const key = typeof part === 'string' ? (i === 0 && root !== undefined ? part : spelling.key(part)) : part.raw;
      return `${i === 0 ? '' : '.'}${key}`;
    })
    .join('');
}

const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;

/** A plain table (TOML) or object (JSON); dates, lists and class instances are not. */
export const isPlainTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && [null, Object.prototype].includes(Object.getPrototypeOf(value));

interface Walk {
  spelling: Spelling;
  unknownKeys: UnknownKeys;
}

function walk(schema: TSchema, value: unknown, path: DocumentPath, how: Walk): unknown {
  const { spelling } = how;
  const s = schema as TSchema & Record<string, unknown>;
  if (s.type === 'object') {
    if (!isPlainTable(value)) throw new DocumentProblem(path, `must be ${spelling.object}, got ${showValue(value)}`);
    const properties = s.properties as Record<string, TSchema>;
    const known = new Map(Object.keys(properties).map((key) => [spelling.key(key), key]));
    for (const key of Object.keys(value)) {
      if (!known.has(key) && how.unknownKeys === 'refuse') throw new DocumentProblem([...path, { raw: key }], `is not a known key; the keys are ${[...known.keys()].join(', ')}`);
    }
    const out: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(properties)) {
      const given = value[spelling.key(key)];
      if (given !== undefined) out[key] = walk(property, given, [...path, key], how);
      else if ('default' in property) out[key] = structuredClone(property.default);
      else if (property.type === 'object') out[key] = walk(property, {}, [...path, key], how);
      else throw new DocumentProblem([...path, key], 'is required');
    }
    return out;
  }
  if (s.type === 'array') {
    if (!Array.isArray(value)) throw new DocumentProblem(path, `must be a list, got ${showValue(value)}`);
    if (typeof s.minItems === 'number' && value.length < s.minItems) throw new DocumentProblem(path, `must have at least ${entries(s.minItems)}`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) throw new DocumentProblem(path, `must have at most ${entries(s.maxItems)}, got ${value.length}`);
    const items = s.items as TSchema;
    return value.map((item, i) => walk(items, item, [...path, i], how));
  }
  if (!Value.Check(schema, value)) throw new DocumentProblem(path, `must be ${describeSchema(schema)}, got ${showValue(value)}`);
  return value;
}
