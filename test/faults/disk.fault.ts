/**
 * Damaged files and a full disk through the compiled binary (issue 38, findings 5 and 6, and the
 * smaller items on temp files, a read-only database and a mode-000 data folder).
 *
 * A full disk: the controller's whole folder on an 8 MiB tmpfs, filled to the last byte while
 * writes are made through the API (a group create, a punishment, a proxy PLAYER_CONNECTED, a
 * config patch). Each answer is 507 INSUFFICIENT_STORAGE naming what could not be written, or a
 * 2xx whose effects, audit row included, are all on disk, read back from the files after the
 * controller stopped. svc.log holds only whole lines and says how many it dropped once there is
 * room again. Nothing acknowledged is lost across the stop and a restart.
 *
 * Damaged files at start, each with its exact exit status and one line on stderr: a 0-byte
 * svc.db after a previous run, corrupt pages, a 5-character data/api-token (not overwritten),
 * a read-only database and a mode-000 data folder (both as an unprivileged user: root is not
 * stopped by permissions), an unreadable token file; an empty svc.toml starts with a loud
 * warning and the doctor says so; temp files of writes a kill -9 cut short are removed at start.
 *
 * Needs root (mount, setpriv, unshare); without it every test here is skipped and says why.
 *
 *   bun test ./test/faults/disk.fault.ts
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LineCollector, startBinaryController, svcBinary } from '../support/binary';
import { LogFile } from '../../src/log-file';
import { readJson, tempDir, waitFor } from '../support/controller';

const ROOT = process.getuid?.() === 0;
const SKIP_REASON = 'needs root: mounts a tmpfs, runs the binary as an unprivileged user (setpriv) and in a network namespace (unshare)';
if (!ROOT) console.warn(`test/faults/disk.fault.ts: skipped, ${SKIP_REASON}`);
const NOBODY = 65534;
const TOKEN = 'disk-fault-token-0123456789abcdef';

let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  if (ROOT) svc = await svcBinary();
}, 300_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

const run = (cmd: string[]) => {
  const result = Bun.spawnSync(cmd, { stdout: 'pipe', stderr: 'pipe' });
  if (!result.success) throw new Error(`${cmd.join(' ')}: ${result.stderr.toString()}`);
};

/** A working directory with a minimal svc.toml (any free port, isolation off, name lookups off). */
function workDir(prefix: string, toml = ''): string {
  const { dir, remove } = tempDir(prefix);
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n[punishments]\nname_lookup_url = ""\n${toml}`);
  return dir;
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the binary to its exit (bounded: a start that does not stop by itself is killed and fails the test). */
async function runToExit(args: string[], options: { env?: Record<string, string>; as?: number } = {}): Promise<Exit> {
  const prefix = options.as !== undefined ? ['setpriv', `--reuid=${options.as}`, `--regid=${options.as}`, '--clear-groups', '--'] : [];
  const child = Bun.spawn([...prefix, svc, ...args], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', ...options.env }, stdout: 'pipe', stderr: 'pipe' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  await child.exited;
  clearTimeout(timer);
  return { code: child.exitCode, stdout, stderr };
}

/** A refused start: exit 2, exactly one line on stderr (returned), no stack trace anywhere. */
function expectRefusal(exit: Exit, pattern: RegExp): string {
  const lines = exit.stderr.split('\n').filter((line) => line !== '');
  expect({ code: exit.code, lines: lines.length, stderr: exit.stderr }).toEqual({ code: 2, lines: 1, stderr: expect.stringMatching(pattern) });
  expect(lines[0]!.startsWith('svc: ')).toBe(true);
  expect(`${exit.stdout}${exit.stderr}`).not.toMatch(/\n\s+at /);
  expect(exit.stdout).not.toContain('"level":50');
  return lines[0]!;
}

/** Starts the controller on `dir` once (generating data/api-token unless a token is given), makes a write, and stops it cleanly. */
async function previousRun(dir: string, options: { as?: number; token?: boolean } = {}): Promise<void> {
  const prefix = options.as !== undefined ? ['setpriv', `--reuid=${options.as}`, `--regid=${options.as}`, '--clear-groups', '--'] : [];
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json' };
  if (options.token !== false) env.SVC_API_TOKEN = TOKEN;
  const child = Bun.spawn([...prefix, svc, '--dir', dir], { env, stdout: 'pipe', stderr: 'pipe' });
  cleanups.push(() => child.kill('SIGKILL'));
  const out = new LineCollector(child.stdout);
  const listening = await out.waitForLine((line) => line.includes('API listening'), 30_000);
  const url = `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`;
  const token = options.token === false ? readFileSync(join(dir, 'data', 'api-token'), 'utf8').trim() : TOKEN;
  const res = await fetch(`${url}/api/groups`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Kept', software: 'PAPER', version: '1.21.1', minInstances: 0, maxInstances: 1 }) });
  expect(res.status).toBe(201);
  child.kill('SIGTERM');
  expect(await child.exited).toBe(0);
}

const chownTree = (dir: string, uid: number) => run(['chown', '-R', `${uid}:${uid}`, dir]);

describe.skipIf(!ROOT)('damaged files at start (compiled binary)', () => {
  test('a 0-byte svc.db after a previous run: exit 2, one line naming it and the restore; the file left at 0 bytes; the doctor fails it', async () => {
    const dir = workDir('svc-fault-zero-db-');
    await previousRun(dir);
    const db = join(dir, 'data', 'svc.db');
    truncateSync(db, 0);
    const line = expectRefusal(await runToExit(['--dir', dir]), /svc\.db is empty \(0 bytes\), but .*data holds what an earlier run left \(state\/services\.json/);
    expect(line).toContain('Restore the database from a backup (README, "When things go wrong")');
    expect(statSync(db).size).toBe(0);
    const doctor = await runToExit(['doctor', '--dir', dir, '--json']);
    expect(doctor.code).toBe(1);
    const database = (JSON.parse(doctor.stdout) as { sections: { name: string; findings: { level: string; message: string }[] }[] }).sections.find((s) => s.name === 'Database')!;
    expect(database.findings[0]).toMatchObject({ level: 'FAIL', message: expect.stringContaining('is empty (0 bytes), but') });
  }, 120_000);

  test('corrupt pages: exit 2, one line saying it is damaged; not a byte of it changed; the doctor fails it', async () => {
    const dir = workDir('svc-fault-corrupt-db-');
    await previousRun(dir);
    const file = join(dir, 'data', 'svc.db');
    const pages = statSync(file).size / 4096;
    expect(pages).toBeGreaterThan(8);
    // Zeroes a page in the middle (a table or index page of the schema): what a torn write or a bad sector leaves.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096), 0, 4096, 4096 * Math.floor(pages / 2));
    closeSync(fd);
    const before = readFileSync(file);
    const line = expectRefusal(await runToExit(['--dir', dir]), /svc\.db is damaged \((quick_check: |SQLITE_CORRUPT)/);
    expect(line).toContain('restore the database from a backup');
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(join(dir, 'data')).filter((name) => name.startsWith('svc.db'))).toEqual(['svc.db']);
    const doctor = await runToExit(['doctor', '--dir', dir, '--json']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/"level": "FAIL",\s+"message": "[^"]*svc\.db (fails quick_check|is damaged)/);
  }, 120_000);

  test('a 5-character data/api-token: exit 2, one line naming the file; never overwritten', async () => {
    const dir = workDir('svc-fault-token-');
    await previousRun(dir, { token: false });
    const file = join(dir, 'data', 'api-token');
    writeFileSync(file, 'abcde\n', { mode: 0o600 });
    const line = expectRefusal(await runToExit(['--dir', dir]), /data\/api-token holds 5 character\(s\), not a token/);
    expect(line).toContain('it is left as it is');
    expect(readFileSync(file, 'utf8')).toBe('abcde\n');
  }, 120_000);

  test('an empty svc.toml: the controller starts with a loud warning first; svc doctor and GET /api/doctor say so', async () => {
    const { dir, remove } = tempDir('svc-fault-empty-toml-');
    cleanups.push(remove);
    writeFileSync(join(dir, 'svc.toml'), '');
    // All defaults: port 8080. A network namespace of its own, so no other 8080 on this machine is in the way.
    const child = Bun.spawn(['unshare', '-n', '--', 'sh', '-c', 'ip link set lo up && exec "$0" --dir "$1"', svc, dir], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', SVC_API_TOKEN: TOKEN }, stdout: 'pipe', stderr: 'pipe' });
    cleanups.push(() => child.kill('SIGKILL'));
    const out = new LineCollector(child.stdout);
    await out.waitForLine((line) => line.includes('API listening'), 30_000);
    const warnings = out.lines.filter((line) => line.includes('is EMPTY'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, msg: `${join(dir, 'svc.toml')} is EMPTY (0 bytes): every setting is at its default, whatever this controller was configured with before. If it was truncated, restore it from a backup; to get the commented default file instead, delete it and start once (or run svc init)` });
    // The running controller's doctor, asked inside its namespace.
    const curl = Bun.spawnSync(['nsenter', '-t', String(child.pid), '-n', '--', 'curl', '-s', '-H', `authorization: Bearer ${TOKEN}`, 'http://127.0.0.1:8080/api/doctor'], { stdout: 'pipe' });
    const live = JSON.parse(curl.stdout.toString()) as { sections: { name: string; findings: { level: string; message: string }[] }[] };
    expect(live.sections.find((s) => s.name === 'Configuration')!.findings).toContainEqual(expect.objectContaining({ level: 'WARN', message: expect.stringContaining('svc.toml is EMPTY') }));
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(readFileSync(join(dir, 'svc.toml'), 'utf8')).toBe('');
    const doctor = await runToExit(['doctor', '--dir', dir, '--json'], { env: { SVC_API_TOKEN: TOKEN } });
    expect(doctor.stdout).toMatch(/"level": "WARN",\s+"message": "[^"]*svc\.toml is EMPTY \(0 bytes\)/);
  }, 120_000);

  test('a read-only database (an unprivileged user, the file 0444): exit 2 and one line, not a stack trace per write', async () => {
    const dir = workDir('svc-fault-readonly-db-');
    chownTree(dir, NOBODY);
    await previousRun(dir, { as: NOBODY });
    chmodSync(join(dir, 'data', 'svc.db'), 0o444);
    const exit = await runToExit(['--dir', dir], { as: NOBODY });
    const line = expectRefusal(exit, /svc\.db is read-only for the controller \(uid 65534\) \(SQLITE_READONLY/);
    expect(line).toContain('writable by the user svc runs as');
    expect(exit.stdout.split('\n').filter((l) => l.includes('"level":50') || l.includes('"err"'))).toEqual([]);
  }, 120_000);

  test('a mode-000 data folder (an unprivileged user): exit 2, one line naming the folder and the fix, no temp file named', async () => {
    const dir = workDir('svc-fault-data-000-');
    chownTree(dir, NOBODY);
    await previousRun(dir, { as: NOBODY });
    chmodSync(join(dir, 'data'), 0o000);
    cleanups.push(() => chmodSync(join(dir, 'data'), 0o700));
    const line = expectRefusal(await runToExit(['--dir', dir], { as: NOBODY }), /the data folder .*\/data cannot be used by the controller \(uid 65534\) \(EACCES, mode 000\)/);
    expect(line).toContain(`chmod 700 ${join(dir, 'data')}`);
    expect(line).not.toContain('.tmp');
    expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0);
  }, 120_000);

  test('an unreadable data/api-token (an unprivileged user): exit 2, one line naming it; the file untouched', async () => {
    const dir = workDir('svc-fault-token-unreadable-');
    chownTree(dir, NOBODY);
    await previousRun(dir, { as: NOBODY, token: false });
    const file = join(dir, 'data', 'api-token');
    run(['chown', '0:0', file]);
    const before = readFileSync(file, 'utf8');
    expectRefusal(await runToExit(['--dir', dir], { as: NOBODY }), /data\/api-token cannot be read \(EACCES\)/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 120_000);

  test('temp files of writes a kill -9 cut short are removed at start (only svc\'s pattern, only its folders) and named in the log', async () => {
    const dir = workDir('svc-fault-temp-files-');
    await previousRun(dir);
    const dead = 999_999_999;
    const stale = [`.svc.toml.${dead}.0123456789ab.tmp`, `config/groups/.Kept.toml.${dead}.abcdef012345.tmp`, `data/state/.services.json.${dead}.00112233aabb.tmp`];
    const kept = ['notes.tmp', `config/.x.toml.${dead}.tmp`, `services/.server.properties.${dead}.0123456789ab.tmp`];
    for (const path of [...stale, ...kept]) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), 'half a file');
    }
    const c = await startBinaryController(svc, dir, TOKEN, cleanups);
    const line = await c.out.waitForLine((l) => l.includes('temp file(s) of writes a killed process left unfinished'));
    expect(JSON.parse(line)).toMatchObject({ msg: 'removed 3 temp file(s) of writes a killed process left unfinished', files: expect.arrayContaining(stale) });
    for (const path of stale) expect(existsSync(join(dir, path))).toBe(false);
    for (const path of kept) expect(existsSync(join(dir, path))).toBe(true);
    c.child.kill('SIGTERM');
    await c.child.exited;
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------
// A full disk

/** Fills the file system holding `dir` to its last byte; returns the filler's path (removing it gives the room back). */
function fill(dir: string): string {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 64 << 10, 4096, 512, 64, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

type Outcome = { status: number; body: { success?: boolean; error?: string; message?: string; id?: number } };

async function answer(res: Response): Promise<Outcome> {
  return { status: res.status, body: (await readJson(res)) as Outcome['body'] };
}

describe.skipIf(!ROOT)('a full disk (compiled binary on an 8 MiB tmpfs)', () => {
  test('every write is 507 naming what failed, or a 2xx whose effects (audit row included) are all on disk; svc.log keeps whole lines and says what it dropped', async () => {
    const { dir: base, remove } = tempDir('svc-fault-disk-full-');
    const dir = join(base, 'ctl');
    mkdirSync(dir);
    run(['mount', '-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]);
    cleanups.push(() => {
      Bun.spawnSync(['umount', '-l', dir]);
      remove();
    });
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n[punishments]\nname_lookup_url = ""\n');
    const c = await startBinaryController(svc, dir, TOKEN, cleanups);
    const group = (name: string) => ({ name, software: 'PAPER', version: '1.21.1', minInstances: 0, maxInstances: 1 });
    const punishment = (n: number) => ({ type: 'WARN', targetUuid: `dddddddd-0000-4000-8000-${String(n).padStart(12, '0')}`, targetName: `Full${n}`, reason: 'disk full test' });
    const connect = (n: number) => ({ type: 'PLAYER_CONNECTED', player: `Player${n}`, uuid: `eeeeeeee-0000-4000-8000-${String(n).padStart(12, '0')}`, service: 'Lobby-1' });
    const post = (path: string, body: unknown, method = 'POST') => c.api(path, { method, body: JSON.stringify(body) });
    expect((await post('/api/groups', group('Before'))).status).toBe(201);

    const filler = fill(dir);
    const during = {
      group: await answer(await post('/api/groups', group('During'))),
      punishment: await answer(await post('/api/punishments', punishment(1))),
      connect: await answer(await post('/api/proxy/events', connect(1))),
      patch: await answer(await post('/api/config', { networkName: 'DuringFull' }, 'PATCH')),
    };
    const full = (what: RegExp) => ({ status: 507, body: { success: false, error: 'INSUFFICIENT_STORAGE', message: expect.stringMatching(new RegExp(`^no space left on the controller's disk \\((ENOSPC|SQLITE_FULL)\\): ${what.source} could not be written, so this request is not done; free space and send it again$`)) } });
    // A new file needs room on a full disk: these two can only be refused, each naming its file.
    expect(during.group).toEqual(full(/config\/groups\/During\.toml/));
    expect(during.patch).toEqual(full(/svc\.toml/));
    // A database write: refused (naming the record that could not be written) unless SQLite had
    // the room already (a WAL it had grown before); either way checked on disk below.
    if (during.punishment.status !== 201) expect(during.punishment).toEqual(full(/(the audit log entry for PUNISHMENT_ISSUED \(in the database\)|the change \(in the database\))/));
    if (during.connect.status !== 200) expect(during.connect).toEqual(full(/(the player session for PLAYER_CONNECTED \(in the database\)|the change \(in the database\))/));
    console.log(`disk full: group ${during.group.status}, punishment ${during.punishment.status}, PLAYER_CONNECTED ${during.connect.status}, config patch ${during.patch.status}`);

    // Room again: the same writes go through.
    rmSync(filler);
    const after = {
      group: await answer(await post('/api/groups', group('During'))),
      punishment: await answer(await post('/api/punishments', punishment(2))),
      connect: await answer(await post('/api/proxy/events', connect(2))),
      patch: await answer(await post('/api/config', { networkName: 'AfterFull' }, 'PATCH')),
    };
    expect([after.group.status, after.punishment.status, after.connect.status, after.patch.status]).toEqual([201, 201, 200, 200]);
    c.child.kill('SIGTERM');
    expect(await c.child.exited).toBe(0);

    // Every acknowledged write is on disk whole, read from the files themselves.
    const db = new Database(join(dir, 'data', 'svc.db'), { readonly: true });
    const audited = (action: string, like: string) => (db.query('SELECT COUNT(*) AS n FROM audit_log WHERE action = ? AND (target = ? OR details LIKE ?)').get(action, like, `%${like}%`) as { n: number }).n;
    const punishments = db.query('SELECT id, target_name AS name FROM punishments ORDER BY id').all() as { id: number; name: string }[];
    const sessions = db.query('SELECT uuid FROM player_sessions').all() as { uuid: string }[];
    expect(audited('GROUP_CREATED', 'During')).toBe(1);
    expect(punishments.map((p) => p.name)).toEqual(during.punishment.status === 201 ? ['Full1', 'Full2'] : ['Full2']);
    for (const p of punishments) expect(audited('PUNISHMENT_ISSUED', `id=${p.id},`)).toBe(1);
    expect(sessions.map((s) => s.uuid).sort()).toEqual((during.connect.status === 200 ? [connect(1).uuid, connect(2).uuid] : [connect(2).uuid]).sort());
    expect(audited('CONFIG_UPDATED', 'networkName=AfterFull')).toBe(1);
    expect(audited('CONFIG_UPDATED', 'networkName=DuringFull')).toBe(0);
    db.close();
    expect(readFileSync(join(dir, 'svc.toml'), 'utf8')).toContain('AfterFull');
    expect(existsSync(join(dir, 'config', 'groups', 'During.toml'))).toBe(true);

    // svc.log: whole JSON lines only, and the lines the full disk cost are counted each time there
    // was room again. That may be more than once: while the disk is full, SQLite can give a page
    // back for a moment (a write rolled back), and a line fits in it before the disk fills again.
    const log = readFileSync(join(dir, 'logs', 'svc.log'), 'utf8');
    expect(log.endsWith('\n')).toBe(true);
    const entries = log.trimEnd().split('\n').map((line) => JSON.parse(line) as { msg?: string });
    const dropped = entries.filter((e) => /^\d+ lines dropped: disk full$/.test(e.msg ?? ''));
    expect(dropped.length).toBeGreaterThanOrEqual(1);
    const droppedTotal = dropped.reduce((n, e) => n + Number(e.msg!.split(' ')[0]), 0);
    // The journal (stdout) has every 507 line; svc.log has those that fitted, and counts the rest.
    const inJournal = c.out.lines.filter((line) => line.includes("no space left on the controller's disk")).length;
    const inFile = entries.filter((e) => e.msg?.startsWith("no space left on the controller's disk")).length;
    expect(inJournal).toBe(4);
    expect(droppedTotal).toBeGreaterThanOrEqual(Math.max(1, inJournal - inFile));
    // No temp file of a refused write was left behind.
    const temps = Bun.spawnSync(['find', dir, '-name', '.*.tmp']).stdout.toString().trim();
    expect(temps).toBe('');

    // A restart finds all of it (and no lost database to refuse).
    const again = await startBinaryController(svc, dir, TOKEN, cleanups);
    expect((await readJson(await again.api('/api/groups/During'))).name).toBe('During');
    expect((await readJson(await again.api('/api/config'))).networkName).toBe('AfterFull');
    await waitFor(async () => (await again.api('/api/health')).ok, { what: 'health' });
    again.child.kill('SIGTERM');
    await again.child.exited;
  }, 180_000);
});

describe.skipIf(!ROOT)('svc.log on a full disk (the log file itself, on a 1 MiB tmpfs)', () => {
  test('a line that does not fit is cut back to where it began, never left half-written; once there is room a line says how many were dropped', () => {
    const { dir: base, remove } = tempDir('svc-fault-log-full-');
    const dir = join(base, 'logs');
    mkdirSync(dir);
    run(['mount', '-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    cleanups.push(() => {
      Bun.spawnSync(['umount', '-l', dir]);
      remove();
    });
    const file = join(dir, 'svc.log');
    const log = new LogFile(file, 10 * 1024 * 1024);
    const line = (i: number) => `${JSON.stringify({ level: 30, msg: `line ${i}`, pad: 'x'.repeat(300) })}\n`;
    log.write(line(0));
    const filler = fill(dir);
    // The page svc.log ends in still has room for a few lines, then a line fits only in part.
    let i = 1;
    let sizeBefore = statSync(file).size;
    while (log.droppedLines === 0) {
      sizeBefore = statSync(file).size;
      log.write(line(i++));
    }
    // The line that failed had part of a page to go into: the system wrote what fitted (a torn
    // line), and the log file cut it back to the size it had before.
    expect(sizeBefore % 4096).not.toBe(0);
    expect(statSync(file).size).toBe(sizeBefore);
    for (let k = 0; k < 5; k++) log.write(line(i++));
    expect(log.droppedLines).toBe(6);
    const whileFull = readFileSync(file, 'utf8');
    expect(whileFull.endsWith('\n')).toBe(true);
    const kept = whileFull.trimEnd().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, n) => `line ${n}`));
    rmSync(filler);
    log.write(line(i));
    const after = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string; area?: string });
    expect(after.slice(kept.length)).toEqual([{ level: 40, time: expect.any(String), area: 'log', msg: '6 lines dropped: disk full' }, expect.objectContaining({ msg: `line ${i}` })]);
    expect(log.droppedLines).toBe(0);
    log.close();
  });
});
