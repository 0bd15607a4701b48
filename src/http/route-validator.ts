import { KindGuard, type TSchema } from '@sinclair/typebox';
import { HasTransform, TransformDecodeError } from '@sinclair/typebox/value';
import { compiledCheck } from './compiled';
import type { AnyRoute } from './route';
import { mirror } from './mirror';
import { ValidationFailure, type ValidationPart } from './validation';

const decoding = new WeakMap<TSchema, boolean>();

/** True for a schema with a transform inside (an integer parameter): its values go through Decode. */
function decodes(schema: TSchema): boolean {
  let answer = decoding.get(schema);
  if (answer === undefined) {
    answer = HasTransform(schema, []);
    decoding.set(schema, answer);
  }
  return answer;
}

/**
 * Checks a request part against its schema and returns what the handler sees: the declared
 * keys only, text converted where the schema wants numbers or booleans (`convert`, for
 * parameters that arrive as text), transforms decoded. Throws ValidationFailure naming the
 * first problem.
 */
export function validatePart(part: Exclude<ValidationPart, 'response' | 'property'>, schema: TSchema, input: unknown, convert: boolean): unknown {
  // `t.Optional(...)` as a whole part: leaving it out is allowed (an optional body).
  if (input === undefined && KindGuard.IsOptional(schema)) return undefined;
  const check = compiledCheck(schema);
  let value = mirror(schema, input);
  if (convert) value = fromText(schema, value);
  if (!check.Check(value)) throw new ValidationFailure(part, [...check.Errors(value)], value);
  if (!decodes(schema)) return value;
  try {
    return check.Decode(value);
  } catch (error) {
    throw decodeFailure(part, error, value);
  }
}

/**
 * Query and path values arrive as text: a property declared boolean takes `true`/`false`, one
 * declared a number takes the number a numeric string spells (lists item by item). Integers
 * decode themselves (t.ts); anything else stays text for the check to judge.
 */
function fromText(schema: TSchema, value: unknown): unknown {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties;
  if (!properties || typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, property] of Object.entries(properties)) {
    const text = out[key];
    if (text === undefined) continue;
    out[key] = Array.isArray(text) && property.type === 'array' ? text.map((item) => scalarFromText(property.items as TSchema, item)) : scalarFromText(property, text);
  }
  return out;
}

function scalarFromText(schema: TSchema, text: unknown): unknown {
  if (typeof text !== 'string') return text;
  if (schema.type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (schema.type === 'number') {
    const number = Number(text);
    return text.trim() !== '' && Number.isFinite(number) ? number : text;
  }
  return text;
}

/** A decoded value out of its range (an integer parameter above its maximum): named by its path. */
function decodeFailure(part: ValidationPart, error: unknown, value: unknown): unknown {
  if (!(error instanceof TransformDecodeError)) return error;
  const inner = error.error;
  if (!(inner instanceof ValidationFailure)) return error;
  const first = inner.all[0];
  return new ValidationFailure(part, [{ ...first, path: error.path, value: error.value }], value);
}

/**
 * What a route answers with a value (not a Response) under `status`: the declared fields only,
 * checked against the route's response schema for that status. A value outside it is our bug,
 * answered 500 by the error renderer.
 */
export function validateResponse(route: AnyRoute, status: number, value: unknown): unknown {
  const schema = route.response[status];
  if (!schema) return value;
  const check = compiledCheck(schema);
  const out = mirror(schema, value);
  if (!check.Check(out)) throw new ValidationFailure('response', [...check.Errors(out)], out);
  return out;
}
