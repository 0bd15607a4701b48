import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Type, type IntegerOptions, type TInteger } from '@sinclair/typebox';
import { t as elysiaT, ValidationError } from 'elysia';

/**
 * Elysia's `t.Integer` (an integer, or a string of one, decoded to a number) compiles its
 * check when the schema is defined: with ~200 integer fields in the route schemas that is ~200
 * generated validators, built and compiled at every start before the first request. This one
 * is the same schema and the same decoding, with the check compiled the first time a value is
 * decoded.
 */
function lazyInteger(property?: IntegerOptions) {
  const schema: TInteger = Type.Integer(property);
  let check: TypeCheck<TInteger> | undefined;
  return elysiaT
    .Transform(elysiaT.Union([elysiaT.String({ format: 'integer', default: 0 }), Type.Integer(property)], property))
    .Decode((value) => {
      const number = +value;
      check ??= TypeCompiler.Compile(schema);
      // The same arguments Elysia's own helper passes (its fourth lands in allowUnsafeValidationDetails).
      if (!check.Check(number)) throw new ValidationError('property', schema, number, check.Errors(number) as unknown as boolean);
      return number;
    })
    .Encode((value) => value);
}

/** Elysia's `t` for route schemas, with Integer as above; everything else is Elysia's own. */
export const t: typeof elysiaT = { ...elysiaT, Integer: lazyInteger as unknown as typeof elysiaT.Integer };
