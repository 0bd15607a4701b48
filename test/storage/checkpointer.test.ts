import { afterEach, describe, expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../src/log';
import { BackgroundCheckpointer } from '../../src/storage/checkpointer';
import { openDatabase, type Database } from '../../src/storage/db';
import { tempDir, waitFor } from '../support/controller';

const log = createLogger({ format: 'json', colored: false, level: 'warn', stdout: { write: () => undefined } });
let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.reverse()) f();
  cleanup = [];
});

function database(): { db: Database; path: string } {
  const dir = tempDir('svc-checkpoint-');
  const path = join(dir.dir, 'svc.db');
  const db = openDatabase(path);
  cleanup.push(dir.remove, () => db.close());
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  return { db, path };
}

const autoCheckpoint = (db: Database) => db.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()!.wal_autocheckpoint;
const walBytes = (path: string) => statSync(`${path}-wal`).size;
/** A look at the WAL every 100 ms instead of every second: the same steps, sooner. */
const TICK_MS = 100;
const rows = (db: Database) => db.query<{ n: number }, []>('SELECT count(*) AS n FROM t').get()!.n;

describe('BackgroundCheckpointer', () => {
  test('takes checkpoints off the main connection and copies the WAL back from its worker', async () => {
    const { db, path } = database();
    const checkpointer = new BackgroundCheckpointer(db, path, log, undefined, TICK_MS);
    cleanup.push(() => checkpointer.stop());
    expect(autoCheckpoint(db)).toBe(0);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 3000; i++) insert.run('x'.repeat(200));
    const grown = walBytes(path);
    expect(grown).toBeGreaterThan(500_000);
    await waitFor(() => checkpointer.checkpoints >= 2, { timeoutMs: 10_000, what: 'two checkpoints by the worker' });
    // Everything was copied back: the next write starts the WAL over instead of growing it.
    insert.run('after');
    expect(walBytes(path)).toBe(grown);
    expect(rows(db)).toBe(3001);
    expect(checkpointer.active).toBe(true);
  });

  test('starts no worker while the WAL stays small, and one once it has grown', async () => {
    const { db, path } = database();
    const checkpointer = new BackgroundCheckpointer(db, path, log, 64 * 1024, TICK_MS);
    cleanup.push(() => checkpointer.stop());
    expect(autoCheckpoint(db)).toBe(0);
    db.run("INSERT INTO t (v) VALUES ('small')");
    expect(walBytes(path)).toBeLessThan(64 * 1024);
    // Two looks at a small WAL: still no thread.
    await waitFor(() => checkpointer.ticks >= 2, { timeoutMs: 5000, what: 'two checkpoint ticks' });
    expect(checkpointer.workerStarted).toBe(false);
    expect(checkpointer.checkpoints).toBe(0);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 100; i++) insert.run('y'.repeat(200));
    expect(walBytes(path)).toBeGreaterThan(64 * 1024);
    await waitFor(() => checkpointer.checkpoints >= 1, { timeoutMs: 10_000, what: 'a checkpoint by the worker started on demand' });
    expect(checkpointer.workerStarted).toBe(true);
    expect(checkpointer.active).toBe(true);
  });

  test('stop gives the checkpoints back to the main connection', () => {
    const { db, path } = database();
    const checkpointer = new BackgroundCheckpointer(db, path, log);
    checkpointer.stop();
    expect(autoCheckpoint(db)).toBe(1000);
    expect(checkpointer.active).toBe(false);
  });
});
