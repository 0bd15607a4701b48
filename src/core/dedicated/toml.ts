import { Value } from '@sinclair/typebox/value';
import { parseTomlOr } from '../../config/unit/toml-syntax';
import { tomlString } from '../../config/patch';
import { describeSchema, showValue } from '../../describe-schema';
import { DEDICATED_FIELDS, DEDICATED_REQUIRED, dedicatedProblem, type Dedicated } from './model';

/** A dedicated config file that cannot be used; the message names the file and the key. */
export class DedicatedFileError extends Error {
  override name = 'DedicatedFileError';
}

/** `[dedicated]` with every key in field-table order: the same config always gives the same bytes. */
export function renderDedicatedToml(config: Dedicated): string {
  const lines = [`# Dedicated service ${config.name}. Managed by svc (/api/dedicated); hand edits load at the next controller start.`, '', '[dedicated]'];
  for (const [key, field] of Object.entries(DEDICATED_FIELDS)) lines.push(`${field.key} = ${renderValue(config[key as keyof Dedicated])}`);
  return `${lines.join('\n')}\n`;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (Array.isArray(value)) return `[${value.map(renderValue).join(', ')}]`;
  return String(value);
}

/**
 * Reads a dedicated config file (hand-edited or ours). Missing optional keys take their
 * defaults; unknown keys are warnings; a bad value, a missing port/software/version or a
 * broken file throws DedicatedFileError naming file and key. The name comes from
 * `[dedicated] name`, else from the file name; both present must agree.
 */
export function parseDedicatedToml(text: string, file: string, nameFromFile: string): { config: Dedicated; warnings: string[] } {
  const raw = parseTomlOr(text, (error) => new DedicatedFileError(error.inFile(file)));
  const warnings: string[] = [];
  for (const key of Object.keys(raw)) if (key !== 'dedicated') warnings.push(`${file}: unknown top-level key ${key} (ignored)`);
  const table = raw.dedicated;
  if (typeof table !== 'object' || table === null || Array.isArray(table)) throw new DedicatedFileError(`${file}: the [dedicated] table is missing`);
  const root = table as Record<string, unknown>;

  const out: Record<string, unknown> = {};
  const known = new Set<string>();
  for (const [key, field] of Object.entries(DEDICATED_FIELDS)) {
    known.add(field.key);
    const value = root[field.key];
    if (value === undefined) {
      if ((DEDICATED_REQUIRED as readonly string[]).includes(key) && key !== 'name') throw new DedicatedFileError(`${file}: [dedicated] ${field.key} is required`);
      out[key] = structuredClone(field.default);
      continue;
    }
    if (!Value.Check(field.schema, value)) throw new DedicatedFileError(`${file}: [dedicated] ${field.key}: expected ${describeSchema(field.schema)}, got ${showValue(value)}`);
    out[key] = value;
  }
  for (const key of Object.keys(root)) if (!known.has(key)) warnings.push(`${file}: unknown key dedicated.${key} (ignored)`);

  if (out.name === '') out.name = nameFromFile;
  if (out.name !== nameFromFile) throw new DedicatedFileError(`${file}: [dedicated] name "${String(out.name)}" differs from the file name "${nameFromFile}.toml"`);
  if (!Value.Check(DEDICATED_FIELDS.name.schema, out.name)) throw new DedicatedFileError(`${file}: the name must match ${DEDICATED_FIELDS.name.schema.pattern}`);
  const config = out as Dedicated;
  const problem = dedicatedProblem(config);
  if (problem) throw new DedicatedFileError(`${file}: ${problem}`);
  return { config, warnings };
}
