/**
 * Damaged state is refused, not papered over: real sqlite files, truncated, zeroed or
 * scribbled over by the test, a database lost where data/ shows an earlier run, the temp files
 * a killed write leaves, and the doctor's view of each. Nothing refused is changed on disk.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../src/config/load';
import { describeOpenFailure, openCheckedDatabase, openDatabase, quickCheck } from '../../src/storage/db';
import { quickCheckFile } from '../../src/storage/check-worker';
import { checkDatabasePresence, dataFolderProblem } from '../../src/storage/previous-run';
import { sweepAtomicTempFiles } from '../../src/storage/temp-files';
import { liveDatabaseFindings, offlineDatabaseFindings } from '../../src/core/doctor/database';
import { tempDir } from '../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function dataDir(): string {
  const { dir, remove } = tempDir('svc-damage-');
  cleanups.push(remove);
  const data = join(dir, 'data');
  mkdirSync(data);
  return data;
}

/** A database with enough rows (a table and an index over ~40 pages) that damage lands on real pages; checkpointed and closed. */
function healthyDatabase(file: string): void {
  const db = openDatabase(file);
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  db.run('CREATE INDEX t_v ON t (v)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 2000; i++) insert.run(`row ${i} ${'x'.repeat(40)}`);
  })();
  insert.finalize();
  db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}

function overwrite(file: string, offset: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

/** Expects a ConfigError of one line and returns its message. */
function refusal(work: () => unknown): string {
  let caught: unknown;
  try {
    work();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const message = (caught as Error).message;
  expect(message).not.toContain('\n');
  return message;
}

describe('openCheckedDatabase: the check at start', () => {
  test('a sound database opens (and a missing one is created, for a first start)', () => {
    const data = dataDir();
    healthyDatabase(join(data, 'svc.db'));
    const db = openCheckedDatabase(join(data, 'svc.db'));
    expect((db.query('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(2000);
    // The write probe leaves nothing behind.
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'svc_write_probe'").all()).toEqual([]);
    db.close();
    openCheckedDatabase(join(data, 'fresh.db')).close();
    expect(existsSync(join(data, 'fresh.db'))).toBe(true);
  });

  const damages: [string, (file: string) => void, RegExp][] = [
    ['a zeroed header', (file) => overwrite(file, 0, Buffer.alloc(100)), /is damaged \(SQLITE_NOTADB: file is not a database\)/],
    ['a zeroed page in the middle', (file) => overwrite(file, 4096 * 20, Buffer.alloc(4096)), /is damaged \((quick_check: .*page|SQLITE_CORRUPT)/],
    ['garbage over a page', (file) => overwrite(file, 4096 * 12, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37 + 11) & 255))), /is damaged \((quick_check|SQLITE_CORRUPT)/],
    ['a file cut in half', (file) => truncateSync(file, Math.floor(statSync(file).size / 2)), /is damaged \((quick_check|SQLITE_CORRUPT)/],
    ['a file cut mid-page', (file) => truncateSync(file, 4096 * 10 + 123), /is damaged \((quick_check|SQLITE_CORRUPT)/],
  ];
  for (const [what, damage, expected] of damages) {
    test(`${what} is refused with one line naming the file and the restore, and the file is left byte for byte`, () => {
      const data = dataDir();
      const file = join(data, 'svc.db');
      healthyDatabase(file);
      damage(file);
      const before = readFileSync(file);
      const message = refusal(() => openCheckedDatabase(file));
      expect(message).toMatch(expected);
      expect(message.startsWith(`${file} is damaged`)).toBe(true);
      expect(message).toContain('restore the database from a backup');
      expect(message).toContain('When things go wrong');
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(readdirSync(data).filter((name) => name !== 'svc.db')).toEqual([]);
    });
  }

  test('quick_check finds a damaged index the file header does not show, on the worker too', async () => {
    const data = dataDir();
    const file = join(data, 'svc.db');
    healthyDatabase(file);
    const copy = join(data, 'copy.db');
    copyFileSync(file, copy);
    // Page 4 is a leaf of the table: quick_check lists it (others make it give up with SQLITE_CORRUPT, refused the same).
    overwrite(copy, 4096 * 3, Buffer.alloc(4096));
    const db = new Database(copy, { readonly: true });
    const problems = quickCheck(db);
    db.close();
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((line) => !line.includes('\n') && !line.includes('***'))).toBe(true);
    expect(await quickCheckFile(copy)).toEqual(problems);
    expect(await quickCheckFile(file)).toEqual([]);
  });

  test('the open failures read as what to do', () => {
    const file = '/srv/svc/data/svc.db';
    expect(describeOpenFailure(file, Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }))).toMatch(/^\/srv\/svc\/data\/svc\.db is read-only for the controller .*writable by the user svc runs as/);
    expect(describeOpenFailure(file, Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' }))).toMatch(/cannot be opened by the controller .*read and write access/);
    expect(describeOpenFailure(file, Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toMatch(/the disk holding it is full/);
  });
});

describe('a database lost since the last run', () => {
  test('missing or 0 bytes with no trace of an earlier run: a first start, allowed', () => {
    const data = dataDir();
    checkDatabasePresence(data, join(data, 'svc.db'));
    writeFileSync(join(data, 'svc.db'), '');
    checkDatabasePresence(data, join(data, 'svc.db'));
  });

  test('0 bytes where data/ shows an earlier run: refused, naming the traces and the restore; nothing written', () => {
    const data = dataDir();
    mkdirSync(join(data, 'state'));
    writeFileSync(join(data, 'state', 'services.json'), '{"version":1,"services":[]}');
    writeFileSync(join(data, 'api-token'), 'x'.repeat(48));
    writeFileSync(join(data, 'svc.db'), '');
    const message = refusal(() => checkDatabasePresence(data, join(data, 'svc.db')));
    expect(message).toBe(
      `${join(data, 'svc.db')} is empty (0 bytes), but ${data} holds what an earlier run left (state/services.json, api-token): the controller does not start on a new, empty database. Restore the database from a backup (README, "When things go wrong"); to start over with no data on purpose, move ${data} away`,
    );
    expect(statSync(join(data, 'svc.db')).size).toBe(0);
  });

  test('missing beside its WAL, or beside a database of another name: refused, saying which', () => {
    const data = dataDir();
    writeFileSync(join(data, 'svc.db-wal'), 'x');
    expect(refusal(() => checkDatabasePresence(data, join(data, 'svc.db')))).toContain('is missing, but');
    writeFileSync(join(data, 'old.db'), 'x');
    expect(refusal(() => checkDatabasePresence(data, join(data, 'svc.db')))).toContain('data/ holds old.db: if [database] name changed, set it back');
  });

  test.skipIf(process.getuid?.() === 0)('a data folder this user may not use is named, with the fix (as root, permissions do not stop anyone: see the fault suite)', () => {
    const data = dataDir();
    Bun.spawnSync(['chmod', '000', data]);
    cleanups.push(() => Bun.spawnSync(['chmod', '700', data]));
    expect(dataFolderProblem(data)).toMatch(/^the data folder .* cannot be used by the controller \(uid \d+\) \(EACCES, mode 000\): .*chmod 700/);
  });
});

describe('temp files of atomic writes left by a killed process', () => {
  test('only the exact pattern, only of dead processes (or of this pid: a past process), only files, within the depth; skipped folders untouched', () => {
    const { dir, remove } = tempDir('svc-sweep-');
    cleanups.push(remove);
    const dead = 999_999_991;
    const live = 4242;
    const files = {
      stale: join(dir, 'config', 'groups', `.Lobby.toml.${dead}.0123456789ab.tmp`),
      ownPid: join(dir, 'data', `.api-token.${process.pid}.abcdefabcdef.tmp`),
      deep: join(dir, 'data', 'state', `.services.json.${dead}.0123456789ab.tmp`),
      live: join(dir, 'data', `.node.json.${live}.0123456789ab.tmp`),
      notOurs: join(dir, 'config', `.Lobby.toml.${dead}.tmp`),
      upper: join(dir, 'config', `.Lobby.toml.${dead}.0123456789AB.tmp`),
      bulk: join(dir, 'data', 'backups', `.x.${dead}.0123456789ab.tmp`),
      tooDeep: join(dir, 'data', 'a', 'b', `.x.${dead}.0123456789ab.tmp`),
    };
    for (const file of Object.values(files)) {
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, 'half');
    }
    // A folder and a link with the pattern's name are never removed (nor what the link points to).
    mkdirSync(join(dir, 'config', `.dir.${dead}.0123456789ab.tmp`));
    symlinkSync(files.notOurs, join(dir, 'config', `.link.${dead}.0123456789ab.tmp`));
    const removed = sweepAtomicTempFiles(
      [
        { dir: join(dir, 'config'), depth: 3 },
        { dir: join(dir, 'data'), depth: 1, skip: ['backups'] },
      ],
      (pid) => pid === live,
    );
    expect(removed.sort()).toEqual([files.stale, files.ownPid, files.deep].sort());
    for (const file of [files.live, files.notOurs, files.upper, files.bulk, files.tooDeep]) expect(existsSync(file)).toBe(true);
    expect(existsSync(join(dir, 'config', `.dir.${dead}.0123456789ab.tmp`))).toBe(true);
    // A folder svc shares (the one --config names): only the config file's own temp files.
    const etc = join(dir, 'etc');
    mkdirSync(etc);
    for (const name of [`.svc.toml.${dead}.0123456789ab.tmp`, `.other.conf.${dead}.0123456789ab.tmp`]) writeFileSync(join(etc, name), 'x');
    expect(sweepAtomicTempFiles([{ dir: etc, depth: 0, only: 'svc.toml' }], () => false)).toEqual([join(etc, `.svc.toml.${dead}.0123456789ab.tmp`)]);
    expect(existsSync(join(etc, `.other.conf.${dead}.0123456789ab.tmp`))).toBe(true);
    expect(existsSync(join(dir, 'config', `.link.${dead}.0123456789ab.tmp`))).toBe(true);
  });
});

describe('the doctor on the database', () => {
  test('offline: lost, damaged, sound, or not there yet (a first start)', () => {
    const data = dataDir();
    const file = join(data, 'svc.db');
    expect(offlineDatabaseFindings(file, data)).toEqual([{ level: 'OK', message: `${file} does not exist yet`, hint: 'it is created on the first start' }]);
    healthyDatabase(file);
    expect(offlineDatabaseFindings(file, data)).toEqual([{ level: 'OK', message: expect.stringMatching(/passes quick_check \(0\.\d MiB\)$/), hint: null }]);
    overwrite(file, 4096 * 20, Buffer.alloc(4096));
    const damaged = offlineDatabaseFindings(file, data);
    expect(damaged).toEqual([{ level: 'FAIL', message: expect.stringMatching(/fails quick_check|is damaged/), hint: expect.stringContaining('restore the database from a backup') }]);
    writeFileSync(join(data, 'api-token'), 'x'.repeat(48));
    writeFileSync(file, '');
    expect(offlineDatabaseFindings(file, data)).toEqual([{ level: 'FAIL', message: expect.stringContaining('is empty (0 bytes), but'), hint: expect.stringContaining('When things go wrong') }]);
  });

  test('live: a database that fails quick_check is a FAIL, checked off the event loop', async () => {
    const data = dataDir();
    const file = join(data, 'svc.db');
    healthyDatabase(file);
    const db = new Database(file);
    expect(await liveDatabaseFindings(db, () => 0)).toEqual([{ level: 'OK', message: expect.stringContaining(`${file} passes quick_check`), hint: null }]);
    db.close();
    overwrite(file, 4096 * 20, Buffer.alloc(4096));
    const again = new Database(file);
    // A minute later the check runs again and sees it.
    const [finding] = await liveDatabaseFindings(again, () => 120_000);
    again.close();
    expect(finding).toMatchObject({ level: 'FAIL', message: expect.stringMatching(/fails quick_check|damaged|malformed/) });
  });
});
