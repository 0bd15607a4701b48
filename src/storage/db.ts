import { Database } from 'bun:sqlite';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../config/load';

/** Opens (creating when absent) the controller database with the pragmas every part relies on. */
export function openDatabase(file: string): Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { create: true, strict: true });
  db.run('PRAGMA journal_mode = WAL');
  db.run('PRAGMA synchronous = NORMAL');
  db.run('PRAGMA foreign_keys = ON');
  db.run('PRAGMA busy_timeout = 5000');
  return db;
}

/** Where README explains restoring the database; every refusal below points there. */
const RESTORE_HINT = 'README, "When things go wrong", says how to restore it from a backup';

/**
 * The controller's database, opened for the start: it must open, be writable by this process
 * and pass SQLite's `quick_check` (every page and index structure read once; a second or two
 * per GiB). Anything else stops the start with a ConfigError (exit 2, one line) naming the file
 * and what to do; nothing is repaired, replaced or written to a database found damaged.
 */
export function openCheckedDatabase(file: string): Database {
  // The check reads through a connection of its own that cannot write: a damaged file is left
  // byte for byte as it was found (a writer would checkpoint its WAL into it on close).
  if (sizeOf(file) > 0) checkExisting(file);
  let db: Database | undefined;
  try {
    db = openDatabase(file);
    probeWrite(db);
    return db;
  } catch (error) {
    closeQuietly(db);
    throw new ConfigError(describeOpenFailure(file, error));
  }
}

function checkExisting(file: string): void {
  // A read-only connection to a WAL database makes its -wal and -shm files when they are not
  // there and cannot remove them: the check takes away what it made (empty, or the index).
  const made = [`${file}-wal`, `${file}-shm`].filter((path) => sizeOf(path) < 0);
  let db: Database | undefined;
  let problems: string[];
  try {
    db = new Database(file, { readonly: true, strict: true });
    problems = quickCheck(db);
  } catch (error) {
    throw new ConfigError(describeOpenFailure(file, error));
  } finally {
    closeQuietly(db);
    for (const path of made) if (path.endsWith('-shm') || sizeOf(path) === 0) rmSync(path, { force: true });
  }
  if (problems.length > 0) throw new ConfigError(damaged(file, `quick_check: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`));
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
}

function closeQuietly(db: Database | undefined): void {
  try {
    db?.close();
  } catch {
    /* closing a broken handle may fail too */
  }
}

/** `PRAGMA quick_check`: the problems it lists (up to 10), none when the database is sound. */
export function quickCheck(db: Database): string[] {
  const rows = db.query<{ quick_check: string }, []>('PRAGMA quick_check(10)').all();
  return checkProblems(rows.map((row) => row.quick_check));
}

/** quick_check's rows as problems, one line each (SQLite prefixes the first with "*** in database main ***" and a line break); none for "ok". */
export function checkProblems(rows: readonly string[]): string[] {
  if (rows.length === 1 && rows[0] === 'ok') return [];
  return rows.map((line) => line.replace(/\*\*\* in database \w+ \*\*\*/g, '').replace(/\s+/g, ' ').trim()).filter((line) => line !== '');
}

/**
 * A write that is rolled back: a database or folder this process may only read opens without
 * complaint (SQLite falls back to read-only) and fails on every later write, so the start asks
 * now, once. Nothing reaches the file: a rolled-back transaction in WAL mode writes no frame.
 */
function probeWrite(db: Database): void {
  db.run('BEGIN IMMEDIATE');
  try {
    db.run('CREATE TABLE main.svc_write_probe (x INTEGER)');
  } finally {
    db.run('ROLLBACK');
  }
}

function damaged(file: string, what: string): string {
  return `${file} is damaged (${what}): the controller does not start on it and leaves it as it is. Stop here, keep a copy of the file, and restore the database from a backup; ${RESTORE_HINT}`;
}

/** One line for an open that failed: which file, SQLite's words, and what to do. */
export function describeOpenFailure(file: string, error: unknown): string {
  const code = String((error as { code?: unknown }).code ?? '');
  const message = (error as Error).message ?? String(error);
  const user = typeof process.getuid === 'function' ? ` (uid ${process.getuid()})` : '';
  if (code.startsWith('SQLITE_READONLY')) {
    return `${file} is read-only for the controller${user} (${code}: ${message}): make the database, its -wal and -shm files and the folder ${dirname(file)} writable by the user svc runs as (chown -R), or mount the file system read-write, then start again`;
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code === 'SQLITE_AUTH') {
    return `${file} cannot be opened by the controller${user} (${code}: ${message}): give the user svc runs as read and write access to the file and to ${dirname(file)}, then start again`;
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return damaged(file, `${code}: ${message}`);
  if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) {
    return `${file} cannot be written (${code}: ${message}): the disk holding it is full or failing; free space (df -h ${dirname(file)}) and start again`;
  }
  return `${file} cannot be opened (${code || 'error'}: ${message})`;
}

export type { Database };
