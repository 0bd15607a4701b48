/**
 * Backups that hold credentials (issue 36, item 5). Before, a dashboard session with only
 * svc.dashboard.backups.view downloaded the config and database archives: session.key (then
 * under config/) plus the sealed TOTP secrets in the database gave every player's TOTP seed.
 * Now reading such an archive (download, manifest) needs backups.manage from a session (API
 * tokens at admin level keep working); the key lives under data/auth/ and no config archive
 * carries it; a database archive carries it only when `includeAuthKey` asks for it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifest } from '../../../src/modules/backup/archive';
import { backupRuntimeOf } from '../../../src/modules/backup';
import type { BackupView } from '../../../src/modules/backup/model';
import { holdsCredentials } from '../../../src/modules/backup/sources';
import type { Kernel } from '../../../src/kernel';
import { BUILTIN_MODULES } from '../../../src/modules/builtin';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';
import { loginAs, testPlayer } from '../../support/dashboard-login';

const VIEW = 'svc.dashboard.backups.view';
const MANAGE = 'svc.dashboard.backups.manage';

let c: TestController;
let viewer: string;
let manager: string;
const byType: Record<string, BackupView> = {};

/** Backs these targets up with the master token and waits for the run to end; the records by type. */
async function backUp(targets: string[]): Promise<Record<string, BackupView>> {
  const response = await c.api('/api/backups/trigger', { method: 'POST', json: { targets } });
  expect(response.status).toBe(201);
  const { backups } = (await readJson(response)) as { backups: BackupView[] };
  await backupRuntimeOf(c.controller.kernel).manager.settled();
  const out: Record<string, BackupView> = {};
  for (const b of backups) {
    const ended = (await readJson(await c.api(`/api/backups/${b.id}`))) as BackupView;
    expect(ended.status).toBe('SUCCESS');
    out[ended.targetType] = ended;
  }
  return out;
}

const archiveOf = (b: BackupView) => join(backupRuntimeOf(c.controller.kernel).manager.destination(), b.archivePath);
const filesIn = async (b: BackupView) => ((await readManifest(archiveOf(b))) ?? '').split('\n').filter(Boolean).map((line) => line.slice(66));

beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES });
  backupRuntimeOf(c.controller.kernel).scheduler.stop();
  // A key left at the old place (a restored old config, an operator's copy) must not be archived either.
  mkdirSync(join(c.dir, 'config', 'modules', 'auth'), { recursive: true });
  writeFileSync(join(c.dir, 'config', 'modules', 'auth', 'session.key'), Buffer.alloc(32, 5));
  mkdirSync(join(c.dir, 'templates', 'Lobby'), { recursive: true });
  writeFileSync(join(c.dir, 'templates', 'Lobby', 'server.properties'), 'motd=hello\n');
  Object.assign(byType, await backUp(['config', 'database', 'templates']));
  viewer = await loginAs(c, testPlayer(81, 'BackupViewer'), [VIEW]);
  manager = await loginAs(c, testPlayer(82, 'BackupManager'), [VIEW, MANAGE]);
});
afterAll(() => c.stop());

describe('reading an archive that holds credentials', () => {
  for (const type of ['CONFIG', 'DATABASE']) {
    test(`${type.toLowerCase()}: a view-only session is refused the download and the manifest (403, the spec's error body naming ${MANAGE})`, async () => {
      const b = byType[type]!;
      for (const path of ['download', 'manifest']) {
        const refused = await c.api(`/api/backups/${b.id}/${path}`, { token: viewer });
        expect(refused.status).toBe(403);
        const body = await expectErrorBody(refused);
        expect(body.error).toBe('FORBIDDEN');
        expect(body.message).toStartWith(`Missing permission: ${MANAGE}`);
        expect(body.message).toContain('holds credentials');
      }
      // The record itself (no contents) is still the viewer's to see.
      expect((await c.api(`/api/backups/${b.id}`, { token: viewer })).status).toBe(200);
    });

    test(`${type.toLowerCase()}: a session with ${MANAGE}, and the master token, download it`, async () => {
      const b = byType[type]!;
      for (const token of [manager, c.master]) {
        const res = await c.api(`/api/backups/${b.id}/download`, { token });
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(archiveOf(b)))).toBe(true);
        expect((await c.api(`/api/backups/${b.id}/manifest`, { token })).status).toBe(200);
      }
    });
  }

  test('an archive without credentials (templates) stays readable with backups.view', async () => {
    const b = byType.TEMPLATES!;
    expect((await c.api(`/api/backups/${b.id}/download`, { token: viewer })).status).toBe(200);
    expect(await (await c.api(`/api/backups/${b.id}/manifest`, { token: viewer })).text()).toContain('Lobby/server.properties');
  });

  test('a session without backups.view is refused as before', async () => {
    const stranger = await loginAs(c, testPlayer(83, 'Stranger'));
    const denied = await c.api(`/api/backups/${byType.TEMPLATES!.id}/download`, { token: stranger });
    expect(denied.status).toBe(403);
    expect((await expectErrorBody(denied)).message).toStartWith(`Missing permission: ${VIEW}`);
  });
});

describe('where session.key goes', () => {
  test('it lives at data/auth/session.key, and no config archive carries a session.key', async () => {
    expect(readFileSync(join(c.dir, 'data', 'auth', 'session.key')).length).toBe(32);
    const files = await filesIn(byType.CONFIG!);
    expect(files).toContain('modules/auth/auth.toml');
    expect(files.filter((f) => f.endsWith('session.key'))).toEqual([]);
  });

  test('a database archive carries the key only with includeAuthKey = true', async () => {
    expect((await filesIn(byType.DATABASE!)).filter((f) => f.includes('session.key'))).toEqual([]);
    const config = await readJson(await c.api('/api/backups/config'));
    expect(config.includeAuthKey).toBe(false);
    expect((await c.api('/api/backups/config', { method: 'PUT', json: { ...config, includeAuthKey: true } })).status).toBe(200);
    try {
      const withKey = (await backUp(['database'])).DATABASE!;
      expect(await filesIn(withKey)).toContain('auth/session.key');
      // ... and that archive, key and sealed secrets together, is no view-only session's to fetch.
      expect((await c.api(`/api/backups/${withKey.id}/download`, { token: viewer })).status).toBe(403);
      expect((await c.api(`/api/backups/${withKey.id}/download`, { token: manager })).status).toBe(200);
    } finally {
      await c.api('/api/backups/config', { method: 'PUT', json: config });
    }
  });
});

describe('holdsCredentials', () => {
  /** A kernel with only what the check reads: the controller's folders. */
  function kernelAt(dir: string, templates: string): Kernel {
    return {
      dir,
      configPath: join(dir, 'svc.toml'),
      paths: { data: join(dir, 'data'), config: join(dir, 'config'), logs: join(dir, 'logs'), templates, services: join(dir, 'services'), dedicated: join(dir, 'dedicated') },
      config: { cluster: { keystore_path: 'data/cluster' } },
      apiToken: { source: 'generated', file: join(dir, 'data', 'api-token') },
      services: { get: () => undefined },
      dedicated: { get: () => undefined, directoryOf: (name: string) => join(dir, 'dedicated', name) },
      stateSync: { root: join(dir, 'services', 'state') },
    } as unknown as Kernel;
  }

  test('config and database always; another tree only when the controller’s secrets are inside it', () => {
    const usual = kernelAt('/srv/svc', '/srv/svc/templates');
    expect(holdsCredentials(usual, 'CONFIG', 'all')).toBe(true);
    expect(holdsCredentials(usual, 'DATABASE', 'all')).toBe(true);
    expect(holdsCredentials(usual, 'TEMPLATES', 'all')).toBe(false);
    expect(holdsCredentials(usual, 'SERVICE', 'Lobby-1')).toBe(false);
    expect(holdsCredentials(usual, 'STATE_SYNC', 'all')).toBe(false);
    // A templates folder set to the controller's own folder holds data/, config/ and svc.toml.
    expect(holdsCredentials(kernelAt('/srv/svc', '/srv/svc'), 'TEMPLATES', 'all')).toBe(true);
    // A sibling whose name merely starts the same is not inside.
    expect(holdsCredentials(kernelAt('/srv/svc', '/srv/svc-templates'), 'TEMPLATES', 'all')).toBe(false);
    expect(existsSync('/srv/svc')).toBe(false);
  });
});

describe('backup settings that are the operator’s', () => {
  test('a manage session changes schedules but not where archives go nor whether they carry the login key; admin does', async () => {
    const current = (await readJson(await c.api('/api/backups/config'))) as Record<string, unknown>;
    const put = (token: string | undefined, json: Record<string, unknown>) => c.api('/api/backups/config', { method: 'PUT', token, json });
    // The dashboard saves the whole form: unchanged, it passes.
    expect((await put(manager, { ...current, enabled: !current.enabled })).status).toBe(200);
    for (const change of [{ localDestination: '/etc/cron.d' }, { includeAuthKey: true }]) {
      const refused = await put(manager, { ...current, ...change });
      expect(refused.status).toBe(403);
      const body = await expectErrorBody(refused);
      expect(body.error).toBe('FORBIDDEN');
      expect(body.message).toContain(`"${Object.keys(change)[0]}"`);
    }
    const after = (await readJson(await c.api('/api/backups/config'))) as Record<string, unknown>;
    expect(after.localDestination).toBe(current.localDestination);
    expect(after.includeAuthKey).toBe(false);
    expect((await put(undefined, { ...current, includeAuthKey: true })).status).toBe(200);
    expect((await put(undefined, current)).status).toBe(200);
  });
});
