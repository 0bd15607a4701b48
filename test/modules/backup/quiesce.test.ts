/**
 * Backups of a running game server (REFERENCE-MODULES §6 "Run", step 3): a real flying-squid
 * server runs as a CUSTOM group instance under an in-process controller; a `services` backup
 * writes `save-off` and `save-all flush` to its console, waits `quiesceWaitSeconds`, archives
 * its folder, and writes `save-on` afterwards, also when the archive fails. A service on another
 * node is recorded PARTIAL with the reason, and nothing is sent to it.
 *
 * How the console is observed: flying-squid is started through a small wrapper (written into a
 * temp folder by this test) that appends every byte arriving on stdin to `console-input.txt`
 * in the service's folder, then loads test/fixtures/flying-squid-server.ts, whose readline
 * reads the same stdin and answers each line (these three commands are unknown to flying-squid:
 * it logs "Command not found" and keeps running, which is all that is asked of it here).
 *
 * How the remote service is made: no agent is started; a ServiceRecord with nodeId `agent-1`
 * is added to `kernel.services` (src/core/services/registry.ts, as the cluster code registers
 * a service an agent runs) and removed again after the test.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, relative } from 'node:path';
import { pingServer } from '../../../src/core/net/server-list-ping';
import { newRecord } from '../../../src/core/services/registry';
import { backupModule } from '../../../src/modules/backup';
import type { BackupConfig } from '../../../src/modules/backup/config';
import { expectErrorBody, readJson, startController, tempDir, waitFor, type TestController } from '../../support/controller';

const FLYING_SQUID = join(import.meta.dir, '../../fixtures/flying-squid-server.ts');
const SERVICE = 'Squid-1';

/** The wrapper: records the console, then runs the flying-squid fixture in the same process (same argv). */
const WRAPPER_SOURCE = `import { appendFileSync } from 'node:fs';
// Every byte the controller writes to the console, in arrival order, in the service's own folder.
process.stdin.on('data', (chunk) => appendFileSync('console-input.txt', chunk));
await import(${JSON.stringify(FLYING_SQUID)});
`;

interface Backup {
  id: number;
  targetType: string;
  targetName: string;
  status: string;
  sizeBytes: number;
  archivePath: string;
  checksum: string;
  errorMessage: string | null;
  nodeId: string;
}

let c: TestController;
let removeWrapper: () => void;
let workDir: string;
let port: number;
const events: { type: string; data: Record<string, string> }[] = [];

const destination = () => join(c.dir, 'data/backups');
const consoleInput = (): string[] => {
  const file = join(workDir, 'console-input.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : [];
};
const notFoundAnswers = async (): Promise<number> => {
  const body = await readJson(await c.api(`/api/services/${SERVICE}/logs?source=stdout&lines=1000`));
  return (body.lines as string[]).filter((l) => l.includes('Command not found')).length;
};
const stateOf = async (name: string): Promise<string> => (await readJson(await c.api(`/api/services/${name}`))).state;

async function putConfig(change: Partial<BackupConfig>): Promise<void> {
  const current = (await readJson(await c.api('/api/backups/config'))) as BackupConfig;
  const res = await c.api('/api/backups/config', { method: 'PUT', json: { ...current, ...change } });
  expect(res.status).toBe(200);
}

/** Triggers a backup of services (all, or the one named) and returns its records once the run has ended. */
async function backUpServices(target?: string): Promise<{ started: Backup[]; ended: Backup[] }> {
  const res = await c.api('/api/backups/trigger', { method: 'POST', json: { targets: ['services'], scheduleClass: 'manual', ...(target ? { target } : {}) } });
  expect(res.status).toBe(201);
  const started = (await readJson(res)).backups as Backup[];
  const ended: Backup[] = [];
  for (const b of started) ended.push(await ending(b.id));
  return { started, ended };
}

/** The record once it is no longer RUNNING (bounded: a run that never ends fails here, by name). */
function ending(id: number): Promise<Backup> {
  return waitFor(
    async () => {
      const record = (await readJson(await c.api(`/api/backups/${id}`))) as Backup;
      return record.status === 'RUNNING' ? undefined : record;
    },
    { timeoutMs: 15_000, intervalMs: 25, what: `backup ${id} to end` },
  );
}

function tarList(archive: string): string[] {
  const listed = Bun.spawnSync(['tar', '--zstd', '-tf', archive]);
  expect(listed.exitCode).toBe(0);
  return listed.stdout.toString().split('\n').filter((l) => l !== '');
}

/** Regular files under `dir`, relative, '/' separated. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((rel) => statSync(join(dir, rel)).isFile())
    .map((rel) => relative(dir, join(dir, rel)).split('\\').join('/'))
    .sort();
}

beforeAll(async () => {
  c = await startController({
    modules: [backupModule],
    timing: { stopTimeoutMs: 10_000, readyTimeoutMs: 30_000, drainPollMs: 20, restart: { baseDelayMs: 10, maxDelayMs: 50, loopThreshold: 10, loopWindowMs: 60_000, stableAfterMs: 600_000 } },
  });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
  // No schedules (nothing fires on its own during the test); a one-second pause after the flush.
  await putConfig({ schedules: [], quiesceWaitSeconds: 1, compressionLevel: 1 });

  const wrapper = tempDir('svc-squid-wrapper-');
  removeWrapper = wrapper.remove;
  const script = join(wrapper.dir, 'recording-squid.ts');
  writeFileSync(script, WRAPPER_SOURCE);

  // The group's template: what a world folder and a properties file look like on disk.
  mkdirSync(join(c.dir, 'templates/Squid/world/region'), { recursive: true });
  writeFileSync(join(c.dir, 'templates/Squid/server.properties'), 'motd=squid\nview-distance=2\n');
  writeFileSync(join(c.dir, 'templates/Squid/world/level.dat'), randomBytes(2048));
  writeFileSync(join(c.dir, 'templates/Squid/world/region/r.0.0.mca'), randomBytes(64 * 1024));

  const group = {
    name: 'Squid',
    software: 'CUSTOM',
    version: '1.21.4',
    jarName: 'server.jar',
    startCommand: [process.execPath, script, '--port', '{port}', '--motd', 'svc {name}', '--version', '1.21.4'],
    readyPattern: 'Server listening on port',
    minInstances: 0,
    maxInstances: 1,
    memory: '512M',
  };
  expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  const started = await c.api('/api/services/Squid/start', { method: 'POST' });
  expect(started.status).toBe(201);
  port = (await readJson(started)).service.port;
  await waitFor(async () => (await stateOf(SERVICE)) === 'READY', { timeoutMs: 30_000, intervalMs: 50, what: `${SERVICE} READY` });
  workDir = c.controller.kernel.services.get(SERVICE)!.workDir;
}, 60_000);

afterAll(async () => {
  await c.stop();
  removeWrapper();
}, 30_000);

describe('backing up a running flying-squid server', () => {
  test('save-off and save-all flush reach its console before the archive, save-on after; the record is SUCCESS and holds its files', async () => {
    const answersBefore = await notFoundAnswers();
    const { started, ended } = await backUpServices();
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ targetType: 'SERVICE', targetName: SERVICE, status: 'RUNNING' });
    const record = ended[0]!;
    // (errorMessage is not checked: the supervisor's stdin FIFO in <workDir>/.svc is counted as a skipped special file.)
    expect(record).toMatchObject({ status: 'SUCCESS', nodeId: 'local' });
    expect(record.sizeBytes).toBeGreaterThan(0);
    expect(record.checksum).toMatch(/^[0-9a-f]{64}$/);

    // The console, in order: the pause, then (after the archive) the resume.
    await waitFor(() => consoleInput().length >= 3, { what: 'three console lines' });
    expect(consoleInput()).toEqual(['save-off', 'save-all flush', 'save-on']);

    const archive = join(destination(), record.archivePath);
    const listed = tarList(archive);
    // Every file of the server's own (the supervisor's .svc state folder aside, whether archived or not).
    const archivedFiles = listed.filter((l) => !l.endsWith('/') && l !== 'MANIFEST.sha256' && !l.startsWith('.svc/')).sort();
    expect(archivedFiles).toEqual(filesUnder(workDir).filter((f) => !f.startsWith('.svc/')));
    expect(archivedFiles).toEqual(expect.arrayContaining(['server.properties', 'world/level.dat', 'world/region/r.0.0.mca', 'console-input.txt']));
    expect(listed).toContain('world/');
    expect(listed.at(-1)).toBe('MANIFEST.sha256');
    // The archived console shows what the server had been told when its files were read: paused, not yet resumed.
    const archivedConsole = Bun.spawnSync(['tar', '--zstd', '-xOf', archive, 'console-input.txt']);
    expect(archivedConsole.stdout.toString()).toBe('save-off\nsave-all flush\n');
    const levelDat = Bun.spawnSync(['tar', '--zstd', '-xOf', archive, 'world/level.dat']);
    expect(Buffer.compare(levelDat.stdout, readFileSync(join(workDir, 'world/level.dat')))).toBe(0);

    // flying-squid read each line itself (it answers unknown commands) and is still serving.
    await waitFor(async () => (await notFoundAnswers()) === answersBefore + 3, { what: 'flying-squid answering the three commands', intervalMs: 50 });
    expect(await stateOf(SERVICE)).toBe('READY');
    expect(await pingServer('127.0.0.1', port, { timeoutMs: 3000 })).toMatchObject({ description: { text: `svc ${SERVICE}` } });

    const id = String(record.id);
    expect(events.filter((e) => e.data.id === id).map((e) => e.type)).toEqual(['BACKUP_STARTED', 'BACKUP_COMPLETED']);
    expect(events.find((e) => e.type === 'BACKUP_COMPLETED' && e.data.id === id)!.data).toMatchObject({ targetName: SERVICE, status: 'SUCCESS', sizeBytes: String(record.sizeBytes) });
  }, 30_000);

  test('save-on is sent when the archive fails (the backup folder vanishes while it is written); the record is FAILED', async () => {
    // A slow archive (incompressible data at level 19 on one thread) leaves time to take the folder away.
    writeFileSync(join(workDir, 'world/region/r.1.0.mca'), randomBytes(6 * 1024 * 1024));
    await putConfig({ compressionLevel: 19, compressionWorkers: 1 });
    const linesBefore = consoleInput().length;
    const res = await c.api('/api/backups/trigger', { method: 'POST', json: { targets: ['services'], scheduleClass: 'manual' } });
    expect(res.status).toBe(201);
    const [running] = (await readJson(res)).backups as Backup[];
    // The temp archive appears once the pause is over and the archive is being written: the disk goes away under it.
    await waitFor(() => existsSync(destination()) && readdirSync(destination()).some((f) => f.endsWith('.tar.zst.tmp')), { timeoutMs: 10_000, what: 'the temp archive' });
    rmSync(destination(), { recursive: true, force: true });

    const record = await ending(running!.id);
    expect(record).toMatchObject({ status: 'FAILED', archivePath: '', checksum: '', sizeBytes: 0 });
    expect(record.errorMessage).toContain('ENOENT');
    expect(events.find((e) => e.type === 'BACKUP_FAILED' && e.data.id === String(record.id))?.data.reason).toBe(record.errorMessage!);

    await waitFor(() => consoleInput().length >= linesBefore + 3, { what: 'three more console lines' });
    expect(consoleInput().slice(linesBefore)).toEqual(['save-off', 'save-all flush', 'save-on']);
    expect(await stateOf(SERVICE)).toBe('READY');
    expect(await pingServer('127.0.0.1', port, { timeoutMs: 3000 })).toMatchObject({ description: { text: `svc ${SERVICE}` } });
    // Nothing half-written was left anywhere: the folder is still gone (no temp file recreated it).
    expect(existsSync(destination())).toBe(false);
    rmSync(join(workDir, 'world/region/r.1.0.mca'));
    await putConfig({ compressionLevel: 1, compressionWorkers: 0 });
  }, 30_000);

  test('a service on another node is recorded PARTIAL with the reason; no console line goes anywhere', async () => {
    const kernel = c.controller.kernel;
    kernel.services.add({
      ...newRecord({ name: 'Far-1', group: 'Far', port: 25570, workDir: join(c.dir, 'services/Far-1'), isStatic: false, isProxy: false, memoryMaxMb: 1024, restartCount: 0 }),
      state: 'READY',
      nodeId: 'agent-1',
      host: '10.0.0.2',
    });
    try {
      const linesBefore = consoleInput().length;
      const { started, ended } = await backUpServices('Far-1');
      expect(started.map((b) => b.targetName)).toEqual(['Far-1']);
      expect(ended[0]).toMatchObject({ targetType: 'SERVICE', targetName: 'Far-1', status: 'PARTIAL', sizeBytes: 0, archivePath: '', checksum: '' });
      expect(ended[0]!.errorMessage).toBe('skipped: runs on node agent-1; its files are on that machine');
      expect(events.find((e) => e.type === 'BACKUP_COMPLETED' && e.data.id === String(ended[0]!.id))?.data.status).toBe('PARTIAL');
      expect(consoleInput()).toHaveLength(linesBefore);

      // Both together: the local one is archived, the remote one skipped, each its own record.
      const both = await backUpServices();
      expect(both.ended.map((b) => [b.targetName, b.status])).toEqual([
        ['Far-1', 'PARTIAL'],
        [SERVICE, 'SUCCESS'],
      ]);
      // A download of the skipped one says why there is nothing.
      const download = await c.api(`/api/backups/${ended[0]!.id}/download`);
      expect(download.status).toBe(404);
      expect((await expectErrorBody(download)).error).toBe('BACKUP_ARCHIVE_MISSING');
    } finally {
      kernel.services.remove('Far-1');
    }
  }, 30_000);
});
