import { Kind, TypeRegistry, Type, type IntegerOptions, type TInteger, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';

/** The kind of `t.Integer`'s text form: a string that spells an integer within the schema's range. */
const INTEGER_TEXT = 'SvcIntegerText';
/** The range of a text form, kept off the JSON the OpenAPI document shows. */
const RANGE = Symbol('svc.integer-range');

interface IntegerText extends TSchema {
  [RANGE]: IntegerOptions;
}

function inRange(value: number, range: IntegerOptions): boolean {
  if (!Number.isInteger(value)) return false;
  if (range.minimum !== undefined && value < range.minimum) return false;
  if (range.maximum !== undefined && value > range.maximum) return false;
  if (range.exclusiveMinimum !== undefined && value <= range.exclusiveMinimum) return false;
  if (range.exclusiveMaximum !== undefined && value >= range.exclusiveMaximum) return false;
  if (range.multipleOf !== undefined && value % range.multipleOf !== 0) return false;
  return true;
}

// Checked where the whole value is checked (the request part's validator), so a value out of
// range is refused with the path of its field, as a number out of range is.
if (!TypeRegistry.Has(INTEGER_TEXT)) {
  TypeRegistry.Set<IntegerText>(INTEGER_TEXT, (schema, value) => typeof value === 'string' && value !== '' && inRange(+value, schema[RANGE]));
}

/**
 * An integer, or a string of one, decoded to a number: query and path parameters arrive as text,
 * and JSON clients that quote numbers are accepted as before. The range applies to both forms
 * and is checked with the rest of the value (nothing is compiled where the schema is written,
 * with ~200 integer fields in the route schemas); decoding then only converts.
 */
function integer(options: IntegerOptions = {}): TInteger {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = options;
  const text = { [Kind]: INTEGER_TEXT, type: 'string', format: 'integer', [RANGE]: { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } } as unknown as TSchema;
  // Typed as what it decodes to, as handlers see it. The number first: answers carry numbers.
  return Type.Transform(Type.Union([Type.Integer(options), text], options))
    .Decode((value): number => +(value as string | number))
    .Encode((value) => value) as unknown as TInteger;
}

/** One of these strings, as a union of literals (an enum in the OpenAPI document's words). */
function unionEnum<const T extends readonly string[]>(values: T, options?: Parameters<typeof Type.Union>[1]): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(values.map((value) => Type.Literal(value)), options) as never;
}

/**
 * The schema builder of route models: TypeBox's `Type` (what Elysia's `t` is built on), with
 * `Integer` as above (query and path integers decode from their text) and `UnionEnum`. Body
 * numbers that must be JSON numbers use `Type.Integer`/`Type.Number` directly.
 */
export const t = { ...Type, Integer: integer, UnionEnum: unionEnum } as Omit<typeof Type, 'Integer'> & {
  Integer: typeof integer;
  UnionEnum: typeof unionEnum;
};
