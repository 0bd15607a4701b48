import { FormatRegistry, Type, type IntegerOptions, type TInteger, type TLiteral, type TUnion } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValidationFailure } from './validation';

/** A string that spells an integer (`12`, `-3`, `1e21`): what a URL carries for an integer parameter. */
if (!FormatRegistry.Has('integer')) FormatRegistry.Set('integer', (value) => value !== '' && Number.isInteger(+value));

/**
 * An integer, or a string of one, decoded to a number: query and path parameters arrive as text,
 * and JSON clients that quote numbers are accepted as before. The range check of the decoded
 * number is compiled the first time a value is decoded, not where the schema is written: with
 * ~200 integer fields in the route schemas that is ~200 validators not built at every start.
 */
function lazyInteger(options?: IntegerOptions): TInteger {
  const schema: TInteger = Type.Integer(options);
  let check: TypeCheck<TInteger> | undefined;
  // Typed as what it decodes to, as handlers see it.
  return Type.Transform(Type.Union([Type.String({ format: 'integer' }), Type.Integer(options)], options))
    .Decode((value): number => {
      const number = +value;
      check ??= TypeCompiler.Compile(schema);
      if (!check.Check(number)) throw new ValidationFailure('property', [...check.Errors(number)], number);
      return number;
    })
    .Encode((value) => value) as unknown as TInteger;
}

/** One of these strings, as a union of literals (an enum in the OpenAPI document's words). */
function unionEnum<const T extends readonly string[]>(values: T, options?: Parameters<typeof Type.Union>[1]): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(values.map((value) => Type.Literal(value)), options) as never;
}

/**
 * The schema builder of route models: TypeBox's `Type`, with `Integer` as above (query and path
 * integers decode from their text) and `UnionEnum`. Body numbers that must be JSON numbers use
 * `Type.Integer`/`Type.Number` directly.
 */
export const t = { ...Type, Integer: lazyInteger, UnionEnum: unionEnum } as Omit<typeof Type, 'Integer'> & {
  Integer: typeof lazyInteger;
  UnionEnum: typeof unionEnum;
};
