import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GROUP_FIELDS } from '../../src/core/groups/model';
import type { GroupView } from '../../src/core/groups/view';
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
    // Read once before: the answer is cached, and the reload must make it anew.
    expect((await readJson(await c.api('/api/config'))).networkName).not.toBe('Reloaded');
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

/** Every field away from its default (placement on a node no cluster has: nothing starts). */
const full = {
  name: 'Full',
  type: 'STATIC',
  template: 'fulltpl',
  templates: ['base', 'fulltpl'],
  software: 'FABRIC',
  version: '1.21.4',
  modloaderVersion: '0.16.9',
  jarName: 'fabric-server.jar',
  readyPattern: 'Done \\(\\d+',
  javaPath: '/opt/java21/bin/java',
  startCommand: ['java', '-jar', 'fabric-server.jar'],
  memory: '3G',
  maxPlayers: 77,
  minInstances: 0,
  maxInstances: 9,
  playersPerInstance: 33,
  scaleThreshold: 0.65,
  idleTimeout: 120,
  warmPoolSize: 2,
  stopOnEmpty: true,
  restartOnCrash: false,
  maxRestarts: 9,
  drainTimeout: 45,
  deployOnStop: true,
  deployExcludes: ['logs'],
  jvmArgs: ['-Xss1M'],
  jvmOptimize: false,
  placementNode: 'node-9',
  placementFallback: 'fail',
  syncEnabled: true,
  syncExcludes: ['cache'],
};

type View = GroupView;
const definitionOf = (view: View): Record<string, unknown> => Object.fromEntries(Object.keys(GROUP_FIELDS).map((key) => [key, view[key as keyof View]]));

/** The detail page's Save body, built from the loaded group as the page does (nested reads). */
const detailPageBody = (g: View, edits: Record<string, unknown> = {}) => ({
  name: g.name,
  type: g.type,
  template: g.template,
  software: g.software,
  version: g.version,
  memory: g.resources.memory,
  maxPlayers: g.resources.maxPlayers,
  minInstances: g.scaling.minInstances,
  maxInstances: g.scaling.maxInstances,
  playersPerInstance: g.scaling.playersPerInstance,
  scaleThreshold: g.scaling.scaleThreshold,
  idleTimeout: g.scaling.idleTimeout,
  stopOnEmpty: g.lifecycle.stopOnEmpty,
  restartOnCrash: g.lifecycle.restartOnCrash,
  maxRestarts: g.lifecycle.maxRestarts,
  jvmOptimize: g.jvmOptimize,
  ...edits,
});
/** The edit dialog's Save body: the same plus jvmArgs and a docker object svc does not know. */
const editDialogBody = (g: View, edits: Record<string, unknown> = {}) => ({
  ...detailPageBody(g),
  jvmArgs: g.jvmArgs,
  docker: { enabled: false, memoryLimit: '', cpuLimit: 0, javaImage: '', network: '' },
  ...edits,
});

describe('the dashboard view and partial updates', () => {
  const get = async (name: string): Promise<View> => readJson(await c.api(`/api/groups/${name}`));
  const put = (name: string, json: unknown) => c.api(`/api/groups/${name}`, { method: 'PUT', json });

  beforeAll(async () => {
    const res = await c.api('/api/groups', { method: 'POST', json: full });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    for (const name of ['Full', 'Launcher', 'BedWars']) await c.api(`/api/groups/${name}`, { method: 'DELETE' });
  });

  test('the fixture covers every field with a non-default value', () => {
    const values: Record<string, unknown> = full;
    for (const [key, field] of Object.entries(GROUP_FIELDS)) expect({ key, value: values[key] }).not.toEqual({ key, value: field.default });
  });

  test('views carry the flat fields and the nested objects, with their JSON types', async () => {
    const g = await get('Full');
    expect(definitionOf(g)).toEqual(full);
    expect(g.resources).toEqual({ memory: '3G', maxPlayers: 77 });
    expect(g.scaling).toEqual({ minInstances: 0, maxInstances: 9, playersPerInstance: 33, scaleThreshold: 0.65, idleTimeout: 120 });
    expect(g.lifecycle).toEqual({ stopOnEmpty: true, restartOnCrash: false, maxRestarts: 9 });
    expect(g.static).toBe(true);
    const types = (o: object) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v]));
    expect(types(g.resources)).toEqual({ memory: 'string', maxPlayers: 'number' });
    expect(types(g.scaling)).toEqual({ minInstances: 'number', maxInstances: 'number', playersPerInstance: 'number', scaleThreshold: 'number', idleTimeout: 'number' });
    expect(types(g.lifecycle)).toEqual({ stopOnEmpty: 'boolean', restartOnCrash: 'boolean', maxRestarts: 'number' });
    // The same shape in the list and in the mutation answers.
    const list = await readJson(await c.api('/api/groups'));
    expect(list.groups.find((x: View) => x.name === 'Full')).toEqual(g);
    const lobby = list.groups.find((x: View) => x.name === 'Lobby');
    expect(lobby).toMatchObject({ type: 'DYNAMIC', static: false, resources: { memory: lobby.memory, maxPlayers: lobby.maxPlayers } });
    const answer = await readJson(await put('Full', {}));
    expect(answer.group).toEqual(g);
  });

  test("the detail page's Save keeps every field it does not send, and the file stays byte-stable", async () => {
    const file = readFileSync(groupFile('Full'), 'utf8');
    const before = await get('Full');
    const unchanged = await put('Full', detailPageBody(before));
    expect(unchanged.status).toBe(200);
    expect(readFileSync(groupFile('Full'), 'utf8')).toBe(file);
    const res = await put('Full', detailPageBody(before, { maxPlayers: 88, idleTimeout: 60, stopOnEmpty: false }));
    expect(res.status).toBe(200);
    const after = await get('Full');
    expect((await readJson(res)).group).toEqual(after);
    expect(definitionOf(after)).toEqual({ ...full, maxPlayers: 88, idleTimeout: 60, stopOnEmpty: false });
    expect(after.resources.maxPlayers).toBe(88);
    expect(readFileSync(groupFile('Full'), 'utf8')).toContain('[group.resources]\nmemory = "3G"\nmax_players = 88');
  });

  test("the edit dialog's Save (jvmArgs, an unknown docker object) keeps the rest", async () => {
    const before = await get('Full');
    const res = await put('Full', editDialogBody(before, { jvmArgs: ['-Xss2M', '-Dfoo=1'], type: 'DYNAMIC' }));
    expect(res.status).toBe(200);
    const after = await get('Full');
    expect(definitionOf(after)).toEqual({ ...definitionOf(before), jvmArgs: ['-Xss2M', '-Dfoo=1'], type: 'DYNAMIC' });
    expect(after.static).toBe(false);
    expect(after).not.toHaveProperty('docker');
    expect(readFileSync(groupFile('Full'), 'utf8')).not.toContain('docker');
  });

  test('a body with one field changes that field only (every field round-trips)', async () => {
    expect((await put('Full', full)).status).toBe(200);
    expect(definitionOf(await get('Full'))).toEqual(full);
    const changes: Record<string, unknown> = {
      type: 'LOBBY',
      template: 'othertpl',
      templates: [],
      software: 'PAPER',
      version: '1.21.1',
      modloaderVersion: '',
      jarName: 'paper.jar',
      readyPattern: 'Done',
      javaPath: '/usr/bin/java',
      startCommand: [],
      memory: '1G',
      maxPlayers: 50,
      minInstances: 1,
      maxInstances: 4,
      playersPerInstance: 40,
      scaleThreshold: 0.8,
      idleTimeout: 0,
      warmPoolSize: 0,
      stopOnEmpty: false,
      restartOnCrash: true,
      maxRestarts: 5,
      drainTimeout: 30,
      deployOnStop: false,
      deployExcludes: ['logs', 'crash-reports'],
      jvmArgs: [],
      jvmOptimize: true,
      placementNode: '',
      placementFallback: 'wait',
      syncEnabled: false,
      syncExcludes: [],
    };
    expect(Object.keys(changes).sort()).toEqual(Object.keys(GROUP_FIELDS).filter((k) => k !== 'name').sort());
    let expected = definitionOf(await get('Full'));
    for (const [key, value] of Object.entries(changes)) {
      const res = await put('Full', { [key]: value });
      expect({ key, status: res.status }).toEqual({ key, status: 200 });
      expected = { ...expected, [key]: value };
      expect(definitionOf(await get('Full'))).toEqual(expected);
    }
  });

  test('"" unsets the optional strings whose default is ""; memory "" keeps the current value', async () => {
    expect((await put('Full', full)).status).toBe(200);
    const res = await put('Full', { jarName: '', readyPattern: '', javaPath: '', modloaderVersion: '', placementNode: '', template: '', memory: '' });
    expect(res.status).toBe(200);
    expect(definitionOf((await readJson(res)).group)).toEqual({ ...full, jarName: '', readyPattern: '', javaPath: '', modloaderVersion: '', placementNode: '', template: 'Full' });
  });

  test('nested objects are accepted too; a flat field given beside them wins', async () => {
    const res = await put('Full', { resources: { memory: '6G', maxPlayers: 12 }, scaling: { idleTimeout: 5, maxInstances: 3 }, lifecycle: { maxRestarts: 2 }, maxPlayers: 13 });
    expect(res.status).toBe(200);
    expect((await readJson(res)).group).toMatchObject({ memory: '6G', maxPlayers: 13, idleTimeout: 5, maxInstances: 3, maxRestarts: 2, resources: { memory: '6G', maxPlayers: 13 } });
  });

  test('a CUSTOM group launched by startCommand stays editable from the dashboard', async () => {
    const created = await c.api('/api/groups', { method: 'POST', json: { name: 'Launcher', software: 'CUSTOM', version: '1.21.4', minInstances: 0, startCommand: ['sh', '-c', 'exec sleep 1000'] } });
    expect(created.status).toBe(201);
    const g = await get('Launcher');
    for (const body of [detailPageBody(g, { maxPlayers: 20 }), editDialogBody(g, { maxRestarts: 1 })]) {
      const res = await put('Launcher', body);
      expect(res.status).toBe(200);
      expect((await readJson(res)).group.startCommand).toEqual(['sh', '-c', 'exec sleep 1000']);
    }
    // Leaving it with neither is still refused, on the merged result.
    const refused = await put('Launcher', { startCommand: [] });
    expect(refused.status).toBe(400);
    expect((await expectErrorBody(refused)).message).toContain('"jarName" is required for CUSTOM');
  });

  test("POST takes the dashboard's create body (modloaderVersion \"\"); memory \"\" is the default", async () => {
    const res = await c.api('/api/groups', { method: 'POST', json: { name: 'BedWars', type: 'DYNAMIC', template: 'bedwars', software: 'PAPER', version: '1.21.4', modloaderVersion: '', memory: '', minInstances: 0, maxInstances: 4 } });
    expect(res.status).toBe(201);
    const { group } = await readJson(res);
    expect(group).toMatchObject({ name: 'BedWars', template: 'bedwars', modloaderVersion: '', memory: '1G', resources: { memory: '1G', maxPlayers: 50 }, static: false });
  });

  test.each([
    ['a bad memory', { memory: 'lots' }, 'body "memory" must be'],
    ['minInstances above the current maxInstances (after the merge)', { minInstances: 10 }, '"minInstances" (10) must be at most "maxInstances"'],
    ['a bad nested value', { scaling: { scaleThreshold: 2 } }, '"scaling.scaleThreshold"'],
    ['a broken ready pattern', { readyPattern: 'Done (' }, '"readyPattern"'],
    ['another name', { name: 'Other' }, 'cannot change'],
  ])('400 VALIDATION_FAILED naming the field: %s; nothing changes', async (_what, json, fragment) => {
    expect((await put('Full', full)).status).toBe(200);
    const before = readFileSync(groupFile('Full'), 'utf8');
    const res = await put('Full', json);
    expect(res.status).toBe(400);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.message).toContain(fragment);
    expect(readFileSync(groupFile('Full'), 'utf8')).toBe(before);
  });

  test('404 GROUP_NOT_FOUND for an unknown name, also with a partial or dashboard body', async () => {
    for (const json of [{}, { maxPlayers: 3 }, detailPageBody({ ...(await get('Full')), name: 'Nope' })]) {
      const res = await put('Nope', json);
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).error).toBe('GROUP_NOT_FOUND');
    }
  });
});
