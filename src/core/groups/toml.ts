import { Value } from '@sinclair/typebox/value';
import { parseTomlOr } from '../../config/unit/toml-syntax';
import { tomlString } from '../../config/patch';
import { describeSchema, showValue } from '../../describe-schema';
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
  const tables = new Map<string, string[]>([['group', []]]);
  for (const [key, field] of Object.entries(GROUP_FIELDS)) {
    const table = ['group', ...field.path.slice(0, -1)].join('.');
    const lines = tables.get(table) ?? [];
    lines.push(`${field.path[field.path.length - 1]} = ${renderValue(group[key as keyof Group])}`);
    tables.set(table, lines);
  }
  const out = [`# Group ${group.name}. Managed by svc (/api/groups); hand edits load on reload.`];
  for (const [table, lines] of tables) out.push('', `[${table}]`, ...lines);
  return `${out.join('\n')}\n`;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (Array.isArray(value)) return `[${value.map(renderValue).join(', ')}]`;
  return String(value);
}

/**
 * Reads a group file (hand-edited or ours). Missing keys take their defaults; unknown keys
 * are warnings; a bad value or a broken file throws GroupFileError naming file and key.
 * The name comes from `[group] name`, else from the file name; both present must agree.
 */
export function parseGroupToml(text: string, file: string, nameFromFile: string): { group: Group; warnings: string[] } {
  const raw = parseTomlOr(text, (error) => new GroupFileError(error.inFile(file)));
  const warnings: string[] = [];
  for (const key of Object.keys(raw)) if (key !== 'group') warnings.push(`${file}: unknown top-level key ${key} (ignored)`);
  const root = raw.group;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) throw new GroupFileError(`${file}: the [group] table is missing`);

  const out: Record<string, unknown> = {};
  const known = new Set<string>();
  for (const [key, field] of Object.entries(GROUP_FIELDS)) {
    const tablePath = field.path.slice(0, -1);
    known.add(['group', ...tablePath].join('.'));
    known.add(['group', ...field.path].join('.'));
    const value = lookup(root as Record<string, unknown>, field.path);
    if (value === undefined) {
      out[key] = structuredClone(field.default);
      continue;
    }
    if (!Value.Check(field.schema, value)) {
      const table = ['group', ...tablePath].join('.');
      throw new GroupFileError(`${file}: [${table}] ${field.path[field.path.length - 1]}: expected ${describeSchema(field.schema)}, got ${showValue(value)}`);
    }
    out[key] = value;
  }
  collectUnknown(root as Record<string, unknown>, ['group'], known, file, warnings);

  if (out.name === '') out.name = nameFromFile;
  if (out.name !== nameFromFile) throw new GroupFileError(`${file}: [group] name "${String(out.name)}" differs from the file name "${nameFromFile}.toml"`);
  if (!Value.Check(GroupSchema.properties.name, out.name)) throw new GroupFileError(`${file}: the group name must match ${GroupSchema.properties.name.pattern}`);
  for (const required of ['software', 'version'] as const) {
    if (lookup(root as Record<string, unknown>, GROUP_FIELDS[required].path) === undefined) throw new GroupFileError(`${file}: [group] ${required} is required`);
  }
  const group = normalizeGroup(out as Group);
  const problem = crossFieldProblem(group);
  if (problem) throw new GroupFileError(`${file}: ${problem}`);
  return { group, warnings };
}

function lookup(root: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function collectUnknown(table: Record<string, unknown>, path: string[], known: Set<string>, file: string, warnings: string[]): void {
  for (const [key, value] of Object.entries(table)) {
    const full = [...path, key].join('.');
    if (!known.has(full)) {
      warnings.push(`${file}: unknown key ${full} (ignored)`);
      continue;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) collectUnknown(value as Record<string, unknown>, [...path, key], known, file, warnings);
  }
}
