import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcEvent } from '../../../src/events/catalogue';
import { displayModule } from '../../../src/modules/display';
import { fakePaperGroup } from '../../fixtures/fake-paper-group';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';

let c: TestController;
const events: SvcEvent[] = [];
const displayEvents = (): Record<string, string>[] => events.filter((e) => e.type === 'DISPLAY_UPDATED').map((e) => ({ ...e.data, actor: e.actor }));
const fileOf = (group: string) => join(c.dir, 'config/modules/display', `${group}.toml`);

beforeAll(async () => {
  c = await startController({ modules: [displayModule] });
  c.controller.kernel.bus.subscribe((e) => void events.push(e));
  for (const name of ['Lobby', 'BedWars']) expect((await c.api('/api/groups', { method: 'POST', json: fakePaperGroup(name, { minInstances: 0 }) })).status).toBe(201);
});
afterAll(() => c.stop());

/** The D every fresh non-proxy group answers. */
function defaultDisplay(name: string, floatingItem: string) {
  return {
    name,
    sign: {
      line1: '&1&l★ {name} ★',
      line2: '&8{players}/{max_players} online',
      line3: '&7{state}',
      line4Online: '&2▶ Click to join!',
      line4Offline: '&4✖ Offline',
    },
    npc: {
      displayName: '&b&l{name}',
      subtitle: '&7{players}/{max_players} online &8| &7{state}',
      subtitleOffline: '&c✖ Offline',
      floatingItem,
      statusItems: {
        ONLINE: 'LIME_WOOL',
        STARTING: 'YELLOW_WOOL',
        INGAME: 'ORANGE_WOOL',
        WAITING: 'LIGHT_BLUE_WOOL',
        OFFLINE: 'GRAY_WOOL',
        FULL: 'RED_WOOL',
        ENDING: 'ORANGE_WOOL',
        STOPPING: 'RED_WOOL',
      },
      inventory: {
        title: '&8» &b&l{name} Servers',
        size: 27,
        itemName: '&b{name}',
        itemLore: ['&7Players: &f{players}/{max_players}', '&7State: &f{state}', '', '&aClick to join!'],
      },
    },
    states: {
      PREPARING: 'STARTING',
      STARTING: 'STARTING',
      READY: 'ONLINE',
      STOPPING: 'STOPPING',
      STOPPED: 'OFFLINE',
      CRASHED: 'OFFLINE',
      WAITING: 'WAITING',
      INGAME: 'INGAME',
      ENDING: 'ENDING',
    },
  };
}

const put = (name: string, json: unknown, token?: string) => c.api(`/api/displays/${name}`, { method: 'PUT', json, token });
const get = async (name: string) => readJson(await c.api(`/api/displays/${name}`));

describe('display routes', () => {
  test('GET list: every group by name, exactly the D shape', async () => {
    const res = await c.api('/api/displays', { token: c.service });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ displays: [defaultDisplay('BedWars', 'RED_BED'), defaultDisplay('Lobby', 'NETHER_STAR')], total: 2 });
  });

  test('GET one, names in any case; the answer spells the group as it is', async () => {
    for (const spelling of ['Lobby', 'lobby', 'LOBBY']) {
      const res = await c.api(`/api/displays/${spelling}`);
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual(defaultDisplay('Lobby', 'NETHER_STAR'));
    }
  });

  test('401 without a token, on reads and writes', async () => {
    for (const [path, method] of [['/api/displays', 'GET'], ['/api/displays/Lobby', 'GET'], ['/api/displays/Lobby', 'PUT'], ['/api/displays/Lobby/reset', 'POST'], ['/api/displays/Lobby/state/READY', 'GET']] as const) {
      const res = await c.api(path, { method, token: null, json: method === 'PUT' ? {} : undefined });
      expect(res.status).toBe(401);
      await expectErrorBody(res);
    }
  });

  test('404 DISPLAY_CONFIG_NOT_FOUND for an unknown group on every per-group route but reset (GROUP_NOT_FOUND)', async () => {
    for (const [path, method] of [['/api/displays/Nope', 'GET'], ['/api/displays/Nope', 'PUT'], ['/api/displays/Nope/state/READY', 'GET']] as const) {
      const res = await c.api(path, { method, json: method === 'PUT' ? { sign: { line1: 'x' } } : undefined });
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).error).toBe('DISPLAY_CONFIG_NOT_FOUND');
    }
    const reset = await c.api('/api/displays/Nope/reset', { method: 'POST' });
    expect(reset.status).toBe(404);
    expect((await expectErrorBody(reset)).error).toBe('GROUP_NOT_FOUND');
  });

  test('PUT one sign line keeps the other lines, writes the file, publishes DISPLAY_UPDATED with the caller', async () => {
    events.length = 0;
    const res = await put('lobby', { sign: { line1: '&aWelcome' } }, c.service);
    expect(res.status).toBe(200);
    const expected = defaultDisplay('Lobby', 'NETHER_STAR');
    expected.sign.line1 = '&aWelcome';
    expect(await readJson(res)).toEqual(expected);
    expect(await get('Lobby')).toEqual(expected);
    expect(readFileSync(fileOf('Lobby'), 'utf8')).toContain('line1 = "&aWelcome"');
    expect(displayEvents()).toEqual([{ group: 'Lobby', moduleId: 'display', actor: 'api:service' }]);
  });

  test('PUT the body the dashboard sends: the five lines and the whole npc with a new displayName', async () => {
    const current = await get('BedWars');
    const body = {
      sign: { line1: 'L1', line2: 'L2', line3: 'L3', line4Online: 'on', line4Offline: 'off' },
      npc: { ...current.npc, displayName: '&eBed Wars' },
    };
    const res = await put('BedWars', body);
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ ...current, sign: body.sign, npc: body.npc });
    expect(await get('bedwars')).toEqual({ ...current, sign: body.sign, npc: body.npc });
  });

  test('PUT merges states and statusItems key by key; null removes a key', async () => {
    const before = await get('Lobby');
    const res = await put('Lobby', { states: { READY: 'OPEN', CRASHED: null, LOBBY_VOTE: 'VOTING' }, npc: { statusItems: { OPEN: 'GREEN_WOOL', FULL: null } } });
    expect(res.status).toBe(200);
    const after = await readJson(res);
    const { CRASHED: _c, ...states } = before.states;
    expect(after.states).toEqual({ ...states, READY: 'OPEN', LOBBY_VOTE: 'VOTING' });
    const { FULL: _f, ...items } = before.npc.statusItems;
    expect(after.npc.statusItems).toEqual({ ...items, OPEN: 'GREEN_WOOL' });
    expect({ ...after, states: before.states, npc: { ...after.npc, statusItems: before.npc.statusItems } }).toEqual(before);
    expect(await get('Lobby')).toEqual(after);
  });

  test('PUT partial inventory keeps the other inventory fields', async () => {
    const before = await get('Lobby');
    const after = await readJson(await put('Lobby', { npc: { inventory: { size: 54 } } }));
    expect(after.npc.inventory).toEqual({ ...before.npc.inventory, size: 54 });
  });

  test('PUT with nothing to change (or only unknown keys) answers the display unchanged, without an event or a write', async () => {
    const before = await get('Lobby');
    const file = readFileSync(fileOf('Lobby'), 'utf8');
    events.length = 0;
    for (const json of [{}, { unknown: 1, sign: { line9: 'x' } }, { sign: { line1: before.sign.line1 } }, { sign: null, npc: { inventory: null } }, undefined]) {
      const res = await put('Lobby', json);
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual(before);
    }
    expect(displayEvents()).toEqual([]);
    expect(readFileSync(fileOf('Lobby'), 'utf8')).toBe(file);
  });

  test.each([
    [{ sign: { line2: 'x'.repeat(257) } }, 'sign.line2'],
    [{ sign: { line3: 'two\nlines' } }, 'sign.line3'],
    [{ npc: { displayName: 'carriage\rreturn' } }, 'npc.displayName'],
    [{ npc: { inventory: { size: 10 } } }, 'npc.inventory.size'],
    [{ npc: { inventory: { size: 63 } } }, 'npc.inventory.size'],
    [{ npc: { inventory: { size: 27.5 } } }, 'npc.inventory.size'],
    [{ npc: { inventory: { itemLore: Array.from({ length: 33 }, () => 'x') } } }, 'npc.inventory.itemLore'],
    [{ npc: { floatingItem: 'DIAMOND SWORD' } }, 'npc.floatingItem'],
    [{ npc: { statusItems: { ONLINE: 'lime wool!' } } }, 'npc.statusItems.ONLINE'],
    [{ states: { 'bad key': 'X' } }, 'states'],
    [{ sign: { line1: 42 } }, 'sign.line1'],
    [{ npc: { inventory: { size: '27' } } }, 'npc.inventory.size'],
    [{ states: { READY: 5 } }, 'states'],
  ])('PUT %j is 400 VALIDATION_FAILED naming %s; the file is unchanged', async (json, field) => {
    const file = readFileSync(fileOf('Lobby'), 'utf8');
    const before = await get('Lobby');
    events.length = 0;
    const res = await put('Lobby', { sign: { line4Offline: 'changed too' }, ...json });
    expect(res.status).toBe(400);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.message).toContain(`"${field}`);
    expect(readFileSync(fileOf('Lobby'), 'utf8')).toBe(file);
    expect(await get('Lobby')).toEqual(before);
    expect(displayEvents()).toEqual([]);
  });

  test('state labels: from states, else the raw state; a removed key falls back too', async () => {
    const label = async (group: string, state: string) => readJson(await c.api(`/api/displays/${group}/state/${state}`));
    expect(await put('BedWars', { states: { READY: 'OPEN', CRASHED: null, constructor: null } }).then((r) => r.status)).toBe(200);
    expect(await label('bedwars', 'READY')).toEqual({ raw: 'READY', label: 'OPEN' });
    expect(await label('BedWars', 'STOPPED')).toEqual({ raw: 'STOPPED', label: 'OFFLINE' });
    expect(await label('BedWars', 'CRASHED')).toEqual({ raw: 'CRASHED', label: 'CRASHED' });
    expect(await label('BedWars', 'MY_CUSTOM')).toEqual({ raw: 'MY_CUSTOM', label: 'MY_CUSTOM' });
    // Names an object's prototype has are not labels.
    expect(await label('BedWars', 'constructor')).toEqual({ raw: 'constructor', label: 'constructor' });
  });

  test('reset rewrites the defaults, answers them and publishes DISPLAY_UPDATED', async () => {
    expect((await get('Lobby')).sign.line1).toBe('&aWelcome');
    events.length = 0;
    const res = await c.api('/api/displays/LOBBY/reset', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual(defaultDisplay('Lobby', 'NETHER_STAR'));
    expect(await get('Lobby')).toEqual(defaultDisplay('Lobby', 'NETHER_STAR'));
    expect(readFileSync(fileOf('Lobby'), 'utf8')).toContain('line1 = "&1&l★ {name} ★"');
    expect(displayEvents()).toEqual([{ group: 'Lobby', moduleId: 'display', actor: 'api:admin' }]);
  });

  test('the dashboard manifest is listed with the module', async () => {
    const body = await readJson(await c.api('/api/modules'));
    const list = Array.isArray(body) ? body : body.modules;
    expect(list.find((m: { id: string }) => m.id === 'display')).toMatchObject({
      id: 'display',
      name: 'Display',
      version: '1.0.0',
      dashboard: { title: 'Display', icon: 'Monitor', apiPrefix: '/api/displays', sections: [{ title: 'Configurations', type: 'table', endpoint: '' }], pages: [{ path: '/modules/display', title: 'Display' }] },
    });
  });
});
