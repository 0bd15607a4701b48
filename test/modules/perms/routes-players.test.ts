/**
 * Players through the API: what the proxy and the backend plugin read on join (P), the
 * registration call, memberships with their scopes, meta, the search the dashboard lists, and
 * the check and debug questions (the permission is the rest of the path).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readJson } from '../../support/controller';
import { permsController } from './harness';

const h = permsController();
const { api, get, send, expectError, permEvents, events } = h;

const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const CAROL = '33333333-3333-4333-8333-333333333333';
const DAVE = '44444444-4444-4444-8444-444444444444';
const NOBODY = '99999999-9999-4999-8999-999999999999';
const FUTURE = new Date(Date.now() + 86_400_000).toISOString();
const DEFAULT_PREFIX = '&9[User] &7';



beforeAll(async () => {
  await send('/groups', 'POST', { name: 'VIP' });
  await send('/groups', 'POST', { name: 'Staff' });
  await send('/groups/VIP', 'PUT', { prefix: '&6[VIP] ', priority: 10, permissions: ['vip.chat'] });
  await send('/groups/VIP/permissions', 'POST', { permission: 'vip.fly', server: 'Lobby-1' });
  await send('/groups/Staff', 'PUT', { prefix: '&c[Staff] ', priority: 20, parents: ['VIP'], permissions: ['staff.kick'] });
  await send('/groups/Staff/permissions', 'POST', { permission: 'staff.temp', expiresAt: FUTURE });
});

const unknownPlayer = (uuid: string) => ({
  uuid,
  name: 'unknown',
  groups: [],
  memberships: [],
  effectivePermissions: [],
  prefix: DEFAULT_PREFIX,
  suffix: '',
  displayGroup: 'Default',
  priority: 0,
  meta: {},
});

describe('GET and PUT /players/{uuid}', () => {
  test('a player never seen is "unknown" with the default group, never 404', async () => {
    expect(await get(`/players/${NOBODY}`)).toEqual(unknownPlayer(NOBODY));
    expect(await get(`/players/${NOBODY.replace(/-/g, '').toUpperCase()}?server=Lobby-1`)).toEqual(unknownPlayer(NOBODY));
  });

  test('PUT registers a new player into the default group and publishes nothing; PUT again renames', async () => {
    events.length = 0;
    const res = await api(`/players/${ALICE.toUpperCase()}?server=Lobby-1`, { method: 'PUT', json: { name: 'Alice' }, token: h.c.service });
    expect(res.status).toBe(200);
    const registered = { ...unknownPlayer(ALICE), name: 'Alice', groups: ['Default'], memberships: [{ group: 'Default' }] };
    expect(await readJson(res)).toEqual(registered);
    expect(await get(`/players/${ALICE}`)).toEqual(registered);
    expect((await send(`/players/${ALICE}`, 'PUT', { name: 'Alice_' })).name).toBe('Alice_');
    expect((await send(`/players/${ALICE}`, 'PUT', { name: 'Alice' })).groups).toEqual(['Default']);
    expect(permEvents()).toEqual([]);
    expect((await get('/audit?action=user.create')).entries).toEqual([{ timestamp: expect.any(String), actor: 'api:service', action: 'user.create', target: 'Alice', details: ALICE }]);
  });

  test.each([
    [`/players/${ALICE}`, { name: 'bad name' }, '"name"'],
    [`/players/${ALICE}`, { name: 'x'.repeat(33) }, '"name"'],
    [`/players/${ALICE}`, {}, '"name"'],
    [`/players/${ALICE}`, { name: 'Alice', group: 'VIP' }, '"group"'],
    ['/players/not-a-uuid', { name: 'Alice' }, '"uuid"'],
    [`/players/${ALICE}?server=bad%20server`, { name: 'Alice' }, '"server"'],
  ])('PUT %s %j is 400 VALIDATION_FAILED naming %s', async (path, json, field) => {
    await expectError(await api(path, { method: 'PUT', json }), 400, 'VALIDATION_FAILED', field);
    expect((await get(`/players/${ALICE}`)).name).toBe('Alice');
  });

  test('GET refuses a malformed uuid, server or world', async () => {
    await expectError(await api('/players/1234'), 400, 'VALIDATION_FAILED', '"uuid"');
    await expectError(await api(`/players/${ALICE}?world=a/b`), 400, 'VALIDATION_FAILED', '"world"');
  });
});

describe('memberships', () => {
  test('POST puts a player in a group: event, message, and P from the proxy’s view and a backend’s', async () => {
    events.length = 0;
    const res = await api(`/players/${ALICE}/groups`, { method: 'POST', json: { group: 'vip' }, token: h.c.service });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ success: true, message: 'added Alice to VIP' });
    expect(permEvents()).toEqual([{ type: 'PLAYER_PERMISSIONS_UPDATED', uuid: ALICE, player: 'Alice', moduleId: 'perms', actor: 'api:service' }]);
    const atProxy = await get(`/players/${ALICE}`);
    expect(atProxy).toEqual({
      uuid: ALICE,
      name: 'Alice',
      groups: ['Default', 'VIP'],
      memberships: [{ group: 'Default' }, { group: 'VIP' }],
      effectivePermissions: ['vip.chat'],
      prefix: '&6[VIP] ',
      suffix: '',
      displayGroup: 'VIP',
      priority: 10,
      meta: {},
    });
    expect((await get(`/players/${ALICE}?server=Lobby-1`)).effectivePermissions).toEqual(['vip.chat', 'vip.fly']);
    expect((await get(`/players/${ALICE}?server=lobby-1`)).effectivePermissions).toEqual(['vip.chat', 'vip.fly']);
    expect((await get(`/players/${ALICE}?server=Lobby-2`)).effectivePermissions).toEqual(['vip.chat']);
  });

  test('a scoped, expiring membership applies only there; the same context twice is 200 both times and one row', async () => {
    for (let i = 0; i < 2; i++) {
      const body = await send(`/players/${ALICE}/groups`, 'POST', { group: 'Staff', server: 'Lobby-1', expiresAt: FUTURE });
      expect(body).toEqual({ success: true, message: `added Alice to Staff on server Lobby-1 until ${FUTURE}` });
    }
    const there = await get(`/players/${ALICE}?server=Lobby-1`);
    expect(there.memberships).toEqual([{ group: 'Default' }, { group: 'VIP' }, { group: 'Staff', server: 'Lobby-1', expiresAt: FUTURE }]);
    expect(there.groups).toEqual(['Default', 'VIP', 'Staff']);
    expect(there.displayGroup).toBe('Staff');
    expect(there.effectivePermissions).toEqual(['staff.kick', 'staff.temp', 'vip.chat', 'vip.fly']);
    const elsewhere = await get(`/players/${ALICE}?server=Game-1`);
    expect(elsewhere.displayGroup).toBe('VIP');
    expect(elsewhere.effectivePermissions).toEqual(['vip.chat']);
  });

  test('an unseen player is stored under the given name, or "unknown"', async () => {
    expect(await send(`/players/${BOB}/groups`, 'POST', { group: 'VIP', name: 'Bob' })).toEqual({ success: true, message: 'added Bob to VIP' });
    expect(await get(`/players/${BOB}`)).toMatchObject({ uuid: BOB, name: 'Bob', groups: ['VIP'], displayGroup: 'VIP' });
    expect(await send(`/players/${CAROL.replace(/-/g, '')}/groups`, 'POST', { group: 'Admin' })).toEqual({ success: true, message: 'added unknown to Admin' });
    expect(await get(`/players/${CAROL}`)).toMatchObject({ uuid: CAROL, name: 'unknown', groups: ['Admin'], effectivePermissions: ['*'] });
    // A name sent for a known player changes nothing.
    await send(`/players/${BOB}/groups`, 'POST', { group: 'VIP', name: 'Robert' });
    expect((await get(`/players/${BOB}`)).name).toBe('Bob');
  });

  test.each([
    [{ group: 'VIP', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
    [{ group: 'VIP', expiresAt: 'soon' }, 'expiresAt'],
    [{ group: 'VIP', server: 'a b' }, 'server'],
    [{ group: 'bad group' }, '"group"'],
    [{ group: 'VIP', name: 'bad name' }, '"name"'],
    [{ group: 'VIP', until: FUTURE }, '"until"'],
    [{}, '"group"'],
  ])('POST %j is 400 VALIDATION_FAILED naming %s', async (json, field) => {
    const before = await get(`/players/${BOB}`);
    await expectError(await api(`/players/${BOB}/groups`, { method: 'POST', json }), 400, 'VALIDATION_FAILED', field);
    expect(await get(`/players/${BOB}`)).toEqual(before);
  });

  test('an unknown group is 404 PERMISSION_GROUP_NOT_FOUND; a malformed uuid 400', async () => {
    await expectError(await api(`/players/${BOB}/groups`, { method: 'POST', json: { group: 'Nope' } }), 404, 'PERMISSION_GROUP_NOT_FOUND');
    await expectError(await api('/players/xyz/groups', { method: 'POST', json: { group: 'VIP' } }), 400, 'VALIDATION_FAILED', '"uuid"');
  });

  test('DELETE with a server takes only that membership; absent is 200 saying nothing was removed; unknown player 404', async () => {
    events.length = 0;
    expect(await send(`/players/${ALICE}/groups`, 'DELETE', { group: 'Staff', server: 'Lobby-2' })).toEqual({ success: true, message: 'Alice is not in Staff on server Lobby-2; nothing was removed' });
    expect(permEvents()).toEqual([]);
    expect(await send(`/players/${ALICE}/groups`, 'DELETE', { group: 'staff', server: 'Lobby-1' })).toEqual({ success: true, message: 'removed Alice from Staff on server Lobby-1' });
    expect((await get(`/players/${ALICE}?server=Lobby-1`)).groups).toEqual(['Default', 'VIP']);
    expect(permEvents()).toEqual([{ type: 'PLAYER_PERMISSIONS_UPDATED', uuid: ALICE, player: 'Alice', moduleId: 'perms', actor: 'api:admin' }]);

    await send(`/players/${BOB}/groups`, 'POST', { group: 'Staff', world: 'nether' });
    expect(await send(`/players/${BOB}/groups`, 'DELETE', { group: 'Staff' })).toEqual({ success: true, message: 'removed Bob from Staff' });
    expect((await get(`/players/${BOB}`)).memberships).toEqual([{ group: 'VIP' }]);

    await expectError(await api(`/players/${NOBODY}/groups`, { method: 'DELETE', json: { group: 'VIP' } }), 404, 'PLAYER_NOT_FOUND');
    await expectError(await api(`/players/${BOB}/groups`, { method: 'DELETE', json: { group: 'Nope' } }), 404, 'PERMISSION_GROUP_NOT_FOUND');
    await expectError(await api(`/players/${BOB}/groups`, { method: 'DELETE', json: { group: 'VIP', expiresAt: FUTURE } }), 400, 'VALIDATION_FAILED', '"expiresAt"');
    await expectError(await api(`/players/${BOB}/groups`, { method: 'DELETE' }), 400, 'VALIDATION_FAILED', 'body');
  });
});

describe('player meta', () => {
  test('read, set and remove for a known player, with events; an unseen player reads {} and cannot be written', async () => {
    expect(await get(`/players/${NOBODY}/meta`)).toEqual({ meta: {} });
    await expectError(await api(`/players/${NOBODY}/meta`, { method: 'PUT', json: { key: 'k', value: 'v' } }), 404, 'PLAYER_NOT_FOUND');
    await expectError(await api(`/players/${NOBODY}/meta/k`, { method: 'DELETE' }), 404, 'PLAYER_NOT_FOUND');

    events.length = 0;
    expect(await send(`/players/${BOB}/meta`, 'PUT', { key: 'nick.color', value: '&a' })).toEqual({ success: true, message: 'set meta nick.color of Bob' });
    expect(await get(`/players/${BOB}/meta`)).toEqual({ meta: { 'nick.color': '&a' } });
    expect((await get(`/players/${BOB}`)).meta).toEqual({ 'nick.color': '&a' });
    expect(await send(`/players/${BOB}/meta/nick.color`, 'DELETE')).toEqual({ success: true, message: 'removed meta nick.color from Bob' });
    expect(await send(`/players/${BOB}/meta/nick.color`, 'DELETE')).toEqual({ success: true, message: 'Bob has no meta nick.color; nothing was removed' });
    expect(await get(`/players/${BOB}/meta`)).toEqual({ meta: {} });
    expect(permEvents().map((e) => [e.type, e.uuid, e.player])).toEqual([
      ['PLAYER_PERMISSIONS_UPDATED', BOB, 'Bob'],
      ['PLAYER_PERMISSIONS_UPDATED', BOB, 'Bob'],
    ]);
  });

  test('PUT meta refuses a bad key, a long value and unknown keys; bad path params are 400', async () => {
    await expectError(await api(`/players/${BOB}/meta`, { method: 'PUT', json: { key: 'a b', value: 'v' } }), 400, 'VALIDATION_FAILED', '"key"');
    await expectError(await api(`/players/${BOB}/meta`, { method: 'PUT', json: { key: 'k', value: 'v'.repeat(1025) } }), 400, 'VALIDATION_FAILED', '"value"');
    await expectError(await api(`/players/${BOB}/meta`, { method: 'PUT', json: { key: 'k', value: 'v', extra: true } }), 400, 'VALIDATION_FAILED', '"extra"');
    await expectError(await api('/players/nope/meta'), 400, 'VALIDATION_FAILED', '"uuid"');
    await expectError(await api(`/players/${BOB}/meta/a%20b`, { method: 'DELETE' }), 400, 'VALIDATION_FAILED', '"key"');
  });
});

describe('GET /players: the dashboard’s list', () => {
  test('a bare array of {uuid, name, groups, displayGroup, prefix}, first seen first, filtered by name in any case', async () => {
    const all = await get('/players');
    expect(all).toEqual([
      { uuid: ALICE, name: 'Alice', groups: ['Default', 'VIP'], displayGroup: 'VIP', prefix: '&6[VIP] ' },
      { uuid: BOB, name: 'Bob', groups: ['VIP'], displayGroup: 'VIP', prefix: '&6[VIP] ' },
      { uuid: CAROL, name: 'unknown', groups: ['Admin'], displayGroup: 'Admin', prefix: '&c[Admin] &7' },
    ]);
    expect(await get('/players?q=LIC')).toEqual([all[0]]);
    expect(await get('/players?q=%20bo%20')).toEqual([all[1]]);
    expect(await get('/players?q=zzz')).toEqual([]);
  });

  test('limit is clamped to 1..500, never refused for its size', async () => {
    expect(await get('/players?limit=2')).toHaveLength(2);
    expect(await get('/players?limit=0')).toHaveLength(1);
    expect(await get('/players?limit=-7')).toHaveLength(1);
    expect(await get('/players?limit=100000')).toHaveLength(3);
    await expectError(await api('/players?limit=many'), 400, 'VALIDATION_FAILED', '"limit"');
    await expectError(await api(`/players?q=${'x'.repeat(65)}`), 400, 'VALIDATION_FAILED', '"q"');
  });
});

describe('check and debug', () => {
  const check = (uuid: string, permission: string, query = '') => get(`/check/${uuid}/${permission}${query}`);
  const debug = (uuid: string, permission: string, query = '') => get(`/debug/${uuid}/${permission}${query}`);

  test('check answers {uuid, permission, allowed} for the place asked about; the node in any case', async () => {
    expect(await check(ALICE, 'vip.fly', '?server=Lobby-1')).toEqual({ uuid: ALICE, permission: 'vip.fly', allowed: true });
    expect(await check(ALICE, 'VIP.Fly', '?server=Lobby-1')).toEqual({ uuid: ALICE, permission: 'VIP.Fly', allowed: true });
    expect(await check(ALICE, 'vip.fly')).toEqual({ uuid: ALICE, permission: 'vip.fly', allowed: false });
    expect(await check(ALICE.replace(/-/g, ''), 'vip.chat')).toEqual({ uuid: ALICE, permission: 'vip.chat', allowed: true });
    expect(await check(NOBODY, 'vip.chat')).toEqual({ uuid: NOBODY, permission: 'vip.chat', allowed: false });
  });

  test('the permission is the whole rest of the path, slashes and escapes included', async () => {
    expect(await check(CAROL, 'worldedit/brush/use.now')).toEqual({ uuid: CAROL, permission: 'worldedit/brush/use.now', allowed: true });
    expect(await check(CAROL, 'a%2Fb%20c%25d')).toEqual({ uuid: CAROL, permission: 'a/b c%d', allowed: true });
    expect(await check(ALICE, 'vip/chat')).toEqual({ uuid: ALICE, permission: 'vip/chat', allowed: false });
    expect(await debug(CAROL, 'plugin/sub.node')).toMatchObject({ uuid: CAROL, permission: 'plugin/sub.node', result: true });
  });

  test('debug: result is check’s answer and the reason names the deciding group; rows that do not apply here are context-filtered', async () => {
    const here = await debug(ALICE, 'vip.fly', '?server=Lobby-1');
    expect(here).toEqual({
      uuid: ALICE,
      permission: 'vip.fly',
      result: true,
      reason: "Granted by group 'VIP' (weight 0) via exact match on 'vip.fly'",
      chain: [{ source: 'VIP', permission: 'vip.fly', type: 'exact', granted: true, weight: 0, decisive: true, server: 'Lobby-1' }],
    });
    const elsewhere = await debug(ALICE, 'vip.fly', '?server=Lobby-2');
    expect(elsewhere.result).toBe((await check(ALICE, 'vip.fly', '?server=Lobby-2')).allowed);
    expect(elsewhere.result).toBe(false);
    expect(elsewhere.reason).toContain('Denied');
    expect(elsewhere.chain).toEqual([{ source: 'VIP', permission: 'vip.fly', type: 'context-filtered', granted: false, weight: 0, decisive: false, server: 'Lobby-1' }]);
  });

  test('debug through a parent names both groups and shows an expiry as ISO-8601', async () => {
    await send(`/players/${DAVE}/groups`, 'POST', { group: 'Staff', name: 'Dave' });
    const inherited = await debug(DAVE, 'vip.chat');
    expect(inherited.result).toBe(true);
    expect(inherited.reason).toBe("Granted by group 'VIP' (weight 0, inherited through 'Staff') via exact match on 'vip.chat'");
    expect(inherited.chain).toEqual([{ source: 'VIP', permission: 'vip.chat', type: 'inherited', granted: true, weight: 0, decisive: true, inheritedFrom: 'Staff' }]);
    const temp = await debug(DAVE, 'staff.temp');
    expect(temp.chain).toEqual([{ source: 'Staff', permission: 'staff.temp', type: 'exact', granted: true, weight: 0, decisive: true, expiresAt: FUTURE }]);
  });

  test('a negation in another group: debug and check agree, and weight decides', async () => {
    await send('/groups/Default/permissions', 'POST', { permission: '-vip.*' });
    try {
      const denied = await debug(DAVE, 'vip.chat');
      expect(denied.result).toBe(false);
      expect((await check(DAVE, 'vip.chat')).allowed).toBe(false);
      expect(denied.reason).toBe("Denied — negated by '-vip.*' in group 'Default' (weight 0)");
      expect(denied.chain).toContainEqual({ source: 'Default', permission: '-vip.*', type: 'negated', granted: false, weight: 0, decisive: true });

      await send('/groups/VIP', 'PUT', { weight: 5 });
      const granted = await debug(DAVE, 'vip.chat');
      expect(granted.result).toBe(true);
      expect((await check(DAVE, 'vip.chat')).allowed).toBe(true);
      expect(granted.reason).toContain("Granted by group 'VIP' (weight 5");
    } finally {
      await send('/groups/Default/permissions', 'DELETE', { permission: '-vip.*' });
      await send('/groups/VIP', 'PUT', { weight: 0 });
    }
  });

  test('check and debug refuse an empty or overlong permission, a malformed escape, uuid or server', async () => {
    for (const route of ['check', 'debug']) {
      await expectError(await api(`/${route}/${ALICE}/${'a'.repeat(257)}`), 400, 'VALIDATION_FAILED', '"permission"');
      await expectError(await api(`/${route}/${ALICE}/`), 400, 'VALIDATION_FAILED', '"permission"');
      await expectError(await api(`/${route}/${ALICE}/a%E0%A4%A`), 400, 'VALIDATION_FAILED', '"permission"');
      await expectError(await api(`/${route}/not-a-uuid/a.b`), 400, 'VALIDATION_FAILED', '"uuid"');
      await expectError(await api(`/${route}/${ALICE}/a.b?server=a%20b`), 400, 'VALIDATION_FAILED', '"server"');
    }
    expect((await check(ALICE, 'a'.repeat(256))).allowed).toBe(false);
  });
});
