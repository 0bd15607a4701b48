import { existsSync, lstatSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dedicated, DedicatedBody, DedicatedPatch } from '../dedicated/model';
import type { DedicatedStore } from '../dedicated/store';
import type { GroupStore } from '../groups/store';
import { RefusedEntry, split, TenantTree } from '../tenancy/fs';
import { walkTemplate } from '../templates/walk';
import { ApiError } from '../../errors';
import { MODPACK_MEMORY } from './install-group';
import type { Skipped } from './mrpack';
import type { Runtime } from './runtime';

/** A new dedicated service made from a pack. */
export interface DedicatedTarget {
  name: string;
  port: number;
  memory?: string;
  proxyEnabled?: boolean;
}

export interface DedicatedInstallDeps {
  dedicated: DedicatedStore;
  groups: GroupStore;
  /** Writes the config and announces it (DedicatedChanges.create, with the importer as actor). */
  create(body: DedicatedBody): Dedicated;
  /** Writes a changed config (DedicatedChanges.update). */
  update(name: string, patch: DedicatedPatch): Dedicated;
}

/** What the checks before an import read: the stores only. */
export type DedicatedTargetDeps = Pick<DedicatedInstallDeps, 'dedicated' | 'groups'>;

/**
 * Whether an import may create this dedicated service: the name free (dedicated services and
 * groups, case-insensitively), the port not another dedicated config's, and no directory of
 * that name yet (an import never writes into a world it did not make). The store checks the
 * rest again when the config is written.
 */
export function checkDedicatedTarget(target: DedicatedTarget, deps: DedicatedTargetDeps): void {
  const lower = target.name.toLowerCase();
  const existing = deps.dedicated.list().find((d) => d.name.toLowerCase() === lower);
  if (existing) throw new ApiError('DEDICATED_ALREADY_EXISTS', `dedicated service "${existing.name}" already exists; import into it with POST /api/dedicated/${existing.name}/modpack/import or /modpack/upload`);
  const group = deps.groups.list().find((g) => g.name.toLowerCase() === lower);
  if (group) throw new ApiError('VALIDATION_FAILED', `"${target.name}" is the name of group "${group.name}"; a dedicated service needs a name of its own`);
  const onPort = deps.dedicated.list().find((d) => d.port === target.port);
  if (onPort) throw new ApiError('DEDICATED_PORT_IN_USE', `port ${target.port} is already the port of dedicated service "${onPort.name}"`);
  const dir = deps.dedicated.directoryOf(target.name);
  if (existsSync(dir)) throw new ApiError('VALIDATION_FAILED', `${dir} already exists; an import makes a new directory (import into an existing service with POST /api/dedicated/{name}/modpack/upload)`);
}

/**
 * Moves the assembled `stage` (on the dedicated root's file system) to the service's
 * directory, then writes and announces its config (which provisions eula and the port). On a
 * failure to write, neither is left; once written, the service stays whatever follows.
 */
export async function installNewDedicated(stage: string, target: DedicatedTarget, runtime: Runtime, deps: DedicatedInstallDeps): Promise<Dedicated> {
  checkDedicatedTarget(target, deps);
  const dir = deps.dedicated.directoryOf(target.name);
  await rename(stage, dir);
  const before = deps.dedicated.get(target.name);
  try {
    return deps.create({
      name: target.name,
      port: target.port,
      software: runtime.software,
      version: runtime.version,
      memory: target.memory ?? MODPACK_MEMORY,
      ...(target.proxyEnabled === undefined ? {} : { proxyEnabled: target.proxyEnabled }),
    });
  } catch (error) {
    // A config this call wrote keeps its directory (only announcing it failed, e.g. its audit row).
    const written = deps.dedicated.get(target.name);
    if (!written || written === before) await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Lays an assembled `stage` over an existing dedicated directory: each file moved into place
 * (replacing a file of the same path; everything else, worlds included, stays), `mods/`
 * emptied first when `replaceMods` (a pack's mods must match each other). The directory is the
 * server's (see tenancy/fs): a file whose folder is a link someone placed there
 * (inside or out) is left alone and reported, and nothing is created through it; a `mods` link
 * is removed, not what it points to. Files and folders made in a directory of another user
 * become that user's. The config takes the pack's software and version. The caller made sure
 * the service is stopped.
 */
export async function installIntoDedicated(stage: string, name: string, runtime: Runtime, replaceMods: boolean, deps: DedicatedInstallDeps): Promise<{ config: Dedicated; moved: number; skipped: Skipped[]; configUpdated: boolean }> {
  const config = deps.dedicated.require(name);
  const dir = deps.dedicated.directoryOf(name);
  const tree = existsSync(dir) ? TenantTree.open(dir) : null;
  if (!tree) throw new ApiError('DEDICATED_DIRECTORY_NOT_FOUND', `${dir} does not exist`);
  const skipped: Skipped[] = [];
  let moved = 0;
  try {
    const entries = walkTemplate(stage);
    if (replaceMods && entries.some((e) => e.rel.startsWith('mods/') && e.kind === 'file')) tree.removeAll('mods');
    for (const entry of entries) {
      if (entry.kind !== 'file') continue;
      const { dir: folderRel, name: fileName } = split(entry.rel);
      try {
        await tree.withFolderAsync(folderRel, 'create', async (folder) => {
          const dest = `${folder.base}/${fileName}`;
          // A rename replaces a file (or a link, not what it points at); a folder in the way is kept.
          if (isFolder(dest)) {
            skipped.push({ path: entry.rel, reason: 'a folder of that name is in the way' });
            return;
          }
          await rename(join(stage, ...entry.rel.split('/')), dest);
          tree.adoptFile(folder, fileName);
          moved++;
        });
      } catch (error) {
        if (!(error instanceof RefusedEntry)) throw error;
        skipped.push({ path: entry.rel, reason: `${error.message}: nothing is written through it` });
      }
    }
  } finally {
    tree.close();
  }
  const changed = config.software !== runtime.software || config.version !== runtime.version;
  const updated = changed ? deps.update(name, { software: runtime.software, version: runtime.version }) : config;
  return { config: updated, moved, skipped, configUpdated: changed };
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
