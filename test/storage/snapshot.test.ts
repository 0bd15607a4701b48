import { Database as SqliteDatabase } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/db';
import { snapshotDatabase } from '../../src/storage/snapshot';
import { tempDir } from '../support/controller';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.reverse()) f();
  cleanup = [];
});

function live(rows: number): { db: ReturnType<typeof openDatabase>; path: string; dir: string } {
  const dir = tempDir('svc-snapshot-');
  const path = join(dir.dir, 'svc.db');
  const db = openDatabase(path);
  cleanup.push(dir.remove, () => db.close());
  db.run('PRAGMA wal_autocheckpoint = 0'); // every row stays in the WAL: the copy must read it from there
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(`row ${i} ${'x'.repeat(400)}`);
  })();
  return { db, path, dir: dir.dir };
}

const count = (db: SqliteDatabase): number => db.query<{ n: number }, []>('SELECT count(*) AS n FROM t').get()!.n;

describe('snapshotDatabase', () => {
  test('copies every committed row, WAL included, into a database that passes its integrity check', async () => {
    const { db, path, dir } = live(2_000);
    const dest = join(dir, 'copy.db');
    await snapshotDatabase(db, path, dest);
    const copy = new SqliteDatabase(dest, { readonly: true });
    try {
      expect(count(copy)).toBe(2_000);
      expect(copy.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()!.integrity_check).toBe('ok');
    } finally {
      copy.close();
    }
  });

  test('runs off the event loop: the controller goes on writing while the copy is taken', async () => {
    const { db, path, dir } = live(60_000); // ~25 MiB: the copy takes long enough to see interleaving
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    let during = 0;
    let snapshotDone = false;
    const writer = (async () => {
      while (!snapshotDone) {
        insert.run('written during the snapshot');
        during++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await snapshotDatabase(db, path, join(dir, 'copy.db'));
    snapshotDone = true;
    await writer;
    expect(during).toBeGreaterThan(1);
    const copy = new SqliteDatabase(join(dir, 'copy.db'), { readonly: true });
    try {
      // One consistent moment: the 60,000 rows and some prefix of the later ones.
      expect(count(copy)).toBeGreaterThanOrEqual(60_000);
      expect(count(copy)).toBeLessThanOrEqual(60_000 + during);
    } finally {
      copy.close();
    }
  });

  test('a destination that cannot be written fails with the reason and leaves nothing behind', async () => {
    const { db, path, dir } = live(10);
    await expect(snapshotDatabase(db, path, join(dir, 'missing-folder', 'copy.db'))).rejects.toThrow(/database snapshot failed: .+/);
    expect(await Bun.file(join(dir, 'missing-folder', 'copy.db')).exists()).toBe(false);
  });
});
