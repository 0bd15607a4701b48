/**
 * Backup runs through a real controller: a trigger answers 201 at once with RUNNING records
 * (the reference ran synchronously), the archive lands in data/backups with its SHA-256 on the
 * record, events and audit entries follow; the database target is a consistent SQLite copy;
 * overlapping runs of one target are refused (BACKUP_IN_PROGRESS, dead in the reference); list
 * filters count what they match; manifest, download, verify (the archive checksum too), restore
 * (inside the controller's folders only, swapped in whole, refused for a changed archive, the
 * database never over data/), delete, retention with BACKUP_PRUNED, and a run a dead controller
 * left RUNNING ending FAILED at the next start.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SvcEvent } from '../../../src/events/catalogue';
import { backupModule, backupRuntimeOf } from '../../../src/modules/backup';
import type { BackupConfig } from '../../../src/modules/backup/config';
import type { BackupView } from '../../../src/modules/backup/model';
import type { BackupRuntime } from '../../../src/modules/backup/runtime';
import { expectErrorBody, readJson, startController, tempDir, waitFor, type TestController } from '../../support/controller';

const B_KEYS = ['id', 'targetType', 'targetName', 'scheduleClass', 'scheduleName', 'startedAt', 'completedAt', 'status', 'sizeBytes', 'archivePath', 'checksum', 'errorMessage', 'nodeId', 'triggeredBy'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HEX64 = /^[0-9a-f]{64}$/;

// ---------------------------------------------------------------------------------------------
// Helpers

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const sha256File = (file: string) => sha256(readFileSync(file));

/** Every regular file under `root` by relative path ('/'), with its SHA-256. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), path);
      else if (entry.isFile()) out[path] = sha256File(join(dir, entry.name));
    }
  };
  walk(root, '');
  return out;
}

function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
}

/** Unpacks an archive with the system's tar and zstd (not the module's own reader) into a new temp dir. */
function extract(archive: string): { dir: string; remove: () => void } {
  const out = tempDir('svc-backup-extract-');
  const run = Bun.spawnSync(['tar', '--zstd', '-xf', archive, '-C', out.dir]);
  if (run.exitCode !== 0) throw new Error(`tar failed: ${run.stderr.toString()}`);
  return out;
}

function flipByte(file: string): void {
  const bytes = readFileSync(file);
  const at = Math.floor(bytes.length / 2);
  bytes[at] = bytes[at]! ^ 0xff;
  writeFileSync(file, bytes);
}

/** One controller with the backup module, its runtime, the events it publishes. */
interface Rig {
  c: TestController;
  runtime: BackupRuntime;
  events: SvcEvent[];
}

async function rig(options: { dir?: string; config?: Partial<BackupConfig> } = {}): Promise<Rig> {
  const c = await startController({ modules: [backupModule], ...(options.dir ? { dir: options.dir } : {}) });
  const runtime = backupRuntimeOf(c.controller.kernel);
  // The tests start every run themselves: the real minute timer must not fire a default schedule mid-test.
  runtime.scheduler.stop();
  const events: SvcEvent[] = [];
  c.controller.kernel.bus.subscribe((e) => events.push(e));
  if (options.config) {
    const res = await c.api('/api/backups/config', { method: 'PUT', json: { ...runtime.config(), ...options.config } });
    if (res.status !== 200) throw new Error(`PUT config answered ${res.status}: ${await res.text()}`);
  }
  return { c, runtime, events };
}

const trigger = (r: Rig, json: unknown, token?: string | null) => r.c.api('/api/backups/trigger', { method: 'POST', json, token });

async function triggered(r: Rig, json: unknown): Promise<BackupView[]> {
  const res = await trigger(r, json);
  const body = await readJson(res);
  expect({ status: res.status, body }).toEqual({ status: 201, body: { backups: expect.any(Array), total: body.backups.length } });
  return body.backups as BackupView[];
}

async function getBackup(r: Rig, id: number): Promise<BackupView> {
  const res = await r.c.api(`/api/backups/${id}`);
  expect(res.status).toBe(200);
  return (await readJson(res)) as BackupView;
}

/** Triggers, waits for the background run, answers the finished records. */
async function backedUp(r: Rig, targets: string[], scheduleClass = 'manual'): Promise<BackupView[]> {
  const rows = await triggered(r, { targets, scheduleClass });
  await r.runtime.manager.settled();
  return Promise.all(rows.map((row) => getBackup(r, row.id)));
}

const archiveOf = (r: Rig, b: BackupView) => join(r.c.dir, 'data', 'backups', b.archivePath);
const eventsOf = (r: Rig, type: SvcEvent['type'], since = 0) => r.events.slice(since).filter((e) => e.type === type);

async function auditDetails(r: Rig, action: string): Promise<{ actor: string; details: string }[]> {
  const body = await readJson(await r.c.api(`/api/audit?action=${action}&limit=500`));
  return body.entries;
}

async function refused(res: Response, status: number, error: string): Promise<string> {
  const body = await expectErrorBody(res);
  expect({ status: res.status, error: body.error }).toEqual({ status, error });
  return body.message;
}

const TEMPLATE_FILES: Record<string, string | Uint8Array> = {
  'lobby/server.properties': 'motd=Welcome\nmax-players=50\n',
  'lobby/plugins/Essentials.jar': randomBytes(96 * 1024),
  'lobby/logs/latest.log': 'left out by the default excludes\n',
  'global/readme.txt': 'shared by every group\n',
};

/** The templates tree as an archive should hold it: the default excludes leave *.log out. */
const archivedTemplates = () => Object.fromEntries(Object.entries(TEMPLATE_FILES).filter(([rel]) => !rel.endsWith('.log')).map(([rel, content]) => [rel, sha256(content)]));

// ---------------------------------------------------------------------------------------------

let r: Rig;
let templates: string;

beforeAll(async () => {
  r = await rig({ config: { schedules: [{ name: 'nightly', cron: '0 3 * * *', retentionClass: 'daily', targets: ['config'] }] } });
  templates = join(r.c.dir, 'templates');
  writeTree(templates, TEMPLATE_FILES);
  writeTree(join(r.c.dir, 'config'), { 'extra/notes.txt': 'controller notes\n' });
});
afterAll(() => r.c.stop());

describe('POST /api/backups/trigger', () => {
  test('answers 201 at once with RUNNING records in the B shape; the run ends SUCCESS with a relative archive whose SHA-256 is the checksum', async () => {
    const since = r.events.length;
    const [running, ...more] = await triggered(r, { targets: ['templates'], scheduleClass: 'manual' });
    expect(more).toEqual([]);
    expect(Object.keys(running!).sort()).toEqual([...B_KEYS].sort());
    expect(running).toEqual({
      id: expect.any(Number),
      targetType: 'TEMPLATES',
      targetName: 'all',
      scheduleClass: 'manual',
      scheduleName: '',
      startedAt: expect.stringMatching(ISO),
      completedAt: null,
      status: 'RUNNING',
      sizeBytes: 0,
      archivePath: '',
      checksum: '',
      errorMessage: null,
      nodeId: 'local',
      triggeredBy: 'api:admin',
    });

    await r.runtime.manager.settled();
    const done = await getBackup(r, running!.id);
    expect(done).toMatchObject({ id: running!.id, status: 'SUCCESS', startedAt: running!.startedAt, errorMessage: null, triggeredBy: 'api:admin', nodeId: 'local' });
    expect(done.completedAt).toMatch(ISO);
    expect(Date.parse(done.completedAt!)).toBeGreaterThanOrEqual(Date.parse(done.startedAt));
    expect(done.archivePath).toEndWith('.tar.zst');
    expect(done.archivePath).not.toContain('/');
    expect(done.archivePath).not.toContain('..');
    const file = archiveOf(r, done);
    expect(done.sizeBytes).toBeGreaterThan(0);
    expect(done.sizeBytes).toBe(statSync(file).size);
    expect(done.checksum).toMatch(HEX64);
    expect(done.checksum).toBe(sha256File(file));

    // The system's tar reads it: the templates tree (excludes applied) and the manifest.
    const out = extract(file);
    try {
      const { 'MANIFEST.sha256': manifest, ...files } = snapshot(out.dir);
      expect(manifest).toMatch(HEX64);
      expect(files).toEqual(archivedTemplates());
    } finally {
      out.remove();
    }

    // Events: started, then completed, both with the caller as actor, each in the audit log.
    const started = eventsOf(r, 'BACKUP_STARTED', since);
    const completed = eventsOf(r, 'BACKUP_COMPLETED', since);
    expect(started.map((e) => ({ data: e.data, actor: e.actor }))).toEqual([
      { data: { id: String(done.id), targetType: 'TEMPLATES', targetName: 'all', triggeredBy: 'api:admin', moduleId: 'backup' }, actor: 'api:admin' },
    ]);
    expect(completed).toHaveLength(1);
    expect(completed[0]!.actor).toBe('api:admin');
    expect(completed[0]!.data).toEqual({ id: String(done.id), targetName: 'all', sizeBytes: String(done.sizeBytes), durationMs: expect.stringMatching(/^\d+$/), status: 'SUCCESS', moduleId: 'backup' });
    expect(r.events.indexOf(started[0]!)).toBeLessThan(r.events.indexOf(completed[0]!));
    for (const action of ['BACKUP_STARTED', 'BACKUP_COMPLETED']) {
      const entries = (await auditDetails(r, action)).filter((e) => e.details.startsWith(`id=${done.id},`));
      expect(entries.map((e) => e.actor)).toEqual(['api:admin']);
    }
  });

  test('the database target archives a consistent SQLite copy of the controller’s database, taken while the run was RUNNING', async () => {
    const [db] = await backedUp(r, ['database']);
    expect(db).toMatchObject({ targetType: 'DATABASE', targetName: 'all', status: 'SUCCESS' });
    expect(db!.checksum).toBe(sha256File(archiveOf(r, db!)));
    const out = extract(archiveOf(r, db!));
    try {
      expect(readdirSync(out.dir).sort()).toEqual(['MANIFEST.sha256', 'svc.db']);
      const copy = new Database(join(out.dir, 'svc.db'), { readonly: true });
      try {
        const tables = copy.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((t) => t.name);
        expect(tables).toContain('backups');
        expect(tables).toContain('audit_log');
        expect(copy.query<{ status: string }, [number]>('SELECT status FROM backups WHERE id = ?').get(db!.id)).toEqual({ status: 'RUNNING' });
        expect(copy.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      } finally {
        copy.close();
      }
    } finally {
      out.remove();
    }
    // The staging copy is gone.
    expect(readdirSync(join(r.c.dir, 'data', 'backups')).filter((n) => n.startsWith('_staging'))).toEqual([]);
  });

  test('several targets in one trigger: one RUNNING record each, in type order; a class in capitals is stored lowercase', async () => {
    const rows = await triggered(r, { targets: ['database', 'CONFIG', 'templates', 'config'], scheduleClass: 'WEEKLY' });
    expect(rows.map((b) => [b.targetType, b.scheduleClass, b.status])).toEqual([
      ['TEMPLATES', 'weekly', 'RUNNING'],
      ['CONFIG', 'weekly', 'RUNNING'],
      ['DATABASE', 'weekly', 'RUNNING'],
    ]);
    await r.runtime.manager.settled();
    for (const row of rows) expect((await getBackup(r, row.id)).status).toBe('SUCCESS');
    const config = await getBackup(r, rows[1]!.id);
    const out = extract(archiveOf(r, config));
    try {
      expect(readFileSync(join(out.dir, 'extra', 'notes.txt'), 'utf8')).toBe('controller notes\n');
      expect(existsSync(join(out.dir, 'modules', 'backup', 'backup.toml'))).toBe(true);
    } finally {
      out.remove();
    }
  });

  test('refuses an unknown target word (400), an unknown class (400), an unknown single target (404) and a stray key, storing nothing', async () => {
    const before = (await readJson(await r.c.api('/api/backups'))).total;
    const since = r.events.length;
    expect(await refused(await trigger(r, { targets: ['templates', 'worlds'] }), 400, 'VALIDATION_FAILED')).toContain('worlds');
    expect(await refused(await trigger(r, { targets: ['templates'], scheduleClass: 'yearly' }), 400, 'VALIDATION_FAILED')).toContain('yearly');
    expect(await refused(await trigger(r, { target: 'nope' }), 404, 'SERVICE_NOT_FOUND')).toContain('nope');
    await refused(await trigger(r, { targets: ['templates'], priority: 'high' }), 400, 'VALIDATION_FAILED');
    expect((await readJson(await r.c.api('/api/backups'))).total).toBe(before);
    expect(r.events.slice(since).filter((e) => e.type.startsWith('BACKUP_'))).toEqual([]);
  });

  test('is admin-level: the service token gets 403, no token 401', async () => {
    await refused(await trigger(r, { targets: ['templates'] }, r.c.service), 403, 'FORBIDDEN');
    await refused(await trigger(r, { targets: ['templates'] }, null), 401, 'UNAUTHORIZED');
    await refused(await r.c.api('/api/backups', { token: r.c.service }), 403, 'FORBIDDEN');
  });
});

describe('GET /api/backups/status and /schedules', () => {
  test('status: {activeJobs, localDestination (absolute), schedules}', async () => {
    const res = await r.c.api('/api/backups/status');
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(Object.keys(body).sort()).toEqual(['activeJobs', 'localDestination', 'schedules']);
    expect(body.activeJobs).toBe(0);
    expect(body.localDestination).toBe(join(r.c.dir, 'data', 'backups'));
    expect(body.schedules).toEqual(await readJson(await r.c.api('/api/backups/schedules')));
  });

  test('schedules: a plain array with the next run as ISO in the config’s zone, no last run yet', async () => {
    const body = await readJson(await r.c.api('/api/backups/schedules'));
    expect(Array.isArray(body)).toBe(true);
    // The config's zone is the system's (UTC here, or whatever the host says): the next 03:00 there.
    const next = new Date(body[0].nextRunAt);
    expect(body).toEqual([{ name: 'nightly', cron: '0 3 * * *', retentionClass: 'daily', targets: ['config'], lastRunAt: null, nextRunAt: expect.stringMatching(ISO), lastStatus: '' }]);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime()).toBeLessThanOrEqual(Date.now() + 86_400_000 + 3_600_000);
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: r.runtime.config().timezone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(next);
    expect(local).toBe('03:00');
  });
});

describe('manifest and download', () => {
  let b: BackupView;
  beforeAll(async () => {
    [b] = (await backedUp(r, ['templates'])) as [BackupView];
  });

  test('the manifest is text/plain in sha256sum format, one line per archived file, sorted', async () => {
    const res = await r.c.api(`/api/backups/${b.id}/manifest`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('text/plain');
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.trimEnd().split('\n');
    for (const line of lines) expect(line).toMatch(/^[0-9a-f]{64} {2}\S.*$/);
    const expected = Object.entries(archivedTemplates())
      .sort(([a], [z]) => (a < z ? -1 : 1))
      .map(([path, hash]) => `${hash}  ${path}`);
    expect(lines).toEqual(expected);
  });

  test('the download is the archive itself: application/zstd, its length, an attachment named after the file', async () => {
    const res = await r.c.api(`/api/backups/${b.id}/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zstd');
    expect(res.headers.get('content-length')).toBe(String(statSync(archiveOf(r, b)).size));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${b.archivePath}"`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.byteLength).toBe(b.sizeBytes);
    expect(sha256(bytes)).toBe(b.checksum);
  });

  test('unknown ids are 404 BACKUP_NOT_FOUND, malformed ones 400', async () => {
    for (const path of ['', '/manifest', '/download']) {
      await refused(await r.c.api(`/api/backups/999999${path}`), 404, 'BACKUP_NOT_FOUND');
    }
    await refused(await r.c.api('/api/backups/999999/verify', { method: 'POST' }), 404, 'BACKUP_NOT_FOUND');
    await refused(await r.c.api('/api/backups/999999/restore', { method: 'POST', json: { dryRun: true } }), 404, 'BACKUP_NOT_FOUND');
    await refused(await r.c.api('/api/backups/999999', { method: 'DELETE' }), 404, 'BACKUP_NOT_FOUND');
    await refused(await r.c.api('/api/backups/abc'), 400, 'VALIDATION_FAILED');
    await refused(await r.c.api('/api/backups/0'), 400, 'VALIDATION_FAILED');
  });
});

describe('POST /api/backups/{id}/verify', () => {
  test('an intact archive is {valid:true, errors:[]}; after a byte of it flips on disk it is invalid, naming the checksum', async () => {
    const [b] = (await backedUp(r, ['templates'])) as [BackupView];
    const good = await r.c.api(`/api/backups/${b.id}/verify`, { method: 'POST' });
    expect(good.status).toBe(200);
    expect(await readJson(good)).toEqual({ valid: true, errors: [] });

    flipByte(archiveOf(r, b));
    const bad = await r.c.api(`/api/backups/${b.id}/verify`, { method: 'POST' });
    expect(bad.status).toBe(200);
    const body = await readJson(bad);
    expect(body.valid).toBe(false);
    expect(body.errors.some((e: string) => /checksum/i.test(e))).toBe(true);
  });

  test('an archive gone from disk is invalid, and its manifest and download are 404 BACKUP_ARCHIVE_MISSING', async () => {
    const [b] = (await backedUp(r, ['templates'])) as [BackupView];
    rmSync(archiveOf(r, b));
    const body = await readJson(await r.c.api(`/api/backups/${b.id}/verify`, { method: 'POST' }));
    expect(body.valid).toBe(false);
    expect(body.errors.length).toBeGreaterThan(0);
    await refused(await r.c.api(`/api/backups/${b.id}/manifest`), 404, 'BACKUP_ARCHIVE_MISSING');
    await refused(await r.c.api(`/api/backups/${b.id}/download`), 404, 'BACKUP_ARCHIVE_MISSING');
  });
});

describe('POST /api/backups/{id}/restore', () => {
  const restore = (id: number, json: unknown) => r.c.api(`/api/backups/${id}/restore`, { method: 'POST', json });

  test('dryRun lists the files and writes nothing', async () => {
    const [b] = (await backedUp(r, ['templates'])) as [BackupView];
    writeTree(templates, { 'lobby/added-later.txt': 'not in the backup' });
    const before = snapshot(templates);
    const since = r.events.length;
    const res = await restore(b.id, { dryRun: true });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ id: b.id, dryRun: true, targetPath: 'templates' });
    for (const file of Object.keys(archivedTemplates())) expect(body.files).toContain(file);
    expect(body.files).not.toContain('lobby/logs/latest.log');
    expect(body.filesExtracted).toBeGreaterThanOrEqual(Object.keys(archivedTemplates()).length);
    expect(snapshot(templates)).toEqual(before);
    expect(eventsOf(r, 'BACKUP_RESTORED', since)).toEqual([]);
    rmSync(join(templates, 'lobby', 'added-later.txt'));
  });

  test('restores templates into their place: the tree is the backup’s again (an added file gone, a changed one back, a deleted one back)', async () => {
    const [b] = (await backedUp(r, ['templates'])) as [BackupView];
    const atBackup = snapshot(templates);
    writeTree(templates, { 'lobby/added-later.txt': 'not in the backup', 'lobby/server.properties': 'motd=changed\n' });
    rmSync(join(templates, 'global', 'readme.txt'));
    const since = r.events.length;

    const res = await restore(b.id, {});
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ id: b.id, dryRun: false, targetPath: 'templates' });
    expect(body.filesExtracted).toBeGreaterThanOrEqual(3);
    const { 'lobby/logs/latest.log': _excluded, ...expected } = atBackup;
    expect(snapshot(templates)).toEqual(expected);
    expect(existsSync(join(templates, 'lobby', 'added-later.txt'))).toBe(false);
    expect(readFileSync(join(templates, 'lobby', 'server.properties'), 'utf8')).toBe(TEMPLATE_FILES['lobby/server.properties'] as string);

    const restored = eventsOf(r, 'BACKUP_RESTORED', since);
    expect(restored.map((e) => ({ data: e.data, actor: e.actor }))).toEqual([
      { data: { id: String(b.id), targetName: 'all', targetPath: 'templates', triggeredBy: 'api:admin', moduleId: 'backup' }, actor: 'api:admin' },
    ]);
    expect((await auditDetails(r, 'BACKUP_RESTORED')).filter((e) => e.details.startsWith(`id=${b.id},`))).toHaveLength(1);
    // Put the excluded log file back for the tests that follow.
    writeTree(templates, { 'lobby/logs/latest.log': TEMPLATE_FILES['lobby/logs/latest.log']! });
  });

  test('restores into another folder inside the controller’s trees, leaving the live templates alone', async () => {
    const [b] = (await backedUp(r, ['templates'])) as [BackupView];
    const live = snapshot(templates);
    const res = await restore(b.id, { targetPath: 'restore/templates-copy' });
    expect(res.status).toBe(200);
    expect((await readJson(res)).targetPath).toBe('restore/templates-copy');
    expect(snapshot(join(r.c.dir, 'restore', 'templates-copy'))).toEqual(archivedTemplates());
    expect(snapshot(templates)).toEqual(live);
  });

  test('refuses a targetPath outside the controller’s folders, in data/, or a whole other root with 400 BACKUP_RESTORE_FAILED, writing nothing', async () => {
    const [b] = (await backedUp(r, ['templates'])) as [BackupView];
    const since = r.events.length;
    const absolute = join(tmpdir(), `svc-restore-outside-${randomUUID()}`);
    const sibling = `svc-restore-sibling-${randomUUID()}`;
    const configBefore = snapshot(join(r.c.dir, 'config'));
    const cases: { targetPath: string; dryRun?: boolean; mustNotExist?: string }[] = [
      { targetPath: absolute, mustNotExist: absolute },
      { targetPath: `../${sibling}`, mustNotExist: join(dirname(r.c.dir), sibling) },
      // As root a broken check would replace /etc: asked as a dry run, so even then nothing is written.
      { targetPath: '../../etc', dryRun: true },
      { targetPath: 'data', mustNotExist: join(r.c.dir, 'data', 'lobby') },
      { targetPath: 'data/restored', mustNotExist: join(r.c.dir, 'data', 'restored') },
      { targetPath: 'config' },
      { targetPath: '.', mustNotExist: join(r.c.dir, 'lobby') },
    ];
    for (const { targetPath, dryRun, mustNotExist } of cases) {
      const message = await refused(await restore(b.id, { targetPath, ...(dryRun ? { dryRun } : {}) }), 400, 'BACKUP_RESTORE_FAILED');
      expect(message.length).toBeGreaterThan(0);
      if (mustNotExist) expect(existsSync(mustNotExist)).toBe(false);
    }
    expect(snapshot(join(r.c.dir, 'config'))).toEqual(configBefore);
    expect(eventsOf(r, 'BACKUP_RESTORED', since)).toEqual([]);
  });

  test('refuses an archive changed on disk with 409 BACKUP_VERIFICATION_FAILED and leaves the target untouched', async () => {
    const [b] = (await backedUp(r, ['templates'])) as [BackupView];
    writeTree(templates, { 'lobby/added-later.txt': 'a restore would remove this' });
    const before = snapshot(templates);
    flipByte(archiveOf(r, b));
    const since = r.events.length;
    await refused(await restore(b.id, {}), 409, 'BACKUP_VERIFICATION_FAILED');
    expect(snapshot(templates)).toEqual(before);
    expect(eventsOf(r, 'BACKUP_RESTORED', since)).toEqual([]);
    rmSync(join(templates, 'lobby', 'added-later.txt'));
  });

  test('the database backup restores to restore/database, never over the live database in data/', async () => {
    const [b] = (await backedUp(r, ['database'])) as [BackupView];
    const live = join(r.c.dir, 'data', 'svc.db');
    const inode = statSync(live).ino;
    const res = await restore(b.id, {});
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ id: b.id, dryRun: false, targetPath: 'restore/database' });
    const copy = new Database(join(r.c.dir, 'restore', 'database', 'svc.db'), { readonly: true });
    try {
      expect(copy.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'backups'").get()!.n).toBe(1);
    } finally {
      copy.close();
    }
    expect(statSync(live).ino).toBe(inode);
    // The live database still works (the controller answers from it).
    expect((await r.c.api(`/api/backups/${b.id}`)).status).toBe(200);
  });
});

describe('DELETE /api/backups/{id}', () => {
  test('removes the record and its archive; the record is then 404', async () => {
    const [b] = (await backedUp(r, ['templates'])) as [BackupView];
    const file = archiveOf(r, b);
    expect(existsSync(file)).toBe(true);
    const res = await r.c.api(`/api/backups/${b.id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ success: true, message: `Backup #${b.id} deleted` });
    expect(existsSync(file)).toBe(false);
    await refused(await r.c.api(`/api/backups/${b.id}`), 404, 'BACKUP_NOT_FOUND');
    await refused(await r.c.api(`/api/backups/${b.id}`, { method: 'DELETE' }), 404, 'BACKUP_NOT_FOUND');
  });
});

describe('POST /api/backups/prune', () => {
  test('keeps hourlyKeep per target: dryRun counts, the real prune deletes the oldest and publishes BACKUP_PRUNED; manual backups stay', async () => {
    const put = await r.c.api('/api/backups/config', { method: 'PUT', json: { ...r.runtime.config(), retention: { ...r.runtime.config().retention, hourlyKeep: 1 } } });
    expect(put.status).toBe(200);
    const hourly: BackupView[] = [];
    for (let i = 0; i < 3; i++) hourly.push(...(await backedUp(r, ['templates'], 'hourly')));
    expect(hourly.map((b) => [b.scheduleClass, b.status])).toEqual([
      ['hourly', 'SUCCESS'],
      ['hourly', 'SUCCESS'],
      ['hourly', 'SUCCESS'],
    ]);
    const [oldest, middle, newest] = hourly as [BackupView, BackupView, BackupView];
    const manualBefore = (await readJson(await r.c.api('/api/backups?limit=1000'))).backups.filter((b: BackupView) => b.scheduleClass === 'manual');
    expect(manualBefore.length).toBeGreaterThan(0);

    const since = r.events.length;
    const dry = await readJson(await r.c.api('/api/backups/prune', { method: 'POST', json: { dryRun: true } }));
    expect(dry).toEqual({ deleted: 2, freedBytes: oldest.sizeBytes + middle.sizeBytes, errors: [], dryRun: true });
    for (const b of hourly) expect(existsSync(archiveOf(r, b))).toBe(true);
    expect(eventsOf(r, 'BACKUP_PRUNED', since)).toEqual([]);

    const real = await r.c.api('/api/backups/prune', { method: 'POST', json: { dryRun: false } });
    expect(real.status).toBe(200);
    expect(await readJson(real)).toEqual({ deleted: 2, freedBytes: oldest.sizeBytes + middle.sizeBytes, errors: [], dryRun: false });
    for (const gone of [oldest, middle]) {
      await refused(await r.c.api(`/api/backups/${gone.id}`), 404, 'BACKUP_NOT_FOUND');
      expect(existsSync(archiveOf(r, gone))).toBe(false);
    }
    expect((await getBackup(r, newest.id)).status).toBe('SUCCESS');
    expect(existsSync(archiveOf(r, newest))).toBe(true);
    const pruned = eventsOf(r, 'BACKUP_PRUNED', since);
    expect(pruned.map((e) => ({ data: e.data, actor: e.actor }))).toEqual([
      { data: { count: '2', freedBytes: String(oldest.sizeBytes + middle.sizeBytes), scheduleClass: 'all', moduleId: 'backup' }, actor: 'api:admin' },
    ]);
    const manualAfter = (await readJson(await r.c.api('/api/backups?limit=1000'))).backups.filter((b: BackupView) => b.scheduleClass === 'manual');
    expect(manualAfter).toEqual(manualBefore);

    // Nothing left to prune: no event.
    const again = await readJson(await r.c.api('/api/backups/prune', { method: 'POST', json: { retentionClass: 'HOURLY' } }));
    expect(again).toEqual({ deleted: 0, freedBytes: 0, errors: [], dryRun: false });
    expect(eventsOf(r, 'BACKUP_PRUNED', since)).toHaveLength(1);
  });

  test('refuses an unknown retentionClass with 400', async () => {
    await refused(await r.c.api('/api/backups/prune', { method: 'POST', json: { retentionClass: 'yearly' } }), 400, 'VALIDATION_FAILED');
  });
});

describe('GET /api/backups: filters, paging, total', () => {
  let p: Rig;
  /** What the synthetic rows are: 1005 in all, newest last inserted. */
  const counts = { lobbySuccess: 0, lobbyFailed: 0, allPartial: 0 };
  beforeAll(async () => {
    p = await rig();
    const t0 = Date.parse('2025-06-01T00:00:00Z');
    p.c.controller.kernel.db.transaction(() => {
      for (let i = 0; i < 1005; i++) {
        const kind = i % 3;
        const row = p.runtime.store.start({
          targetType: kind === 2 ? 'TEMPLATES' : 'SERVICE',
          targetName: kind === 2 ? 'all' : 'Lobby-1',
          scheduleClass: 'manual',
          scheduleName: '',
          startedAt: t0 + i * 1000,
          nodeId: 'local',
          triggeredBy: 'test',
        });
        const status = kind === 0 ? 'SUCCESS' : kind === 1 ? 'FAILED' : 'PARTIAL';
        p.runtime.store.finish(row.id, { status, completedAt: t0 + i * 1000 + 1, sizeBytes: 0, archivePath: '', archiveFile: '', checksum: '', errorMessage: status === 'SUCCESS' ? null : 'synthetic' });
        if (kind === 0) counts.lobbySuccess++;
        else if (kind === 1) counts.lobbyFailed++;
        else counts.allPartial++;
      }
    })();
  });
  afterAll(() => p.c.stop());

  const list = async (query: string) => {
    const res = await p.c.api(`/api/backups${query}`);
    expect(res.status).toBe(200);
    return (await readJson(res)) as { backups: BackupView[]; total: number };
  };

  test('the default page is 100, newest first; total counts every record', async () => {
    const body = await list('');
    expect(body.total).toBe(1005);
    expect(body.backups).toHaveLength(100);
    const starts = body.backups.map((b) => Date.parse(b.startedAt));
    expect(starts).toEqual([...starts].sort((a, z) => z - a));
  });

  test('status filters in any case; total is the filtered count', async () => {
    for (const status of ['failed', 'FAILED', 'Failed']) {
      const body = await list(`?status=${status}&limit=1000`);
      expect(body.total).toBe(counts.lobbyFailed);
      expect(body.backups).toHaveLength(counts.lobbyFailed);
      expect(new Set(body.backups.map((b) => b.status))).toEqual(new Set(['FAILED']));
    }
    expect((await list('?status=running')).total).toBe(0);
  });

  test('target filters by target name; with status both apply', async () => {
    expect((await list('?target=Lobby-1&limit=1')).total).toBe(counts.lobbySuccess + counts.lobbyFailed);
    expect((await list('?target=all&limit=1')).total).toBe(counts.allPartial);
    const both = await list('?target=Lobby-1&status=success&limit=1000');
    expect(both.total).toBe(counts.lobbySuccess);
    expect(both.backups.every((b) => b.targetName === 'Lobby-1' && b.status === 'SUCCESS')).toBe(true);
    expect(await list('?target=Nobody')).toEqual({ backups: [], total: 0 });
  });

  test('an unknown status is 400', async () => {
    await refused(await p.c.api('/api/backups?status=done'), 400, 'VALIDATION_FAILED');
  });

  test('limit is clamped to 1..1000; offset pages on; total stays the full count', async () => {
    const one = await list('?limit=0');
    expect(one.backups).toHaveLength(1);
    expect(one.total).toBe(1005);
    const negative = await list('?limit=-5');
    expect(negative.backups).toHaveLength(1);
    const max = await list('?limit=5000');
    expect(max.backups).toHaveLength(1000);
    expect(max.total).toBe(1005);
    const tail = await list('?limit=1000&offset=1000');
    expect(tail.backups).toHaveLength(5);
    expect(tail.total).toBe(1005);
    // Pages join up: the 11th of the first page is the first of the page at offset 10.
    const page = await list('?limit=10&offset=10');
    expect(page.backups[0]).toEqual(max.backups[10]!);
    expect((await list('?offset=-3&limit=2')).backups).toEqual(max.backups.slice(0, 2));
  });
});

describe('a tree bigger than one compression block', () => {
  // Its own controller: an archiver that hangs must not hold up the other tests' runs.
  let g: Rig;
  beforeAll(async () => {
    g = await rig({ config: { schedules: [] } });
  });
  afterAll(() => g.c.stop());

  test('a tree of several compression blocks (12 MiB, default workers) is archived whole: it verifies and tar reads back every byte', async () => {
    const state = join(g.c.dir, 'services', 'state');
    const big = { 'Survival-1/world/region/r.0.0.mca': randomBytes(12 * 1024 * 1024), 'Survival-1/level.dat': randomBytes(1024) };
    writeTree(state, big);
    try {
      const [running] = await triggered(g, { targets: ['state_sync'] });
      // Bounded: an archiver that loses a block never ends, and that must fail here, not hang the file.
      const ended = await waitFor(() => (g.runtime.store.get(running!.id)!.status !== 'RUNNING' ? g.runtime.store.get(running!.id) : null), {
        timeoutMs: 8_000,
        intervalMs: 25,
        what: 'the 12 MiB state_sync backup to end',
      });
      expect(ended).toMatchObject({ targetType: 'STATE_SYNC', status: 'SUCCESS', errorMessage: null });
      expect(await readJson(await g.c.api(`/api/backups/${running!.id}/verify`, { method: 'POST' }))).toEqual({ valid: true, errors: [] });
      const out = extract(join(g.c.dir, 'data', 'backups', ended.archivePath));
      try {
        const { 'MANIFEST.sha256': _manifest, ...files } = snapshot(out.dir);
        expect(files).toEqual(Object.fromEntries(Object.entries(big).map(([rel, bytes]) => [rel, sha256(bytes)])));
      } finally {
        out.remove();
      }
    } finally {
      rmSync(join(state, 'Survival-1'), { recursive: true, force: true });
    }
  }, 10_000);
});

describe('a run that takes a while', () => {
  let s: Rig;
  beforeAll(async () => {
    // zstd level 19 on incompressible bytes with one worker: seconds of work for a few MiB.
    s = await rig({ config: { compressionLevel: 19, compressionWorkers: 1, schedules: [] } });
    writeTree(join(s.c.dir, 'templates'), { 'big/a.bin': randomBytes(3 * 1024 * 1024), 'big/b.bin': randomBytes(3 * 1024 * 1024) });
  });
  afterAll(async () => {
    await s.c.stopKeepingDir();
    rmSync(s.c.dir, { recursive: true, force: true });
  });

  test('an overlapping trigger of the same target is 409 BACKUP_IN_PROGRESS; the running record cannot be deleted, verified or restored; stopping aborts it as FAILED', async () => {
    const json = { targets: ['templates'], scheduleClass: 'manual' };
    const [first, second] = await Promise.all([trigger(s, json), trigger(s, json)]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([201, 409]);
    const winner = first.status === 201 ? first : second;
    const loser = first.status === 201 ? second : first;
    expect(await refused(loser, 409, 'BACKUP_IN_PROGRESS')).toContain('templates');
    const [running] = (await readJson(winner)).backups as [BackupView];

    // A later trigger while it still runs: refused too, and nothing was stored for either refusal.
    await refused(await trigger(s, json), 409, 'BACKUP_IN_PROGRESS');
    const listed = await readJson(await s.c.api('/api/backups'));
    expect(listed.total).toBe(1);
    expect(listed.backups[0]).toMatchObject({ id: running.id, status: 'RUNNING' });
    expect((await readJson(await s.c.api('/api/backups/status'))).activeJobs).toBe(1);
    expect((await readJson(await s.c.api('/api/backups?status=Running'))).total).toBe(1);
    await refused(await s.c.api(`/api/backups/${running.id}`, { method: 'DELETE' }), 409, 'BACKUP_IN_PROGRESS');
    await refused(await s.c.api(`/api/backups/${running.id}/verify`, { method: 'POST' }), 409, 'BACKUP_IN_PROGRESS');
    await refused(await s.c.api(`/api/backups/${running.id}/restore`, { method: 'POST', json: { dryRun: true } }), 409, 'BACKUP_IN_PROGRESS');

    // Another target is not blocked by it.
    const [config] = await triggered(s, { targets: ['config'] });
    expect(config!.status).toBe('RUNNING');

    // Stopped mid-run (checked RUNNING with no await before the stop): the archive is abandoned.
    expect(s.runtime.store.get(running.id)!.status).toBe('RUNNING');
    await s.c.stopKeepingDir();
    const db = new Database(join(s.c.dir, 'data', 'svc.db'), { readonly: true });
    try {
      const row = db.query<{ status: string; error_message: string | null; archive_path: string }, [number]>('SELECT status, error_message, archive_path FROM backups WHERE id = ?').get(running.id);
      expect(row).toEqual({ status: 'FAILED', error_message: expect.stringContaining('stopping'), archive_path: '' });
    } finally {
      db.close();
    }
    expect(readdirSync(join(s.c.dir, 'data', 'backups')).filter((n) => n.startsWith('templates-'))).toEqual([]);
    expect(eventsOf(s, 'BACKUP_FAILED').map((e) => e.data.id)).toContain(String(running.id));

    // Started again on the same folder for afterAll (and the next test).
    s = await rig({ dir: s.c.dir });
  });

  test('a RUNNING record a dead controller left behind ends FAILED at the next start, and its temp files go; the PUT config survives', async () => {
    const config = s.runtime.config();
    expect(config.compressionLevel).toBe(19);
    const orphan = s.runtime.store.start({ targetType: 'CONFIG', targetName: 'all', scheduleClass: 'daily', scheduleName: 'nightly', startedAt: Date.now(), nodeId: 'local', triggeredBy: 'scheduler' });
    const backups = join(s.c.dir, 'data', 'backups');
    mkdirSync(join(backups, '_staging-db-dead'), { recursive: true });
    writeFileSync(join(backups, '_staging-db-dead', 'svc.db'), 'half a copy');
    writeFileSync(join(backups, 'config-all-daily-20250101-030000-000.tar.zst.tmp'), 'half an archive');
    expect((await getBackup(s, orphan.id)).status).toBe('RUNNING');
    await s.c.stopKeepingDir();

    s = await rig({ dir: s.c.dir });
    const after = await getBackup(s, orphan.id);
    expect(after).toMatchObject({ id: orphan.id, status: 'FAILED', archivePath: '', scheduleName: 'nightly', triggeredBy: 'scheduler' });
    expect(after.completedAt).toMatch(ISO);
    expect(after.errorMessage).toContain('stopped');
    expect(readdirSync(backups).filter((n) => n.endsWith('.tmp') || n.startsWith('_staging'))).toEqual([]);
    expect(s.runtime.config()).toEqual(config);
    expect((await readJson(await s.c.api('/api/backups?status=running'))).total).toBe(0);
  });

  test('a source folder that is missing gives a PARTIAL record with the reason, and BACKUP_COMPLETED says PARTIAL', async () => {
    rmSync(join(s.c.dir, 'templates'), { recursive: true, force: true });
    const since = s.events.length;
    const [b] = (await backedUp(s, ['templates'])) as [BackupView];
    expect(b).toMatchObject({ status: 'PARTIAL', archivePath: '', sizeBytes: 0, checksum: '' });
    expect(b.errorMessage).toStartWith('skipped:');
    expect(eventsOf(s, 'BACKUP_COMPLETED', since).map((e) => [e.data.id, e.data.status])).toEqual([[String(b.id), 'PARTIAL']]);
    await refused(await s.c.api(`/api/backups/${b.id}/download`), 404, 'BACKUP_ARCHIVE_MISSING');
    expect(await readJson(await s.c.api(`/api/backups/${b.id}/verify`, { method: 'POST' }))).toEqual({ valid: false, errors: [expect.stringContaining('no archive')] });
  });
});
