import type { TSchema } from '@sinclair/typebox';

/**
 * A document's keys as its schema spells them (camelCase) or as its file does (snake_case),
 * led by the schema: the fields of an object are renamed, the keys of a record are names (a
 * maintenance group, a state label) and keep their spelling while their values are renamed.
 * Keys the schema does not know are renamed like fields, so a later check names them.
 */

export const toSnake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const toCamel = (key: string): string => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The value with its field names in the file's spelling. */
export function toFileKeys(schema: TSchema, value: unknown): unknown {
  return respell(schema, value, toSnake, 'before');
}

/** A file's value with its field names in the schema's spelling. */
export function fromFileKeys(schema: TSchema, value: unknown): unknown {
  return respell(schema, value, toCamel, 'after');
}

const isTable = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** `lookup`: whether a field's schema is found by its name before or after renaming (the schema's spelling). */
function respell(schema: TSchema | undefined, value: unknown, rename: (key: string) => string, lookup: 'before' | 'after'): unknown {
  if (!isTable(value)) return value;
  const s = (schema ?? {}) as TSchema & { properties?: Record<string, TSchema>; patternProperties?: Record<string, TSchema> };
  const out: Record<string, unknown> = {};
  if (s.patternProperties && !s.properties) {
    const inner = Object.values(s.patternProperties)[0];
    for (const [key, item] of Object.entries(value)) out[key] = respell(inner, item, rename, lookup);
    return out;
  }
  for (const [key, item] of Object.entries(value)) {
    const renamed = rename(key);
    out[renamed] = respell(s.properties?.[lookup === 'before' ? key : renamed], item, rename, lookup);
  }
  return inSchemaOrder(out, s.properties, rename, lookup);
}

/** The schema's fields first, in its order (so a file is written the same way whatever built the value), then any others. */
function inSchemaOrder(out: Record<string, unknown>, properties: Record<string, TSchema> | undefined, rename: (key: string) => string, lookup: 'before' | 'after'): Record<string, unknown> {
  if (!properties) return out;
  const ordered: Record<string, unknown> = {};
  for (const field of Object.keys(properties)) {
    const key = lookup === 'before' ? rename(field) : field;
    if (key in out) ordered[key] = out[key];
  }
  for (const [key, item] of Object.entries(out)) if (!(key in ordered)) ordered[key] = item;
  return ordered;
}
