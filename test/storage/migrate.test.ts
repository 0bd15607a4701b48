import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/db';
import { migrate } from '../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../src/storage/core-migrations';
import { AuditStore } from '../../src/core/audit/store';
import { tempDir } from '../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));
function freshDb() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const file = join(dir, 'data', 'svc.db');
  return { file, db: openDatabase(file) };
}

describe('openDatabase', () => {
  test('WAL, foreign keys on, in a real file', () => {
    const { db } = freshDb();
    expect(db.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get()!.journal_mode).toBe('wal');
    expect(db.query<{ foreign_keys: number }, []>('PRAGMA foreign_keys').get()!.foreign_keys).toBe(1);
    db.close();
  });
});

describe('migrate', () => {
  test('applies core once; a second run is a no-op', () => {
    const { db, file } = freshDb();
    expect(migrate(db, 'core', CORE_MIGRATIONS)).toEqual(CORE_MIGRATIONS.map((m) => m.version));
    db.close();
    const again = openDatabase(file);
    expect(migrate(again, 'core', CORE_MIGRATIONS)).toEqual([]);
    expect(again.query('SELECT COUNT(*) AS n FROM audit_log').get()).toEqual({ n: 0 });
    again.close();
  });

  test('scopes number independently and only pending migrations run', () => {
    const { db } = freshDb();
    const a = [{ version: 1, name: 'a', sql: 'CREATE TABLE a (x INTEGER);' }];
    expect(migrate(db, 'mod-a', a)).toEqual([1]);
    expect(migrate(db, 'mod-b', [{ version: 1, name: 'b', sql: 'CREATE TABLE b (x INTEGER);' }])).toEqual([1]);
    expect(migrate(db, 'mod-a', [...a, { version: 2, name: 'a2', sql: 'CREATE TABLE a2 (x INTEGER); CREATE INDEX a2x ON a2 (x);' }])).toEqual([2]);
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'a2x'").get()).toEqual({ name: 'a2x' });
    db.close();
  });

  test('a failing migration rolls back completely and is not recorded', () => {
    const { db } = freshDb();
    const bad = [{ version: 1, name: 'bad', sql: 'CREATE TABLE half (x INTEGER); INSERT INTO missing VALUES (1);' }];
    expect(() => migrate(db, 'm', bad)).toThrow();
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeNull();
    expect(db.query("SELECT COUNT(*) AS n FROM schema_migrations WHERE scope = 'm'").get()).toEqual({ n: 0 });
    db.close();
  });

  test('refuses a database written by a newer svc, and gaps in numbering', () => {
    const { db } = freshDb();
    migrate(db, 'm', [
      { version: 1, name: 'one', sql: 'SELECT 1;' },
      { version: 2, name: 'two', sql: 'SELECT 1;' },
    ]);
    expect(() => migrate(db, 'm', [{ version: 1, name: 'one', sql: 'SELECT 1;' }])).toThrow('written by a newer svc');
    expect(() => migrate(db, 'n', [{ version: 2, name: 'gap', sql: 'SELECT 1;' }])).toThrow('numbered 1, 2, 3');
    db.close();
  });
});

describe('audit retention', () => {
  test('prunes only entries older than the cutoff, in batches', async () => {
    const { db } = freshDb();
    migrate(db, 'core', CORE_MIGRATIONS);
    const store = new AuditStore(db);
    const day = 24 * 3600 * 1000;
    const now = Date.now();
    db.transaction(() => {
      for (let i = 0; i < 1234; i++) store.record({ actor: 'system', action: 'OLD', at: now - 100 * day - i });
      for (let i = 0; i < 10; i++) store.record({ actor: 'system', action: 'NEW', at: now - i });
    })();
    expect(await store.prune(now - 90 * day, 100)).toBe(1234);
    expect(store.list({ limit: 500, offset: 0 }).total).toBe(10);
    expect(store.list({ limit: 500, offset: 0, action: 'OLD' }).total).toBe(0);
    db.close();
  });
});
