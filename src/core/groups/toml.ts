import { Value } from '@sinclair/typebox/value';
import { lookup, readFieldTable, renderFieldTable } from '../../config/unit/field-table';
import { asStatic } from '../../config/unit/sections';
import { crossFieldProblem, GROUP_FIELDS, GroupSchema, normalizeGroup, type Group } from './model';

/** A group file that cannot be used; the message names the file and the key. */
export class GroupFileError extends Error {
  override name = 'GroupFileError';
}

/**
 * The nested form on disk: `[group]` scalars, then `[group.resources]`, `[group.scaling]`, …
 * in field-table order. Rendering is deterministic, so the same group always gives the same
 * bytes.
 */
export function renderGroupToml(group: Group): string {
  return renderFieldTable(`Group ${group.name}. Managed by svc (/api/groups); hand edits load on reload.`, 'group', GROUP_FIELDS, group);
}

/**
 * Reads a group file (hand-edited or ours) through the config-file unit's field-table reader.
 * Missing keys take their defaults; unknown keys are warnings; a bad value or a broken file
 * throws GroupFileError naming file and key. The name comes from `[group] name`, else from the
 * file name; both present must agree.
 */
export function parseGroupToml(text: string, file: string, nameFromFile: string): { group: Group; warnings: string[] } {
  const { values: out, table, warnings } = readFieldTable(text, file, 'group', GROUP_FIELDS, (message) => new GroupFileError(message));
  if (out.name === '') out.name = nameFromFile;
  if (out.name !== nameFromFile) throw new GroupFileError(`${file}: [group] name "${String(out.name)}" differs from the file name "${nameFromFile}.toml"`);
  if (!Value.Check(GroupSchema.properties.name, out.name)) throw new GroupFileError(`${file}: the group name must match ${GroupSchema.properties.name.pattern}`);
  for (const required of ['software', 'version'] as const) {
    if (lookup(table, GROUP_FIELDS[required].path) === undefined) throw new GroupFileError(`${file}: [group] ${required} is required`);
  }
  // Every field passed its own schema and the name is checked: the whole fits GroupSchema.
  const group = normalizeGroup(asStatic(GroupSchema, out));
  const problem = crossFieldProblem(group);
  if (problem) throw new GroupFileError(`${file}: ${problem}`);
  return { group, warnings };
}
