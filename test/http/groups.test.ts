import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newRecord } from '../../src/core/services/registry';
import { expectErrorBody, readJson, startController, type TestController } from '../support/controller';

let c: TestController;
const events: string[] = [];
beforeAll(async () => {
  c = await startController();
  c.controller.kernel.bus.subscribe((e) => e.type.startsWith('GROUP_') || e.type === 'CONFIG_RELOADED' ? events.push(`${e.type}:${e.data.group ?? e.data.groupsLoaded}:${e.actor}`) : undefined);
});
afterAll(() => c.stop());

const groupFile = (name: string) => join(c.dir, 'config/groups', `${name}.toml`);
const lobby = { name: 'Lobby', software: 'PAPER', version: '1.21.1', minInstances: 1, maxInstances: 3, memory: '2G' };

describe('groups', () => {
  test('create, read, list; stored as nested TOML; GROUP_CREATED with the actor', async () => {
    const res = await c.api('/api/groups', { method: 'POST', json: lobby, token: c.service });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(body.group).toMatchObject({ ...lobby, template: 'Lobby', type: 'DYNAMIC', activeInstances: 0, modIds: [], jvmOptimize: true });
    const text = readFileSync(groupFile('Lobby'), 'utf8');
    expect(text).toContain('[group.resources]\nmemory = "2G"');
    expect(await readJson(await c.api('/api/groups/Lobby'))).toEqual(body.group);
    const list = await readJson(await c.api('/api/groups'));
    expect(list.total).toBe(1);
    expect(list.groups[0].name).toBe('Lobby');
    expect(events).toContain('GROUP_CREATED:Lobby:api:service');
  });

  test('duplicates, also by case, are GROUP_ALREADY_EXISTS', async () => {
    for (const name of ['Lobby', 'lobby']) {
      const res = await c.api('/api/groups', { method: 'POST', json: { ...lobby, name } });
      expect(res.status).toBe(409);
      expect((await expectErrorBody(res)).error).toBe('GROUP_ALREADY_EXISTS');
    }
  });

  test.each([
    [{ ...lobby, name: 'bad name' }, '"name"'],
    [{ ...lobby, name: 'x'.repeat(65) }, '"name"'],
    [{ ...lobby, name: 'New', software: 'SPIGOT' }, '"software"'],
    [{ ...lobby, name: 'New', version: 'latest' }, '"version"'],
    [{ ...lobby, name: 'New', memory: '2GB' }, '"memory"'],
    [{ ...lobby, name: 'New', minInstances: 5, maxInstances: 2 }, '"minInstances" (5) must be at most "maxInstances" (2)'],
    [{ ...lobby, name: 'New', scaleThreshold: 1.5 }, '"scaleThreshold"'],
    [{ ...lobby, name: 'New', type: 'WEIRD' }, '"type"'],
    [{ ...lobby, name: 'New', template: '../etc' }, '"template"'],
    [{ ...lobby, name: 'New', software: 'CUSTOM' }, '"jarName" is required for CUSTOM'],
    [{ name: 'New', software: 'PAPER' }, '"version" is required'],
  ])('validation names the field: %j', async (json, fragment) => {
    const res = await c.api('/api/groups', { method: 'POST', json });
    expect(res.status).toBe(400);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.message).toContain(fragment);
    expect(existsSync(groupFile('New'))).toBe(false);
  });

  test('replace keeps the name immutable; unknown group is GROUP_NOT_FOUND', async () => {
    const ok = await c.api('/api/groups/Lobby', { method: 'PUT', json: { ...lobby, maxInstances: 6 } });
    expect(ok.status).toBe(200);
    expect((await readJson(ok)).group.maxInstances).toBe(6);
    expect(readFileSync(groupFile('Lobby'), 'utf8')).toContain('max_instances = 6');
    const renamed = await c.api('/api/groups/Lobby', { method: 'PUT', json: { ...lobby, name: 'Hub' } });
    expect(renamed.status).toBe(400);
    expect((await expectErrorBody(renamed)).message).toContain('cannot change');
    for (const [method, path] of [['GET', '/api/groups/Nope'], ['PUT', '/api/groups/Nope'], ['DELETE', '/api/groups/Nope']] as const) {
      const res = await c.api(path, { method, json: method === 'PUT' ? { ...lobby, name: 'Nope' } : undefined });
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).error).toBe('GROUP_NOT_FOUND');
    }
    expect(events).toContain('GROUP_UPDATED:Lobby:api:admin');
  });

  test('API → disk → reload → API is byte-stable', async () => {
    const before = readFileSync(groupFile('Lobby'), 'utf8');
    const viewBefore = await readJson(await c.api('/api/groups/Lobby'));
    const report = await readJson(await c.api('/api/reload', { method: 'POST' }));
    expect(report.groupsLoaded).toBe(1);
    expect(readFileSync(groupFile('Lobby'), 'utf8')).toBe(before);
    expect(await readJson(await c.api('/api/groups/Lobby'))).toEqual(viewBefore);
  });

  test('reload: hand edits load, broken files are skipped by name and never overwritten', async () => {
    mkdirSync(join(c.dir, 'config/groups'), { recursive: true });
    writeFileSync(groupFile('Proxy'), '[group]\nsoftware = "VELOCITY"\nversion = "3.3.0"\n');
    const broken = '[group]\nsoftware = "PAPER"\nversion = "1.21"\n[group.scaling]\nmin_instances = "x"\n';
    writeFileSync(groupFile('Broken'), broken);
    writeFileSync(groupFile('Lobby'), readFileSync(groupFile('Lobby'), 'utf8').replace('max_instances = 6', 'max_instances = 8'));
    events.length = 0;
    const res = await c.api('/api/reload', { method: 'POST' });
    expect(res.status).toBe(200);
    const report = await readJson(res);
    expect(report).toMatchObject({ success: true, groupsLoaded: 2 });
    expect(report.requiresRestartIfChanged).toEqual(['api', 'database', 'cluster', 'audit', 'metrics', 'controller', 'network', 'loadbalancer', 'punishments', 'resourcepacks', 'dashboard', 'console']);
    expect(report.sections.slice(0, 2)).toEqual([
      { name: 'groups', scope: 'LIVE', applied: true, description: '2 group file(s) loaded from config/groups/, 1 skipped' },
      { name: 'templates', scope: 'NEXT_SERVICE_PREPARE', applied: true, description: 'template files are read when the next service is prepared' },
    ]);
    expect(report.warnings.join('\n')).toContain('Broken.toml: [group.scaling] min_instances');
    expect(events).toEqual(['GROUP_UPDATED:Lobby:api:admin', 'GROUP_CREATED:Proxy:api:admin', 'CONFIG_RELOADED:2:api:admin']);
    expect((await readJson(await c.api('/api/groups/Lobby'))).maxInstances).toBe(8);
    // The broken file blocks its name and is left exactly as it was.
    const clash = await c.api('/api/groups', { method: 'POST', json: { ...lobby, name: 'Broken' } });
    expect(clash.status).toBe(409);
    expect((await expectErrorBody(clash)).message).toContain('cannot be loaded');
    expect(readFileSync(groupFile('Broken'), 'utf8')).toBe(broken);
  });

  test('reload reports svc.toml changes: hot keys live, the rest need a restart', async () => {
    const file = join(c.dir, 'svc.toml');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, `${original.replace('rate_limit = 0', 'rate_limit = 5')}\n[network]\nname = "Reloaded"\n`);
    try {
      const report = await readJson(await c.api('/api/reload', { method: 'POST' }));
      expect(report.sections).toContainEqual({ name: 'network.name', scope: 'LIVE', applied: true, description: 'now "Reloaded"' });
      expect(report.sections).toContainEqual({ name: 'api', scope: 'REQUIRES_RESTART', applied: false, description: 'changed on disk: rate_limit; restart svc to apply' });
      expect((await readJson(await c.api('/api/config'))).networkName).toBe('Reloaded');
      writeFileSync(file, '[api\n');
      const broken = await readJson(await c.api('/api/reload', { method: 'POST' }));
      expect(broken.success).toBe(true);
      expect(broken.warnings.join('\n')).toContain('svc.toml not reloaded');
    } finally {
      writeFileSync(file, original);
    }
  });

  test('delete removes the file and publishes GROUP_DELETED; 409 while instances run', async () => {
    c.controller.kernel.services.add({ ...newRecord({ name: 'Proxy-1', group: 'Proxy', port: 25565, workDir: '/tmp/x', isStatic: false, isProxy: true, memoryMaxMb: 1408, restartCount: 0 }), state: 'READY' });
    const refused = await c.api('/api/groups/Proxy', { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect((await expectErrorBody(refused)).error).toBe('GROUP_HAS_RUNNING_INSTANCES');
    const proxy = await c.api('/api/groups/Proxy');
    const proxyText = await proxy.text();
    expect(proxyText).toContain('"activeInstances":1');
    c.controller.kernel.services.remove('Proxy-1');
    const res = await c.api('/api/groups/Proxy', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(existsSync(groupFile('Proxy'))).toBe(false);
    expect(events).toContain('GROUP_DELETED:Proxy:api:admin');
  });

  test('modIds come from the jars in the template mods/ folders', async () => {
    const { zipSync, strToU8 } = await import('fflate');
    const mods = join(c.dir, 'templates/Modded/mods');
    mkdirSync(mods, { recursive: true });
    writeFileSync(join(mods, 'a.jar'), zipSync({ 'fabric.mod.json': strToU8(JSON.stringify({ id: 'lithium', version: '1' })) }));
    writeFileSync(join(mods, 'b.jar'), zipSync({ 'META-INF/mods.toml': strToU8('modLoader="javafml"\n[[mods]]\nmodId="create"\n') }));
    const res = await c.api('/api/groups', { method: 'POST', json: { name: 'Modded', software: 'FABRIC', version: '1.21.1', modloaderVersion: '0.16.0' } });
    expect((await readJson(res)).group.modIds).toEqual(['create', 'lithium']);
  });
});
