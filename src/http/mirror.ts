import { KindGuard, type TSchema } from '@sinclair/typebox';
import { compiledCheck } from './compiled';

/** A record's key pattern, compiled once; null for TypeBox's any-string pattern (every key). */
const keyPatterns = new WeakMap<TSchema, RegExp | null>();
const ANY_STRING_KEY = '^(.*)$';

/** The first union member `value` satisfies. */
const memberOf = (members: TSchema[], value: unknown): TSchema | undefined => members.find((member) => compiledCheck(member).Check(value));

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A copy of `value` holding only what `schema` declares: object keys the schema does not list
 * are left out (at every depth), unless it allows extra properties; null for an optional
 * object property is left out too. The value itself is never
 * changed (a handler may return an object a store still holds). Bodies and queries are
 * mirrored before validation, responses before they are sent, so nothing undeclared (an
 * internal field, a stored secret) reaches either side.
 */
export function mirror(schema: TSchema, value: unknown): unknown {
  if (KindGuard.IsObject(schema)) {
    if (!isPlainObject(value)) return value;
    const extra = schema.additionalProperties;
    if (extra === true) return value;
    const out: Record<string, unknown> = {};
    const required = schema.required ?? [];
    for (const key of Object.keys(value)) {
      const property = schema.properties[key];
      if (property !== undefined) {
        // null for an optional object (`"sign": null` in a patch) means the same as leaving it out.
        const absent = value[key] === undefined || (value[key] === null && KindGuard.IsObject(property) && !required.includes(key));
        if (!absent) out[key] = mirror(property, value[key]);
      } else if (typeof extra === 'object') {
        out[key] = mirror(extra, value[key]);
      }
    }
    return out;
  }
  if (KindGuard.IsArray(schema)) return Array.isArray(value) ? value.map((item) => mirror(schema.items, item)) : value;
  if (KindGuard.IsRecord(schema)) {
    if (!isPlainObject(value)) return value;
    const [pattern, member] = Object.entries(schema.patternProperties)[0]!;
    if (KindGuard.IsUnknown(member) || KindGuard.IsAny(member)) {
      if (pattern === ANY_STRING_KEY) return value;
    }
    let keys = keyPatterns.get(schema);
    if (keys === undefined) {
      keys = pattern === ANY_STRING_KEY ? null : new RegExp(pattern);
      keyPatterns.set(schema, keys);
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) if (keys === null || keys.test(key)) out[key] = mirror(member, value[key]);
    return out;
  }
  if (KindGuard.IsUnion(schema)) {
    if (typeof value !== 'object' || value === null) return value;
    const member = memberOf(schema.anyOf, value);
    return member ? mirror(member, value) : value;
  }
  return value;
}
