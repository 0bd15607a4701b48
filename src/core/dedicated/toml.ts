import { Value } from '@sinclair/typebox/value';
import { readFieldTable, renderFieldTable, type TableField } from '../../config/unit/field-table';
import { asStatic } from '../../config/unit/sections';
import { DEDICATED_FIELDS, DEDICATED_REQUIRED, DedicatedSchema, dedicatedProblem, type Dedicated } from './model';

/** A dedicated config file that cannot be used; the message names the file and the key. */
export class DedicatedFileError extends Error {
  override name = 'DedicatedFileError';
}

/** The field table as the file holds it: every field a key directly under [dedicated]. */
const FILE_FIELDS: Record<string, TableField> = Object.fromEntries(Object.entries(DEDICATED_FIELDS).map(([key, field]) => [key, { path: [field.key], schema: field.schema, default: field.default }]));

/** The name may be left out of the file (the file name says it); the other required fields may not. */
const REQUIRED_IN_FILE = DEDICATED_REQUIRED.filter((key) => key !== 'name');

/** `[dedicated]` with every key in field-table order: the same config always gives the same bytes. */
export function renderDedicatedToml(config: Dedicated): string {
  return renderFieldTable(`Dedicated service ${config.name}. Managed by svc (/api/dedicated); hand edits load at the next controller start.`, 'dedicated', FILE_FIELDS, config);
}

/**
 * Reads a dedicated config file (hand-edited or ours) through the config-file unit's
 * field-table reader. Missing optional keys take their defaults; unknown keys are warnings; a
 * bad value, a missing port/software/version or a broken file throws DedicatedFileError naming
 * file and key. The name comes from `[dedicated] name`, else from the file name; both present
 * must agree.
 */
export function parseDedicatedToml(text: string, file: string, nameFromFile: string): { config: Dedicated; warnings: string[] } {
  const { values: out, warnings } = readFieldTable(text, file, 'dedicated', FILE_FIELDS, (message) => new DedicatedFileError(message), REQUIRED_IN_FILE);
  if (out.name === '') out.name = nameFromFile;
  if (out.name !== nameFromFile) throw new DedicatedFileError(`${file}: [dedicated] name "${String(out.name)}" differs from the file name "${nameFromFile}.toml"`);
  if (!Value.Check(DEDICATED_FIELDS.name.schema, out.name)) throw new DedicatedFileError(`${file}: the name must match ${DEDICATED_FIELDS.name.schema.pattern}`);
  // Every field passed its own schema and the name is checked: the whole fits DedicatedSchema.
  const config = asStatic(DedicatedSchema, out);
  const problem = dedicatedProblem(config);
  if (problem) throw new DedicatedFileError(`${file}: ${problem}`);
  return { config, warnings };
}
