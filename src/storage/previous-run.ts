import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ConfigError } from '../config/load';

/**
 * Files a controller leaves in data/ once it has run: whichever of them is there says this
 * folder had a database before. A start looks for them before it writes any (the database is
 * created right after data/api-token, the others after it). The cluster certificate is not
 * one: an operator may put a keystore in place before the first start.
 */
const TRACES = ['state/services.json', 'api-token', 'auth/session.key', 'isolation-uids.json', 'state/service-credentials.json', 'cluster/nodes.json'];

/** What data/ holds of an earlier run, as paths relative to it (the database's own WAL, other databases, the files above). */
export function previousRunTraces(dataDir: string, dbFile: string): string[] {
  const found = TRACES.filter((path) => existsSync(join(dataDir, path)));
  if (existsSync(`${dbFile}-wal`)) found.unshift(`${basename(dbFile)}-wal`);
  return found;
}

/** Other databases in data/ (a `[database] name` changed since they were made). */
function otherDatabases(dataDir: string, dbFile: string): string[] {
  try {
    return readdirSync(dataDir).filter((name) => name.endsWith('.db') && join(dataDir, name) !== dbFile);
  } catch {
    return [];
  }
}

/**
 * Before anything is written at start: data/ must be a folder this process may use, and a
 * database that is missing or empty (0 bytes: what a crash or a bad copy leaves) is refused
 * when data/ shows it held one before. Starting on a fresh, empty database there would look
 * like a working controller that forgot every group assignment, permission, punishment and
 * session. A first start (nothing in data/) goes on and creates it.
 */
export function checkDatabasePresence(dataDir: string, dbFile: string): void {
  const problem = dataFolderProblem(dataDir) ?? databaseLossProblem(dataDir, dbFile);
  if (problem) throw new ConfigError(problem);
}

/** Why the database looks lost (missing or 0 bytes where data/ shows an earlier run), in one line; null when it does not. */
export function databaseLossProblem(dataDir: string, dbFile: string): string | null {
  let size: number;
  try {
    size = statSync(dbFile).size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return `${dbFile} cannot be looked at (${code}): give the user svc runs as access to ${dataDir}, then start again`;
    size = -1;
  }
  if (size > 0) return null;
  const traces = previousRunTraces(dataDir, dbFile);
  if (traces.length === 0) return null;
  const others = otherDatabases(dataDir, dbFile);
  const renamed = others.length > 0 ? `; data/ holds ${others.join(', ')}: if [database] name changed, set it back` : '';
  const state = size === 0 ? 'is empty (0 bytes)' : 'is missing';
  return (
    `${dbFile} ${state}, but ${dataDir} holds what an earlier run left (${traces.slice(0, 3).join(', ')}): the controller does not start on a new, empty database${renamed}. ` +
    `Restore the database from a backup (README, "When things go wrong"); to start over with no data on purpose, move ${dataDir} away`
  );
}

/**
 * data/ must be a folder this process can list, enter and write: a folder it may not use
 * (mode 000, another owner) is named as such, not through whichever file happens to be
 * written first. Null when it is usable (or absent: it is created).
 */
export function dataFolderProblem(dataDir: string): string | null {
  try {
    accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT') return null;
    const user = typeof process.getuid === 'function' ? ` (uid ${process.getuid()})` : '';
    let mode = '';
    try {
      mode = `, mode ${(statSync(dataDir).mode & 0o777).toString(8).padStart(3, '0')}`;
    } catch {
      /* not even that */
    }
    return `the data folder ${dataDir} cannot be used by the controller${user} (${code}${mode}): it must be readable, writable and searchable by the user svc runs as, e.g. chown -R <that user> ${dataDir} && chmod 700 ${dataDir}, then start again`;
  }
}
