import { Database } from 'bun:sqlite';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { emptyConfigWarning } from '../../config/load';
import { describeOpenFailure, quickCheck } from '../../storage/db';
import { quickCheckFile } from '../../storage/check-worker';
import { databaseLossProblem } from '../../storage/previous-run';
import { fail, info, ok, warn, type Finding } from './model';

const RESTORE = 'stop the controller, keep a copy of the file, and restore the database from a backup: README, "When things go wrong"; the controller does not start on a damaged database';
/** A check reads every page: the running controller's report reuses one this recent. */
const CHECK_REUSE_MS = 60_000;

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function sizes(file: string): string {
  const size = (path: string) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  const wal = size(`${file}-wal`);
  return `${mib(size(file))}${wal > 0 ? `, WAL ${mib(wal)}` : ''}`;
}

function checked(file: string, problems: readonly string[]): Finding[] {
  if (problems.length === 0) return [ok(`${file} passes quick_check (${sizes(file)})`)];
  return [fail(`${file} fails quick_check: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`, RESTORE)];
}

let lastCheck: { file: string; at: number; result: Promise<string[]> } | undefined;

/**
 * The running controller's database: it answers, and SQLite's quick_check finds nothing
 * wrong (run off the event loop on a read-only connection of its own, at most once a minute).
 */
export async function liveDatabaseFindings(db: Database, now: () => number = () => performance.now()): Promise<Finding[]> {
  const row = db.query('SELECT 1 AS one').get() as { one: number } | null;
  if (row?.one !== 1) return [fail('the database did not answer SELECT 1', 'check the data/ folder and the log')];
  const file = db.filename;
  if (!file || file === ':memory:') return [ok('the database answers')];
  if (!lastCheck || lastCheck.file !== file || now() - lastCheck.at > CHECK_REUSE_MS) {
    lastCheck = { file, at: now(), result: quickCheckFile(file) };
    lastCheck.result.catch(() => undefined);
  }
  try {
    return checked(file, await lastCheck.result);
  } catch (error) {
    lastCheck = undefined;
    return [fail(describeOpenFailure(file, error), RESTORE)];
  }
}

/**
 * `svc doctor`'s view of the database file (read only; nothing is created): lost since the
 * last run (missing or empty where data/ shows one), read-only for this user, unreadable, or
 * failing quick_check — each what the controller would refuse to start on.
 */
export function offlineDatabaseFindings(file: string, dataDir: string): Finding[] {
  const lost = databaseLossProblem(dataDir, file);
  if (lost) return [fail(lost, 'the controller does not start until the database is back: README, "When things go wrong", says how to restore it')];
  if (!existsSync(file) || statSync(file).size === 0) return [info(`${file} does not exist yet`, 'it is created on the first start')];
  const findings: Finding[] = [];
  try {
    accessSync(file, constants.W_OK);
    accessSync(dirname(file), constants.W_OK);
  } catch (error) {
    findings.push(fail(`${file} (or its folder) is read-only for this user (${(error as NodeJS.ErrnoException).code}): the controller, run as this user, refuses to start on it`, 'make the database, its -wal and -shm files and data/ writable by the user svc runs as'));
  }
  let db: Database | undefined;
  try {
    db = new Database(file, { readonly: true });
    return [...findings, ...checked(file, quickCheck(db))];
  } catch (error) {
    return [...findings, fail(describeOpenFailure(file, error), RESTORE)];
  } finally {
    db?.close();
  }
}

/** svc.toml with nothing in it: valid, all defaults, and far more often truncated than meant. */
export function configFileFindings(configPath: string): Finding[] {
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch {
    return [];
  }
  const empty = emptyConfigWarning(text, configPath);
  return empty ? [warn(empty, 'restore svc.toml from a backup, or delete it and restart to have the commented default written')] : [];
}
