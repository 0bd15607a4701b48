/**
 * The backup module in the compiled binary, driven the way the dashboard's backup page drives it
 * (REFERENCE-MODULES §6 "Dashboard reads"), with the master token:
 *   - it polls GET /api/backups?limit=100 and /api/backups/status, reading every field of B;
 *   - trigger sends {targets, scheduleClass:"manual"} and gets 201 with RUNNING records;
 *   - GET /schedules (a bare array), GET /config and PUT /config spreading the fetched object
 *     with one change (so fields the page does not know, like failedKeepDays, survive);
 *   - verify, manifest, download (a raw fetch with a Bearer header, then a blob), restore
 *     {dryRun:false, force:false}, prune {dryRun:false}, delete;
 *   - an /api/events socket hears BACKUP_STARTED, _COMPLETED, _RESTORED and _PRUNED.
 * Last, kill -9 while a slow backup is being written, and a restart: the RUNNING record is
 * FAILED and no temp archive is left in data/backups.
 *
 * backup.toml is written before the first start: schedules twelve hours away (UTC), so none
 * fires during the test, and one compression thread, so the slow backup is slow on any machine.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, isAbsolute, join, relative } from 'node:path';
import { BACKUP_DEFAULTS, renderBackupToml, type BackupConfig } from '../../src/modules/backup/config';
import { nextRun } from '../../src/modules/backup/cron';
import { startBinaryController, svcBinary } from '../support/binary';
import { expectErrorBody, readJson, tempDir, waitFor } from '../support/controller';
import { openEventSocket } from '../support/events-socket';
import { expectExactShape } from './contract/expect-shape';

const TOKEN = 'backup-e2e-token-0123456789abcdef';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SHA256 = /^[0-9a-f]{64}$/;

// ---------------------------------------------------------------------------------------------
// Shapes the dashboard reads (page.tsx :54 BackupRecord, :71, :76, :86, :92, :120, :153)

/** B, the dashboard's BackupRecord. */
interface Backup {
  id: number;
  targetType: string;
  targetName: string;
  scheduleClass: string;
  scheduleName: string;
  startedAt: string;
  completedAt: string | null;
  status: string;
  sizeBytes: number;
  archivePath: string;
  checksum: string;
  errorMessage: string | null;
  nodeId: string;
  triggeredBy: string;
}
interface Schedule {
  name: string;
  cron: string;
  retentionClass: string;
  targets: string[];
  lastRunAt: string | null;
  nextRunAt: string | null;
  lastStatus: string;
}
interface Frame {
  type: string;
  timestamp: string;
  data: Record<string, string>;
}


const B_TYPES: Record<keyof Backup, string> = {
  id: 'number',
  targetType: 'string',
  targetName: 'string',
  scheduleClass: 'string',
  scheduleName: 'string',
  startedAt: 'string',
  completedAt: 'string|null',
  status: 'string',
  sizeBytes: 'number',
  archivePath: 'string',
  checksum: 'string',
  errorMessage: 'string|null',
  nodeId: 'string',
  triggeredBy: 'string',
};
const SCHEDULE_TYPES: Record<keyof Schedule, string> = {
  name: 'string',
  cron: 'string',
  retentionClass: 'string',
  targets: 'array',
  lastRunAt: 'string|null',
  nextRunAt: 'string|null',
  lastStatus: 'string',
};

function expectBackup(value: unknown): Backup {
  expectExactShape(value, B_TYPES, 'B');
  const b = value as Backup;
  expect(Number.isInteger(b.id) && b.id > 0).toBe(true);
  expect(Number.isInteger(b.sizeBytes)).toBe(true);
  expect(b.startedAt).toMatch(ISO);
  if (b.completedAt !== null) expect(b.completedAt).toMatch(ISO);
  expect(['RUNNING', 'SUCCESS', 'FAILED', 'PARTIAL']).toContain(b.status);
  expect(b.status === 'RUNNING').toBe(b.completedAt === null);
  if (b.status === 'SUCCESS') {
    expect(b.checksum).toMatch(SHA256);
    expect(b.archivePath).toMatch(/\.tar\.zst$/);
    expect(b.sizeBytes).toBeGreaterThan(0);
  }
  return b;
}
function expectSchedule(value: unknown): Schedule {
  expectExactShape(value, SCHEDULE_TYPES, 'Schedule');
  const s = value as Schedule;
  for (const t of s.targets) expect(typeof t).toBe('string');
  return s;
}

// ---------------------------------------------------------------------------------------------
// The controller and the page's calls

type Binary = Awaited<ReturnType<typeof startBinaryController>>;
let svc: string;
let dir: string;
let removeDir: () => void;
let current: Binary;
const cleanups: (() => void)[] = [];
const frames: Frame[] = [];
let socket: WebSocket | undefined;

const backupsDir = () => join(dir, 'data/backups');
const request = (method: string, path: string, body?: unknown) =>
  fetch(current.url + path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
async function ok<T>(method: string, path: string, body?: unknown, status = 200): Promise<T> {
  const res = await request(method, path, body);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} (expected ${status}) ${await res.text()}`);
  return (await readJson(res)) as T;
}

/** The page's list poll. */
const list = async () => {
  const body = await ok<{ backups: unknown[]; total: number }>('GET', '/api/backups?limit=100');
  expect(Object.keys(body).sort()).toEqual(['backups', 'total']);
  return { backups: body.backups.map(expectBackup), total: body.total };
};
/** The page's status poll. */
const status = async () => {
  const body = await ok<{ activeJobs: number; localDestination: string; schedules: unknown[] }>('GET', '/api/backups/status');
  expect(Object.keys(body).sort()).toEqual(['activeJobs', 'localDestination', 'schedules']);
  expect(Number.isInteger(body.activeJobs)).toBe(true);
  return { ...body, schedules: body.schedules.map(expectSchedule) };
};
/** The page's "Back up now": its target options and scheduleClass "manual". */
async function trigger(targets: string[]): Promise<Backup[]> {
  const body = await ok<{ backups: unknown[]; total: number }>('POST', '/api/backups/trigger', { targets, scheduleClass: 'manual' }, 201);
  const rows = body.backups.map(expectBackup);
  expect(body.total).toBe(rows.length);
  for (const row of rows) expect(row).toMatchObject({ status: 'RUNNING', completedAt: null, sizeBytes: 0, archivePath: '', checksum: '', scheduleClass: 'manual', scheduleName: '', triggeredBy: 'api:admin', nodeId: 'local' });
  return rows;
}
/** Polls the page's two calls until none of `ids` is RUNNING and no job is active; returns them as listed. */
async function finished(ids: number[]): Promise<Backup[]> {
  return waitFor(
    async () => {
      const [{ backups }, { activeJobs }] = await Promise.all([list(), status()]);
      const mine = ids.map((id) => backups.find((b) => b.id === id));
      return mine.every((b) => b !== undefined && b.status !== 'RUNNING') && activeJobs === 0 ? (mine as Backup[]) : undefined;
    },
    { timeoutMs: 15_000, intervalMs: 100, what: `backups ${ids.join(', ')} to finish` },
  );
}
/** The page's config editor: GET, spread with one change, PUT; answers what the PUT returned. */
async function editConfig(change: (config: BackupConfig) => Partial<BackupConfig>): Promise<BackupConfig> {
  const fetched = await ok<BackupConfig>('GET', '/api/backups/config');
  const sent = { ...fetched, ...change(fetched) };
  const stored = await ok<BackupConfig>('PUT', '/api/backups/config', sent);
  expect(stored).toEqual(sent);
  expect(await ok<BackupConfig>('GET', '/api/backups/config')).toEqual(sent);
  return stored;
}

/** The events socket, with the master token as the dashboard holds it. */
async function listen(): Promise<void> {
  socket?.close();
  socket = await openEventSocket<Frame>(current.url, TOKEN, (f) => frames.push(f));
}
const frame = (type: string, match: (data: Record<string, string>) => boolean, what: string) =>
  waitFor(() => frames.find((f) => f.type === type && match(f.data)), { what: `a ${type} frame (${what})`, timeoutMs: 5000 });
/** {type, timestamp, data} with string values naming the module. */
function expectFrame(f: Frame, keys: string[]): void {
  expect(Object.keys(f).sort()).toEqual(['data', 'timestamp', 'type']);
  expect(f.timestamp).toMatch(ISO);
  expect(Object.keys(f.data).sort()).toEqual([...keys, 'moduleId'].sort());
  expect(f.data.moduleId).toBe('backup');
  for (const value of Object.values(f.data)) expect(typeof value).toBe('string');
}

/** Regular files under `root`, relative with '/'. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((rel) => statSync(join(root, rel)).isFile())
    .map((rel) => relative(root, join(root, rel)).split('\\').join('/'))
    .sort();
}
const sha256 = (bytes: Uint8Array | ArrayBuffer) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
const tempArchives = () => (existsSync(backupsDir()) ? readdirSync(backupsDir()).filter((f) => f.endsWith('.tmp')) : []);

// ---------------------------------------------------------------------------------------------

/** Twelve hours from now in UTC: no schedule fires while the test runs. */
const now = new Date();
const farHour = (now.getUTCHours() + 12) % 24;
const SCHEDULES: BackupConfig['schedules'] = [
  { name: 'nightly', cron: `0 ${farHour} * * *`, retentionClass: 'daily', targets: ['all'] },
  { name: 'worlds', cron: `30 ${farHour} * * ${(now.getUTCDay() + 3) % 7}`, retentionClass: 'weekly', targets: ['services', 'dedicated', 'database'] },
];

beforeAll(async () => {
  svc = await svcBinary();
  ({ dir, remove: removeDir } = tempDir('svc-backup-e2e-'));
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\n');
  mkdirSync(join(dir, 'config/modules/backup'), { recursive: true });
  writeFileSync(join(dir, 'config/modules/backup/backup.toml'), renderBackupToml({ ...structuredClone(BACKUP_DEFAULTS), timezone: 'UTC', compressionWorkers: 1, schedules: SCHEDULES }));
  mkdirSync(join(dir, 'templates/Lobby/plugins'), { recursive: true });
  mkdirSync(join(dir, 'templates/global'), { recursive: true });
  writeFileSync(join(dir, 'templates/Lobby/server.properties'), 'motd=The lobby\nmax-players=50\n');
  writeFileSync(join(dir, 'templates/Lobby/plugins/config.yml'), 'spawn: [0, 64, 0]\n');
  writeFileSync(join(dir, 'templates/global/spigot.yml'), 'settings:\n  bungeecord: false\n');
  current = await startBinaryController(svc, dir, TOKEN, cleanups);
  await listen();
}, 120_000);

afterAll(() => {
  socket?.close();
  for (const cleanup of cleanups) cleanup();
  removeDir();
});

/** The records of the first run, by type; later tests use them. */
const first: Record<string, Backup> = {};
const second: Record<string, Backup> = {};

describe('the dashboard backup page against the compiled binary', () => {
  test('the page loads: an empty list, the status, the schedules (a bare array) and the configuration', async () => {
    expect(await list()).toEqual({ backups: [], total: 0 });
    const s = await status();
    expect(s.activeJobs).toBe(0);
    expect(isAbsolute(s.localDestination)).toBe(true);
    expect(s.localDestination).toBe(join(dir, 'data/backups'));
    const schedules = (await ok<unknown[]>('GET', '/api/backups/schedules')).map(expectSchedule);
    expect(s.schedules).toEqual(schedules);
    expect(schedules.map((x) => [x.name, x.cron, x.retentionClass, x.targets])).toEqual(SCHEDULES.map((x) => [x.name, x.cron, x.retentionClass, x.targets]));
    for (const [i, x] of schedules.entries()) {
      expect(x).toMatchObject({ lastRunAt: null, lastStatus: '' });
      expect(x.nextRunAt).toBe(nextRun(SCHEDULES[i]!.cron, new Date(), 'UTC')!.toISOString());
    }
    const config = await ok<BackupConfig>('GET', '/api/backups/config');
    expect(config).toEqual({ ...structuredClone(BACKUP_DEFAULTS), timezone: 'UTC', compressionWorkers: 1, schedules: SCHEDULES });
  });

  test('"Back up now" for templates, config and database: 201 with RUNNING records, SUCCESS when polled, events on the socket', async () => {
    const started = await trigger(['templates', 'config', 'database']);
    expect(started.map((b) => [b.targetType, b.targetName])).toEqual([
      ['TEMPLATES', 'all'],
      ['CONFIG', 'all'],
      ['DATABASE', 'all'],
    ]);
    const ended = await finished(started.map((b) => b.id));
    for (const [i, b] of ended.entries()) {
      // (No asymmetric matchers in toMatchObject: Bun 1.4.5 writes them into the received object.)
      const { status: _, completedAt: __, sizeBytes: ___, archivePath: ____, checksum: _____, ...unchanged } = started[i]!;
      expect(b).toMatchObject({ ...unchanged, status: 'SUCCESS', errorMessage: null });
      expect(b.completedAt).toMatch(ISO);
      expect(Date.parse(b.completedAt!)).toBeGreaterThanOrEqual(Date.parse(b.startedAt));
      expect(existsSync(join(backupsDir(), b.archivePath))).toBe(true);
      expect(statSync(join(backupsDir(), b.archivePath)).size).toBe(b.sizeBytes);
      first[b.targetType] = b;

      const startedFrame = await frame('BACKUP_STARTED', (d) => d.id === String(b.id), `backup ${b.id}`);
      expectFrame(startedFrame, ['id', 'targetType', 'targetName', 'triggeredBy']);
      expect(startedFrame.data).toMatchObject({ targetType: b.targetType, targetName: 'all', triggeredBy: 'api:admin' });
      const completed = await frame('BACKUP_COMPLETED', (d) => d.id === String(b.id), `backup ${b.id}`);
      expectFrame(completed, ['id', 'targetName', 'sizeBytes', 'durationMs', 'status']);
      expect(completed.data).toMatchObject({ targetName: 'all', sizeBytes: String(b.sizeBytes), status: 'SUCCESS' });
      expect(completed.data.durationMs).toMatch(/^\d+$/);
    }
    // One GET of a record answers the same B the list holds.
    expect(expectBackup(await ok('GET', `/api/backups/${first.TEMPLATES!.id}`))).toEqual(first.TEMPLATES!);
    expect((await list()).total).toBe(3);
  });

  test('verify, the manifest, and the download: the blob is the archive the record describes', async () => {
    const templateFiles = filesUnder(join(dir, 'templates'));
    expect(templateFiles).toEqual(expect.arrayContaining(['Lobby/server.properties', 'Lobby/plugins/config.yml', 'global/spigot.yml']));
    const expected: Record<string, (listed: string[]) => void> = {
      TEMPLATES: (listed) => expect(listed.filter((l) => !l.endsWith('/') && l !== 'MANIFEST.sha256').sort()).toEqual(templateFiles),
      CONFIG: (listed) => expect(listed).toContain('modules/backup/backup.toml'),
      DATABASE: (listed) => expect(listed.filter((l) => !l.endsWith('/'))).toEqual(['svc.db', 'MANIFEST.sha256']),
    };
    for (const [type, b] of Object.entries(first)) {
      expect(await ok('POST', `/api/backups/${b.id}/verify`)).toEqual({ valid: true, errors: [] });

      const manifestRes = await request('GET', `/api/backups/${b.id}/manifest`);
      expect(manifestRes.status).toBe(200);
      expect(manifestRes.headers.get('content-type')).toStartWith('text/plain');
      const manifest = (await manifestRes.text()).split('\n').filter((l) => l !== '');
      for (const line of manifest) expect(line).toMatch(/^[0-9a-f]{64} {2}\S/);

      // The page: fetch with the Bearer header, then a blob saved under the attachment's name.
      const res = await fetch(`${current.url}/api/backups/${b.id}/download`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/zstd');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${basename(b.archivePath)}"`);
      expect(Number(res.headers.get('content-length'))).toBe(b.sizeBytes);
      const blob = await res.blob();
      expect(blob.size).toBe(b.sizeBytes);
      expect(sha256(await blob.arrayBuffer())).toBe(b.checksum);

      const tar = Bun.spawnSync(['bash', '-o', 'pipefail', '-c', 'zstd -dc | tar -t'], { stdin: blob });
      expect(tar.exitCode, tar.stderr.toString()).toBe(0);
      const listed = tar.stdout.toString().split('\n').filter((l) => l !== '');
      expect(listed.at(-1)).toBe('MANIFEST.sha256');
      expected[type]!(listed);
      // The manifest names exactly the archived files, each with its hash.
      expect(manifest.map((l) => l.slice(66)).sort()).toEqual(listed.filter((l) => !l.endsWith('/') && l !== 'MANIFEST.sha256').sort());
    }
    const properties = (await (await request('GET', `/api/backups/${first.TEMPLATES!.id}/manifest`)).text()).split('\n').find((l) => l.endsWith('  Lobby/server.properties'));
    expect(properties).toBe(`${sha256(readFileSync(join(dir, 'templates/Lobby/server.properties')))}  Lobby/server.properties`);
  });

  test('restore {dryRun:false, force:false} of the templates backup undoes a change (and an added file); BACKUP_RESTORED', async () => {
    const b = first.TEMPLATES!;
    const original = readFileSync(join(dir, 'templates/Lobby/server.properties'), 'utf8');
    writeFileSync(join(dir, 'templates/Lobby/server.properties'), 'motd=Changed by hand\n');
    writeFileSync(join(dir, 'templates/Lobby/notes.txt'), 'added after the backup\n');
    const answer = await ok<{ id: number; dryRun: boolean; filesExtracted: number; files: string[]; targetPath: string }>('POST', `/api/backups/${b.id}/restore`, { dryRun: false, force: false });
    expect(Object.keys(answer).sort()).toEqual(['dryRun', 'files', 'filesExtracted', 'id', 'targetPath']);
    expect(answer).toMatchObject({ id: b.id, dryRun: false, filesExtracted: 3, targetPath: 'templates' });
    expect([...answer.files].sort()).toEqual(['Lobby/plugins/config.yml', 'Lobby/server.properties', 'global/spigot.yml']);
    expect(readFileSync(join(dir, 'templates/Lobby/server.properties'), 'utf8')).toBe(original);
    expect(existsSync(join(dir, 'templates/Lobby/notes.txt'))).toBe(false);
    const restored = await frame('BACKUP_RESTORED', (d) => d.id === String(b.id), `backup ${b.id}`);
    expectFrame(restored, ['id', 'targetName', 'targetPath', 'triggeredBy']);
    expect(restored.data).toMatchObject({ targetName: 'all', targetPath: 'templates', triggeredBy: 'api:admin' });
  });

  test('the retention editor (PUT spreading the fetched config) and prune {dryRun:false} remove the older run; BACKUP_PRUNED', async () => {
    const started = await trigger(['templates', 'config', 'database']);
    for (const b of await finished(started.map((x) => x.id))) {
      expect(b.status).toBe('SUCCESS');
      second[b.targetType] = b;
    }
    // Manual backups now follow the daily budget of one per target.
    const stored = await editConfig((c) => ({ retention: { ...c.retention, keepManual: false, dailyKeep: 1 } }));
    expect(stored.retention).toEqual({ ...BACKUP_DEFAULTS.retention, keepManual: false, dailyKeep: 1 });
    expect(readFileSync(join(dir, 'config/modules/backup/backup.toml'), 'utf8')).toContain('keep_manual = false');

    const pruned = await ok<{ deleted: number; freedBytes: number; errors: string[]; dryRun: boolean }>('POST', '/api/backups/prune', { dryRun: false });
    const olderBytes = Object.values(first).reduce((sum, b) => sum + b.sizeBytes, 0);
    expect(pruned).toEqual({ deleted: 3, freedBytes: olderBytes, errors: [], dryRun: false });
    const { backups, total } = await list();
    expect(total).toBe(3);
    expect(backups.map((b) => b.id).sort((a, b) => a - b)).toEqual(Object.values(second).map((b) => b.id).sort((a, b) => a - b));
    for (const b of Object.values(first)) expect(existsSync(join(backupsDir(), b.archivePath))).toBe(false);
    for (const b of Object.values(second)) expect(existsSync(join(backupsDir(), b.archivePath))).toBe(true);
    const prunedFrame = await frame('BACKUP_PRUNED', () => true, 'the prune');
    expectFrame(prunedFrame, ['count', 'freedBytes', 'scheduleClass']);
    expect(prunedFrame.data).toEqual({ moduleId: 'backup', count: '3', freedBytes: String(olderBytes), scheduleClass: 'all' });
  });

  test('delete removes the record and its archive; the record is then 404', async () => {
    const b = second.DATABASE!;
    expect(await ok('DELETE', `/api/backups/${b.id}`)).toEqual({ success: true, message: `Backup #${b.id} deleted` });
    expect(existsSync(join(backupsDir(), b.archivePath))).toBe(false);
    const gone = await request('GET', `/api/backups/${b.id}`);
    expect(gone.status).toBe(404);
    expect((await expectErrorBody(gone)).error).toBe('BACKUP_NOT_FOUND');
    expect((await list()).total).toBe(2);
  });

  test('kill -9 while a slow templates backup is written, and a restart: the record is FAILED and no temp archive is left', async () => {
    // 32 MiB that does not compress, at zstd level 19 on one thread: seconds of work.
    mkdirSync(join(dir, 'templates/Survival/world/region'), { recursive: true });
    writeFileSync(join(dir, 'templates/Survival/world/region/r.0.0.mca'), randomBytes(16 * 1024 * 1024));
    writeFileSync(join(dir, 'templates/Survival/world/region/r.0.1.mca'), randomBytes(16 * 1024 * 1024));
    await editConfig(() => ({ compressionLevel: 19 }));

    const [running] = await trigger(['templates']);
    await waitFor(() => tempArchives().length === 1, { timeoutMs: 5000, what: 'the temp archive' });
    // What the page shows meanwhile: one job, the record RUNNING; a second "Back up now" of it is refused.
    expect((await status()).activeJobs).toBe(1);
    expect((await list()).backups.find((b) => b.id === running!.id)?.status).toBe('RUNNING');
    const again = await request('POST', '/api/backups/trigger', { targets: ['templates'], scheduleClass: 'manual' });
    expect(again.status).toBe(409);
    expect((await expectErrorBody(again)).error).toBe('BACKUP_IN_PROGRESS');

    current.child.kill('SIGKILL');
    await current.child.exited;
    expect(tempArchives()).toHaveLength(1); // killed mid-write: the half archive is on disk
    current = await startBinaryController(svc, dir, TOKEN, cleanups);

    const record = expectBackup(await ok('GET', `/api/backups/${running!.id}`));
    expect(record).toMatchObject({ status: 'FAILED', archivePath: '', checksum: '', sizeBytes: 0, errorMessage: 'the controller stopped while this backup ran' });
    expect(tempArchives()).toEqual([]);
    const s = await status();
    expect(s.activeJobs).toBe(0);
    // The finished backups are untouched, and still verify.
    for (const b of [second.TEMPLATES!, second.CONFIG!]) {
      expect(expectBackup(await ok('GET', `/api/backups/${b.id}`))).toEqual(b);
      expect(await ok('POST', `/api/backups/${b.id}/verify`)).toEqual({ valid: true, errors: [] });
    }
    expect((await ok<BackupConfig>('GET', '/api/backups/config')).compressionLevel).toBe(19);
  }, 30_000);
});
