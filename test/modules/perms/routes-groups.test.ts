/**
 * Permission groups through the API: the bootstrap groups, create, read, the dashboard's PUT,
 * delete, nodes with their scopes, and meta; the G shape the dashboard reads, the events the
 * plugins subscribe to, and the refusals (400 naming the field, 404, 409).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readJson } from '../../support/controller';
import { permsController } from './harness';

const h = permsController();
const { api, get, expectError, permEvents, events } = h;

/** The module's events since the last reset, as `type data… actor`. */
const FUTURE = new Date(Date.now() + 86_400_000).toISOString();


async function expectOk(res: Response, message: string | RegExp) {
  expect(res.status).toBe(200);
  const body = await readJson(res);
  expect(body).toEqual({ success: true, message: expect.stringMatching(message) });
}
const blank = (name: string) => ({ name, default: false, prefix: '', suffix: '', priority: 0, weight: 0, permissions: [], scopedPermissions: [], parents: [], meta: {} });

describe('bootstrap', () => {
  test('a fresh start has Default (the default group) and Admin with *', async () => {
    expect(await get('/groups')).toEqual({
      groups: [
        { ...blank('Default'), default: true, prefix: '&9[User] &7' },
        { ...blank('Admin'), prefix: '&c[Admin] &7', priority: 100, weight: 100, permissions: ['*'] },
      ],
      total: 2,
    });
  });

  test('the default group cannot be deleted, nor stop being the default by itself', async () => {
    await expectError(await api('/groups/Default', { method: 'DELETE' }), 400, 'VALIDATION_FAILED', 'default group');
    await expectError(await api('/groups/default', { method: 'PUT', json: { default: false } }), 400, 'VALIDATION_FAILED', 'default group');
    expect((await get('/groups/Default')).default).toBe(true);
  });
});

describe('create, read, delete', () => {
  test('POST creates (201), names in any case read it, the caller is the actor of the event and the audit', async () => {
    events.length = 0;
    const res = await api('/groups', { method: 'POST', json: { name: 'VIP' }, token: h.c.service });
    expect(res.status).toBe(201);
    expect(await readJson(res)).toEqual({ success: true, message: 'created permission group VIP' });
    for (const spelling of ['VIP', 'vip', 'Vip']) expect(await get(`/groups/${spelling}`)).toEqual(blank('VIP'));
    expect((await api('/groups', { method: 'POST', json: { name: 'Builder', default: false } })).status).toBe(201);
    expect(permEvents()).toEqual([
      { type: 'PERMISSION_GROUP_CREATED', group: 'VIP', moduleId: 'perms', actor: 'api:service' },
      { type: 'PERMISSION_GROUP_CREATED', group: 'Builder', moduleId: 'perms', actor: 'api:admin' },
    ]);
    const audit = await get('/audit?action=group.create&limit=2');
    expect(audit.entries.map((e: { target: string; actor: string }) => [e.target, e.actor])).toEqual([
      ['Builder', 'api:admin'],
      ['VIP', 'api:service'],
    ]);
  });

  test('a taken name, in any case, is 409 GROUP_ALREADY_EXISTS', async () => {
    await expectError(await api('/groups', { method: 'POST', json: { name: 'vip' } }), 409, 'GROUP_ALREADY_EXISTS', 'VIP');
  });

  test.each([
    [{ name: 'bad name' }, 'name'],
    [{ name: 'x'.repeat(65) }, 'name'],
    [{ name: '' }, 'name'],
    [{ default: true }, 'name'],
    [{ name: 'Ok', default: 'yes' }, 'default'],
    [{ name: 'Ok', colour: 'red' }, 'colour'],
  ])('POST %j is 400 VALIDATION_FAILED naming %s', async (json, field) => {
    await expectError(await api('/groups', { method: 'POST', json }), 400, 'VALIDATION_FAILED', `"${field}"`);
    expect((await api('/groups/Ok')).status).toBe(404);
  });

  test('a new default group takes over from the old one; PUT default:true gives it back', async () => {
    expect((await api('/groups', { method: 'POST', json: { name: 'Guest', default: true } })).status).toBe(201);
    expect((await get('/groups/Guest')).default).toBe(true);
    expect((await get('/groups/Default')).default).toBe(false);
    const res = await api('/groups/Default', { method: 'PUT', json: { default: true } });
    expect(res.status).toBe(200);
    expect((await readJson(res)).group.default).toBe(true);
    expect((await get('/groups/Guest')).default).toBe(false);
  });

  test('DELETE removes a group and announces it; unknown groups are 404 PERMISSION_GROUP_NOT_FOUND', async () => {
    events.length = 0;
    await expectOk(await api('/groups/guest', { method: 'DELETE', token: h.c.service }), /^deleted permission group Guest$/);
    expect(permEvents()).toEqual([{ type: 'PERMISSION_GROUP_DELETED', group: 'Guest', moduleId: 'perms', actor: 'api:service' }]);
    await expectError(await api('/groups/Guest'), 404, 'PERMISSION_GROUP_NOT_FOUND', 'Guest');
    await expectError(await api('/groups/Guest', { method: 'DELETE' }), 404, 'PERMISSION_GROUP_NOT_FOUND');
    expect((await get('/groups')).groups.map((g: { name: string }) => g.name)).toEqual(['Default', 'Admin', 'VIP', 'Builder']);
  });

  test('a deleted group leaves its members, its children’s parents and its tracks', async () => {
    const uuid = '55555555-5555-4555-8555-555555555555';
    for (const name of ['Temp', 'Child']) expect((await api('/groups', { method: 'POST', json: { name } })).status).toBe(201);
    expect((await api('/groups/Child', { method: 'PUT', json: { parents: ['Temp', 'Default'] } })).status).toBe(200);
    expect((await api(`/players/${uuid}/groups`, { method: 'POST', json: { group: 'Temp', name: 'Tess' } })).status).toBe(200);
    expect((await api('/tracks', { method: 'POST', json: { name: 'temp-track', groups: ['Default', 'Temp', 'Admin'] } })).status).toBe(201);
    expect((await api('/groups/Temp', { method: 'DELETE' })).status).toBe(200);
    expect((await get('/groups/Child')).parents).toEqual(['Default']);
    expect((await get(`/players/${uuid}`)).groups).toEqual([]);
    expect(await get('/tracks/temp-track')).toEqual({ name: 'temp-track', groups: ['Default', 'Admin'] });
    expect((await api('/groups/Child', { method: 'DELETE' })).status).toBe(200);
    expect((await api('/tracks/temp-track', { method: 'DELETE' })).status).toBe(200);
  });

  test('a malformed group name in the path is 400 naming it', async () => {
    for (const [path, method] of [['/groups/bad!name', 'GET'], ['/groups/bad!name', 'DELETE'], ['/groups/bad!name/meta', 'GET']] as const) {
      await expectError(await api(path, { method }), 400, 'VALIDATION_FAILED', '"name"');
    }
  });
});

describe('PUT /groups/{name}: the dashboard’s group editor', () => {
  test('every field at once: answers the group, reads back, publishes PERMISSION_GROUP_UPDATED', async () => {
    events.length = 0;
    const json = {
      prefix: '&6[VIP] ',
      suffix: ' &r',
      priority: 50,
      weight: 10,
      permissions: ['vip.fly', 'Essentials.Home.*', '-vip.ban'],
      parents: ['default'],
      meta: { color: 'gold', 'tab.order': '2' },
    };
    const res = await api('/groups/vip', { method: 'PUT', json, token: h.c.service });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    const expected = { ...blank('VIP'), ...json, permissions: expect.any(Array), parents: ['Default'] };
    expect(body).toEqual({ success: true, message: expect.stringContaining('updated permission group VIP'), group: expected });
    expect([...body.group.permissions].sort()).toEqual(['-vip.ban', 'essentials.home.*', 'vip.fly']);
    expect(await get('/groups/VIP')).toEqual(body.group);
    expect(permEvents()).toEqual([{ type: 'PERMISSION_GROUP_UPDATED', group: 'VIP', moduleId: 'perms', actor: 'api:service' }]);
  });

  test('a permissions list keeps the scopes of held nodes, adds new ones unscoped, drops the missing', async () => {
    expect((await api('/groups/VIP/permissions', { method: 'POST', json: { permission: 'vip.fly', server: 'Lobby-1' } })).status).toBe(200);
    const res = await api('/groups/VIP', { method: 'PUT', json: { permissions: ['vip.fly', 'vip.new'] } });
    expect(res.status).toBe(200);
    const group = (await readJson(res)).group;
    expect([...group.permissions].sort()).toEqual(['vip.fly', 'vip.new']);
    expect(group.scopedPermissions).toEqual([{ permission: 'vip.fly', server: 'Lobby-1' }]);
  });

  test('a parent cycle is refused and nothing changes', async () => {
    const before = await get('/groups/Default');
    await expectError(await api('/groups/Default', { method: 'PUT', json: { parents: ['VIP'], prefix: 'changed' } }), 400, 'VALIDATION_FAILED', 'cycle');
    await expectError(await api('/groups/VIP', { method: 'PUT', json: { parents: ['VIP'] } }), 400, 'VALIDATION_FAILED', 'own parent');
    await expectError(await api('/groups/VIP', { method: 'PUT', json: { parents: ['Nope'] } }), 400, 'VALIDATION_FAILED', 'Nope');
    expect(await get('/groups/Default')).toEqual(before);
  });

  test.each([
    [{ permissions: ['ok.node', 'a*b'] }, 'permissions.1'],
    [{ permissions: ['a..b'] }, 'permissions.0'],
    [{ priority: 1.5 }, 'priority'],
    [{ weight: '3' }, 'weight'],
    [{ prefix: 'x'.repeat(257) }, 'prefix'],
    [{ parents: ['bad name'] }, 'parents.0'],
    [{ meta: { color: 5 } }, 'meta.color'],
    [{ meta: { 'bad key': 'x' } }, 'meta key'],
    [{ prefix: 'ok', permision: ['typo'] }, 'permision'],
  ])('PUT %j is 400 VALIDATION_FAILED naming %s; the group is unchanged', async (json, field) => {
    const before = await get('/groups/VIP');
    const body = await expectError(await api('/groups/VIP', { method: 'PUT', json }), 400, 'VALIDATION_FAILED');
    expect(body.message).toContain(field);
    expect(await get('/groups/VIP')).toEqual(before);
  });

  test('an empty body is 400 NO_FIELDS_TO_UPDATE; an unknown group 404', async () => {
    await expectError(await api('/groups/VIP', { method: 'PUT', json: {} }), 400, 'NO_FIELDS_TO_UPDATE');
    await expectError(await api('/groups/Nope', { method: 'PUT', json: { prefix: 'x' } }), 404, 'PERMISSION_GROUP_NOT_FOUND');
  });
});

describe('nodes with a server, world and expiry', () => {
  test('a scoped, expiring node: the message says where and until when; G lists it once, with its scope', async () => {
    events.length = 0;
    const res = await api('/groups/builder/permissions', { method: 'POST', json: { permission: 'WorldEdit.Use', server: 'Lobby-1', world: 'nether', expiresAt: FUTURE }, token: h.c.service });
    await expectOk(res, new RegExp(`^added worldedit\\.use to Builder on server Lobby-1 in world nether until ${FUTURE.replace(/\./g, '\\.')}$`));
    const group = await get('/groups/Builder');
    expect(group.permissions).toEqual(['worldedit.use']);
    expect(group.scopedPermissions).toEqual([{ permission: 'worldedit.use', server: 'Lobby-1', world: 'nether', expiresAt: FUTURE }]);
    expect(permEvents()).toEqual([{ type: 'PERMISSION_GROUP_UPDATED', group: 'Builder', moduleId: 'perms', actor: 'api:service' }]);
    const [entry] = (await get('/audit?action=group.addperm&target=Builder')).entries;
    expect(entry).toEqual({ timestamp: expect.any(String), actor: 'api:service', action: 'group.addperm', target: 'Builder', details: expect.stringContaining('worldedit.use') });
  });

  test('the same context twice is 200 both times and stays one row', async () => {
    for (let i = 0; i < 2; i++) {
      await expectOk(await api('/groups/Builder/permissions', { method: 'POST', json: { permission: 'build.place', server: 'Lobby-1' } }), /^added build\.place to Builder on server Lobby-1$/);
    }
    const group = await get('/groups/Builder');
    expect(group.scopedPermissions.filter((p: { permission: string }) => p.permission === 'build.place')).toEqual([{ permission: 'build.place', server: 'Lobby-1' }]);
  });

  test('an unscoped grant replaces the scoped rows of the node, and expiresAt null is permanent', async () => {
    await expectOk(await api('/groups/Builder/permissions', { method: 'POST', json: { permission: 'build.place', expiresAt: null } }), /^added build\.place to Builder$/);
    const group = await get('/groups/Builder');
    expect(group.permissions).toContain('build.place');
    expect(group.scopedPermissions.map((p: { permission: string }) => p.permission)).not.toContain('build.place');
  });

  test.each([
    [{ permission: 'a*b' }, 'permission'],
    [{ permission: 'a..b' }, 'permission'],
    [{ permission: '.a' }, 'permission'],
    [{ permission: '-' }, 'permission'],
    [{ permission: 'has space' }, 'permission'],
    [{ permission: '' }, 'permission'],
    [{ permission: 'x'.repeat(257) }, 'permission'],
    [{}, 'permission'],
    [{ permission: 'ok.node', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
    [{ permission: 'ok.node', expiresAt: 'tomorrow' }, 'expiresAt'],
    [{ permission: 'ok.node', expiresAt: 1_900_000_000_000 }, 'expiresAt'],
    [{ permission: 'ok.node', server: 'bad server' }, 'server'],
    [{ permission: 'ok.node', world: 'x'.repeat(129) }, 'world'],
    [{ permission: 'ok.node', expires: FUTURE }, 'expires'],
  ])('POST %j is 400 VALIDATION_FAILED naming %s; nothing is added', async (json, field) => {
    const before = await get('/groups/Builder');
    const body = await expectError(await api('/groups/Builder/permissions', { method: 'POST', json }), 400, 'VALIDATION_FAILED');
    expect(body.message).toContain(field);
    expect(await get('/groups/Builder')).toEqual(before);
  });

  test('DELETE with a server removes only that row; without, the node with every scope; absent is 200 saying nothing was removed', async () => {
    for (const server of ['Lobby-1', 'Lobby-2']) expect((await api('/groups/Builder/permissions', { method: 'POST', json: { permission: 'fly.use', server } })).status).toBe(200);
    await expectOk(await api('/groups/Builder/permissions', { method: 'DELETE', json: { permission: 'fly.use', server: 'Lobby-2' } }), /^removed fly\.use from Builder on server Lobby-2$/);
    const scoped = (await get('/groups/Builder')).scopedPermissions.filter((p: { permission: string }) => p.permission === 'fly.use');
    expect(scoped).toEqual([{ permission: 'fly.use', server: 'Lobby-1' }]);

    events.length = 0;
    await expectOk(await api('/groups/Builder/permissions', { method: 'DELETE', json: { permission: 'FLY.USE' }, token: h.c.service }), /^removed fly\.use from Builder$/);
    expect((await get('/groups/Builder')).permissions).not.toContain('fly.use');
    expect(permEvents()).toEqual([{ type: 'PERMISSION_GROUP_UPDATED', group: 'Builder', moduleId: 'perms', actor: 'api:service' }]);

    events.length = 0;
    await expectOk(await api('/groups/Builder/permissions', { method: 'DELETE', json: { permission: 'fly.use' } }), /^Builder does not hold fly\.use; nothing was removed$/);
    expect(permEvents()).toEqual([]);
  });

  test('DELETE refuses a bad node, an unknown key and a missing body; an unknown group is 404', async () => {
    await expectError(await api('/groups/Builder/permissions', { method: 'DELETE', json: { permission: 'a..b' } }), 400, 'VALIDATION_FAILED', '"permission"');
    await expectError(await api('/groups/Builder/permissions', { method: 'DELETE', json: { permission: 'a.b', expiresAt: FUTURE } }), 400, 'VALIDATION_FAILED', '"expiresAt"');
    await expectError(await api('/groups/Builder/permissions', { method: 'DELETE' }), 400, 'VALIDATION_FAILED', 'body');
    await expectError(await api('/groups/Nope/permissions', { method: 'DELETE', json: { permission: 'a.b' } }), 404, 'PERMISSION_GROUP_NOT_FOUND');
    await expectError(await api('/groups/Nope/permissions', { method: 'POST', json: { permission: 'a.b' } }), 404, 'PERMISSION_GROUP_NOT_FOUND');
  });
});

describe('group meta', () => {
  test('read, set, remove; each change publishes PERMISSION_GROUP_UPDATED', async () => {
    expect(await get('/groups/Builder/meta')).toEqual({ meta: {} });
    events.length = 0;
    await expectOk(await api('/groups/Builder/meta', { method: 'PUT', json: { key: 'tab.color', value: '&e' }, token: h.c.service }), /^set meta tab\.color of Builder$/);
    await expectOk(await api('/groups/builder/meta', { method: 'PUT', json: { key: 'rank', value: '' } }), /^set meta rank of Builder$/);
    expect(await get('/groups/BUILDER/meta')).toEqual({ meta: { 'tab.color': '&e', rank: '' } });
    await expectOk(await api('/groups/Builder/meta/rank', { method: 'DELETE' }), /^removed meta rank from Builder$/);
    expect(await get('/groups/Builder/meta')).toEqual({ meta: { 'tab.color': '&e' } });
    expect((await get('/groups/Builder')).meta).toEqual({ 'tab.color': '&e' });
    expect(permEvents().map((e) => [e.type, e.group, e.actor])).toEqual([
      ['PERMISSION_GROUP_UPDATED', 'Builder', 'api:service'],
      ['PERMISSION_GROUP_UPDATED', 'Builder', 'api:admin'],
      ['PERMISSION_GROUP_UPDATED', 'Builder', 'api:admin'],
    ]);
    events.length = 0;
    await expectOk(await api('/groups/Builder/meta/rank', { method: 'DELETE' }), /nothing was removed$/);
    expect(permEvents()).toEqual([]);
  });

  test.each([
    [{ key: 'bad key', value: 'x' }, 'key'],
    [{ key: 'k', value: 'x'.repeat(1025) }, 'value'],
    [{ key: 'k' }, 'value'],
    [{ key: 'k', value: 1 }, 'value'],
    [{ key: 'k', value: 'x', server: 'Lobby-1' }, 'server'],
  ])('PUT meta %j is 400 VALIDATION_FAILED naming %s', async (json, field) => {
    await expectError(await api('/groups/Builder/meta', { method: 'PUT', json }), 400, 'VALIDATION_FAILED', `"${field}"`);
  });

  test('an unknown group is 404 on every meta route; a malformed key in the path is 400', async () => {
    await expectError(await api('/groups/Nope/meta'), 404, 'PERMISSION_GROUP_NOT_FOUND');
    await expectError(await api('/groups/Nope/meta', { method: 'PUT', json: { key: 'k', value: 'v' } }), 404, 'PERMISSION_GROUP_NOT_FOUND');
    await expectError(await api('/groups/Nope/meta/k', { method: 'DELETE' }), 404, 'PERMISSION_GROUP_NOT_FOUND');
    await expectError(await api('/groups/Builder/meta/bad%20key', { method: 'DELETE' }), 400, 'VALIDATION_FAILED', '"key"');
  });
});
