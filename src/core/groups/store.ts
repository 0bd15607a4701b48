import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../errors';
import { writeFileAtomic } from '../../config/write';
import { bodyValues, crossFieldProblem, GROUP_FIELDS, groupDefaults, normalizeGroup, type Group, type GroupBody, type GroupPatch } from './model';
import { GroupFileError, parseGroupToml, renderGroupToml } from './toml';

export interface BrokenGroupFile {
  file: string;
  message: string;
}

export interface GroupLoadReport {
  loaded: number;
  broken: BrokenGroupFile[];
  warnings: string[];
}

/**
 * The groups, one TOML file each in `config/groups/`. Files are the truth: every change is
 * written atomically before memory changes, hand-edited files load on `load()`, and a file
 * that cannot be read is reported by name and left untouched, never overwritten.
 */
export class GroupStore {
  private groups = new Map<string, Group>();
  private broken = new Map<string, BrokenGroupFile>();

  constructor(readonly dir: string) {}

  /** Re-reads every group file; what fails to load is reported, not fatal. */
  load(): GroupLoadReport {
    mkdirSync(this.dir, { recursive: true });
    const groups = new Map<string, Group>();
    const broken = new Map<string, BrokenGroupFile>();
    const warnings: string[] = [];
    for (const entry of readdirSync(this.dir).sort()) {
      if (!entry.endsWith('.toml') || entry.startsWith('.')) continue;
      const name = entry.slice(0, -'.toml'.length);
      const file = join(this.dir, entry);
      try {
        const parsed = parseGroupToml(readFileSync(file, 'utf8'), file, name);
        groups.set(name, parsed.group);
        warnings.push(...parsed.warnings);
      } catch (error) {
        const message = error instanceof GroupFileError ? error.message : `${file}: ${(error as Error).message}`;
        broken.set(name.toLowerCase(), { file, message });
      }
    }
    this.groups = groups;
    this.broken = broken;
    return { loaded: groups.size, broken: [...broken.values()], warnings };
  }

  list(): Group[] {
    return [...this.groups.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): Group | undefined {
    return this.groups.get(name);
  }

  require(name: string): Group {
    const group = this.groups.get(name);
    if (!group) throw new ApiError('GROUP_NOT_FOUND', `group "${name}" does not exist`);
    return group;
  }

  brokenFiles(): BrokenGroupFile[] {
    return [...this.broken.values()];
  }

  create(body: GroupBody): Group {
    const taken = this.nameTakenBy(body.name);
    if (taken) throw new ApiError('GROUP_ALREADY_EXISTS', taken);
    const group = complete({ ...groupDefaults(), ...bodyValues(body) });
    this.write(group);
    return group;
  }

  /**
   * A partial update: what the body carries replaces, everything else keeps its current value;
   * the cross-field rules are checked on the merged result. The name never changes.
   */
  update(name: string, body: GroupPatch): Group {
    const current = this.require(name);
    if (body.name !== undefined && body.name !== name) throw new ApiError('VALIDATION_FAILED', `body "name" is "${body.name}" but a group's name cannot change (it is "${name}")`);
    const group = complete({ ...structuredClone(current), ...bodyValues(body) });
    this.write(group);
    return group;
  }

  delete(name: string): void {
    this.require(name);
    rmSync(this.fileOf(name), { force: true });
    this.groups.delete(name);
  }

  private write(group: Group): void {
    writeFileAtomic(this.fileOf(group.name), renderGroupToml(group));
    this.groups.set(group.name, group);
  }

  private fileOf(name: string): string {
    return join(this.dir, `${name}.toml`);
  }

  /** Why a new group may not take this name; names differing only in case collide (file systems). */
  private nameTakenBy(name: string): string | null {
    const lower = name.toLowerCase();
    for (const existing of this.groups.keys()) {
      if (existing.toLowerCase() === lower) return existing === name ? `group "${name}" already exists` : `group "${existing}" already exists (names differ only in case)`;
    }
    const broken = this.broken.get(lower);
    if (broken) return `${broken.file} exists but cannot be loaded (${broken.message}); fix or remove it first`;
    if (existsSync(this.fileOf(name))) return `${this.fileOf(name)} already exists; run POST /api/reload to load it`;
    return null;
  }
}

/** Merged values in field-table order, nothing the table does not know, cross-field rules checked. */
function complete(merged: Partial<Group>): Group {
  const values: Record<string, unknown> = merged;
  const group = normalizeGroup(Object.fromEntries(Object.keys(GROUP_FIELDS).map((key) => [key, values[key]])) as Group);
  const problem = crossFieldProblem(group);
  if (problem) throw new ApiError('VALIDATION_FAILED', `body ${problem}`);
  return group;
}
