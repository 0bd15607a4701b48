import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ApiError } from '../../errors';
import { LOCAL_NODE } from '../../core/services/registry';
import type { ModuleKernel } from '../module';
import type { BackupKernel } from './uses';

/** What finding a target's own folder reads of the kernel. */
type PlacesKernel = ModuleKernel<'dedicated' | 'dir' | 'paths' | 'services' | 'stateSync'>;
import type { BackupConfig } from './config';
import { TARGET_TYPES, type TargetType } from './model';
import { snapshotDatabase } from '../../storage/snapshot';

/** Target words as the API, the console and schedules say them. */
const WORDS: Record<string, TargetType | 'all'> = {
  all: 'all',
  services: 'SERVICE',
  service: 'SERVICE',
  dedicated: 'DEDICATED',
  templates: 'TEMPLATES',
  config: 'CONFIG',
  controller_config: 'CONFIG',
  database: 'DATABASE',
  state: 'STATE_SYNC',
  state_sync: 'STATE_SYNC',
};

const SCOPE_KEY: Record<TargetType, keyof BackupConfig['scope']> = {
  SERVICE: 'services',
  DEDICATED: 'dedicated',
  TEMPLATES: 'templates',
  CONFIG: 'controllerConfig',
  DATABASE: 'database',
  STATE_SYNC: 'stateSync',
};

/**
 * The types a list of target words names: `all` (or none) is every type the config's scope
 * enables; an unknown word is refused (the reference dropped it silently and ran everything).
 */
export function typesOf(words: readonly string[], scope: BackupConfig['scope']): TargetType[] {
  const inScope = TARGET_TYPES.filter((t) => scope[SCOPE_KEY[t]]);
  if (words.length === 0) return inScope;
  const types = new Set<TargetType>();
  for (const word of words) {
    const type = WORDS[word.trim().toLowerCase()];
    if (type === undefined) throw new ApiError('VALIDATION_FAILED', `unknown backup target "${word}"; use ${Object.keys(WORDS).join(', ')}`);
    if (type === 'all') inScope.forEach((t) => types.add(t));
    else types.add(type);
  }
  return TARGET_TYPES.filter((t) => types.has(t));
}

/** One archive to make: a tree, or why there is none (a PARTIAL record). */
export interface BackupUnit {
  targetType: TargetType;
  targetName: string;
  /** The directory archived; undefined with `skip` set, or for the database (made by `prepare`). */
  root?: string;
  /** Why nothing can be archived here: the record becomes PARTIAL with this reason. */
  skip?: string;
  /** A local running backend whose world writes are paused around the archive. */
  quiesce?: string;
  /** Produces the tree to archive (a consistent database copy) and removes it afterwards. */
  prepare?: () => Promise<{ root: string; cleanup: () => void }>;
  /** The node the target lives on, when not this machine (recorded with the skip). */
  nodeId?: string;
  /** Paths under the root left out besides the configured excludes (the supervisor's own files). */
  excludes?: readonly string[];
}

/** The supervisor's bookkeeping in a service folder (pid, console log, stdin FIFO): not the service's state, and wrong to restore. */
const SUPERVISOR_FILES = ['.svc/**', '.svc'];

/**
 * Never in a config archive: the dashboard-login key (TOTP secrets are sealed with it), wherever
 * under config/ an older svc or an operator left it. It lives under data/auth/ now.
 */
const CONFIG_SECRET_FILES = ['session.key', 'modules/auth/session.key'];

/** The auth module's key at its default place (data/auth/session.key); a database backup carries it only when asked to. */
export const authKeyFile = (kernel: ModuleKernel<'paths'>): string => join(kernel.paths.data, 'auth', 'session.key');

const dirOrSkip = (unit: Omit<BackupUnit, 'root' | 'skip'>, dir: string): BackupUnit =>
  existsSync(dir) && statSync(dir).isDirectory() ? { ...unit, root: dir } : { ...unit, skip: `${dir} does not exist on the controller` };

/**
 * What a run of these types archives. `single` names one service or dedicated service: then
 * only that one is backed up (the reference still archived templates, config and the database).
 */
export function resolveUnits(kernel: BackupKernel, types: readonly TargetType[], single: string | undefined, stagingDir: string, options: { includeAuthKey?: boolean } = {}): BackupUnit[] {
  const units: BackupUnit[] = [];
  const wanted = (name: string) => single === undefined || name.toLowerCase() === single.toLowerCase();
  for (const type of types) {
    switch (type) {
      case 'SERVICE':
        for (const s of kernel.services.all().filter((s) => !s.isDedicated && wanted(s.name))) {
          const unit = { targetType: type, targetName: s.name };
          if (s.nodeId !== LOCAL_NODE) units.push({ ...unit, nodeId: s.nodeId, skip: `runs on node ${s.nodeId}; its files are on that machine` });
          else units.push({ ...dirOrSkip(unit, s.workDir), excludes: SUPERVISOR_FILES, ...(s.state === 'READY' && !s.isProxy ? { quiesce: s.name } : {}) });
        }
        break;
      case 'DEDICATED':
        for (const name of kernel.dedicated.names().filter(wanted)) {
          const live = kernel.services.get(name);
          const unit = { targetType: type, targetName: name };
          if (live && live.nodeId !== LOCAL_NODE) units.push({ ...unit, nodeId: live.nodeId, skip: `runs on node ${live.nodeId}; its files are on that machine` });
          else units.push({ ...dirOrSkip(unit, kernel.dedicated.directoryOf(name)), excludes: SUPERVISOR_FILES, ...(live?.state === 'READY' && !live.isProxy ? { quiesce: name } : {}) });
        }
        break;
      case 'TEMPLATES':
        if (single === undefined) units.push(dirOrSkip({ targetType: type, targetName: 'all' }, kernel.paths.templates));
        break;
      case 'CONFIG':
        if (single === undefined) units.push({ ...dirOrSkip({ targetType: type, targetName: 'all' }, kernel.paths.config), excludes: CONFIG_SECRET_FILES });
        break;
      case 'STATE_SYNC':
        if (single === undefined) units.push(dirOrSkip({ targetType: type, targetName: 'all' }, kernel.stateSync.root));
        break;
      case 'DATABASE':
        if (single === undefined) units.push({ targetType: type, targetName: 'all', prepare: () => databaseSnapshot(kernel, stagingDir, options.includeAuthKey === true) });
        break;
    }
  }
  if (single !== undefined && units.length === 0) throw new ApiError('SERVICE_NOT_FOUND', `no service or dedicated service named "${single}" among the targets asked for`);
  return units;
}

/**
 * A consistent copy of the live database, taken by SQLite itself (`VACUUM INTO` reads one
 * snapshot while the controller goes on writing, on a connection of its own off the event
 * loop), never a copy of the file under a writer.
 */
async function databaseSnapshot(kernel: ModuleKernel<'config' | 'db' | 'paths'>, stagingDir: string, includeAuthKey: boolean): Promise<{ root: string; cleanup: () => void }> {
  const root = join(stagingDir, `_staging-db-${crypto.randomUUID()}`);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  try {
    await snapshotDatabase(kernel.db, kernel.db.filename, join(root, `${kernel.config.database.name}.db`));
    // Asked for (includeAuthKey): the key beside the secrets it opens, so a restore keeps TOTP working.
    const key = authKeyFile(kernel);
    if (includeAuthKey && existsSync(key)) {
      mkdirSync(join(root, 'auth'), { mode: 0o700 });
      copyFileSync(key, join(root, 'auth', 'session.key'));
    }
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Where a backup of this target goes back to when the restore names no path. */
export function defaultRestorePath(kernel: PlacesKernel, type: TargetType, name: string): string {
  switch (type) {
    case 'SERVICE':
      return kernel.services.get(name)?.workDir ?? join(kernel.paths.services, name);
    case 'DEDICATED':
      return kernel.dedicated.get(name) ? kernel.dedicated.directoryOf(name) : join(kernel.paths.dedicated, name);
    case 'TEMPLATES':
      return kernel.paths.templates;
    case 'CONFIG':
      return kernel.paths.config;
    case 'STATE_SYNC':
      return kernel.stateSync.root;
    case 'DATABASE':
      // Never over the live database: the operator swaps it in while the controller is stopped.
      return join(kernel.dir, 'restore', 'database');
  }
}

/**
 * Whether a backup's archive holds credentials, so that reading it (download, manifest) needs
 * `svc.dashboard.backups.manage` and not only `.view`: the config (module configs, the old
 * place of session.key) and the database (session hashes, sealed TOTP secrets, API token
 * records) always; any other tree when it contains the controller's secrets (data/, config/,
 * svc.toml, the cluster key), which a template or services folder set to the controller's own
 * folder would.
 */
export function holdsCredentials(kernel: PlacesKernel & ModuleKernel<'apiToken' | 'config' | 'configPath'>, type: TargetType, name: string): boolean {
  if (type === 'CONFIG' || type === 'DATABASE') return true;
  const root = resolve(defaultRestorePath(kernel, type, name));
  const secrets = [kernel.paths.data, kernel.paths.config, kernel.configPath, resolve(kernel.dir, kernel.config.cluster.keystore_path), ...(kernel.apiToken.file ? [kernel.apiToken.file] : [])];
  return secrets.some((place) => {
    const inside = relative(root, resolve(place));
    return inside === '' || (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside));
  });
}

/** The folders a restore may write into: the controller's own trees, never data/ (the live database). */
export function restoreRoots(kernel: ModuleKernel<'dir' | 'paths' | 'stateSync'>): string[] {
  return [kernel.paths.services, kernel.paths.dedicated, kernel.paths.templates, kernel.paths.config, kernel.stateSync.root, join(kernel.dir, 'restore')];
}
