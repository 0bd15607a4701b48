import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { DedicatedStore } from '../dedicated/store';
import { crossFieldProblem, groupDefaults, type Group, type GroupBody } from '../groups/model';
import type { GroupStore } from '../groups/store';
import { templateDir } from '../templates/template-name';
import { ApiError } from '../../errors';
import type { Runtime } from './runtime';

/** The group an import creates: its name and the scaling the caller chose (the rest from the pack and the defaults). */
export interface GroupTarget {
  groupName: string;
  type?: Group['type'];
  memory?: string;
  minInstances?: number;
  maxInstances?: number;
}

export interface GroupInstallDeps {
  groups: GroupStore;
  dedicated: DedicatedStore;
  /** Writes the group and announces it (GroupChanges.create, with the importer as actor). */
  create(body: GroupBody): Group;
  templatesRoot: string;
}

/** Modded servers rarely boot in the 1G a plain group defaults to. */
export const MODPACK_MEMORY = '4G';

/**
 * Whether an import may create this group: the name free among groups and dedicated services
 * (case-insensitively, as file systems compare), no folder `templates/<name>` already there
 * (never overwritten), and the scaling consistent. Checked before any work, and again at the end.
 */
export function checkGroupTarget(target: GroupTarget, deps: Omit<GroupInstallDeps, 'create'>): void {
  const lower = target.groupName.toLowerCase();
  // The store's own check (broken files, a file not yet loaded) runs again when the group is created.
  const group = deps.groups.list().find((g) => g.name.toLowerCase() === lower);
  if (group) throw new ApiError('GROUP_ALREADY_EXISTS', `group "${group.name}" already exists`);
  const dedicated = deps.dedicated.list().find((d) => d.name.toLowerCase() === lower);
  if (dedicated) throw new ApiError('GROUP_ALREADY_EXISTS', `a dedicated service is named ${dedicated.name}; pick another group name`);
  const dir = templateDir(deps.templatesRoot, target.groupName);
  if (existsSync(dir)) throw new ApiError('VALIDATION_FAILED', `the template folder ${dir} already exists; remove it or pick another groupName (an import never writes into an existing template)`);
  const problem = crossFieldProblem({ ...groupDefaults(), ...definedOf(target), name: target.groupName, software: 'FABRIC', version: '1.0' } as Group);
  if (problem) throw new ApiError('VALIDATION_FAILED', `body ${problem}`);
}

/**
 * Makes the assembled `stage` the group's template and then creates the group, in that order:
 * a client polling /api/groups sees the group only once its template is complete. `stage`
 * must be on the templates' file system (the move is a rename). On failure nothing is left:
 * no template folder, no group file.
 */
export async function installGroup(stage: string, target: GroupTarget, runtime: Runtime, deps: GroupInstallDeps): Promise<Group> {
  checkGroupTarget(target, deps);
  const dir = templateDir(deps.templatesRoot, target.groupName);
  const body: GroupBody = {
    ...definedOf({ type: target.type, minInstances: target.minInstances, maxInstances: target.maxInstances }),
    name: target.groupName,
    software: runtime.software,
    version: runtime.version,
    modloaderVersion: runtime.modloaderVersion,
    memory: target.memory ?? MODPACK_MEMORY,
  };
  await rename(stage, dir);
  try {
    return deps.create(body);
  } catch (error) {
    // A group that was written keeps its template (only announcing it failed, e.g. its audit row).
    if (!deps.groups.get(body.name)) await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

function definedOf<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
