import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

const checks = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The schema's compiled check, built the first time it is asked for (never at start) and kept. */
export function compiledCheck(schema: TSchema): TypeCheck<TSchema> {
  let check = checks.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    checks.set(schema, check);
  }
  return check;
}
