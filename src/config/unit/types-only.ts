import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { toSnake } from './respell';

/**
 * The shape a hand-edited file of `schema` may take: every field optional and spelt
 * snake_case, each value checked for its type only. Lengths, ranges and patterns are left to the
 * caller's own rules, which say them in that file's words (display: "must be one line", "must
 * be a multiple of 9"); a record's keys are names and stay as written. Unions and other
 * schemas are kept as they are.
 */
export function typesOnly(schema: TObject): TObject;
export function typesOnly(schema: TSchema): TSchema;
export function typesOnly(schema: TSchema): TSchema {
  const s = schema as TSchema & { properties?: Record<string, TSchema>; patternProperties?: Record<string, TSchema>; items?: TSchema };
  if (s.type === 'object' && s.properties) {
    return Type.Object(Object.fromEntries(Object.entries(s.properties).map(([key, field]) => [toSnake(key), Type.Optional(typesOnly(field))])));
  }
  const recordValue = s.type === 'object' && s.patternProperties ? Object.values(s.patternProperties)[0] : undefined;
  if (recordValue) return Type.Record(Type.String(), typesOnly(recordValue));
  if (s.type === 'array' && s.items) return Type.Array(typesOnly(s.items));
  switch (s.type) {
    case 'string':
      return Type.String();
    case 'integer':
      return Type.Integer();
    case 'number':
      return Type.Number();
    case 'boolean':
      return Type.Boolean();
    default:
      return schema;
  }
}
