import type { TObject, TSchema } from '@sinclair/typebox';

/** Defaults of a schema of sections (svc.toml, module configs), built fresh on every call. */
export function defaultsOf(schema: TObject): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [section, sectionSchema] of Object.entries(schema.properties)) {
    const values: Record<string, unknown> = {};
    for (const [key, keySchema] of Object.entries((sectionSchema as TObject).properties)) {
      values[key] = structuredClone((keySchema as TSchema).default);
    }
    out[section] = values;
  }
  return out;
}
