/**
 * Tracks, promotion and demotion, the bulk routes and the module's audit through the API;
 * plus what holds for every route of the module: a token is needed (the service token is
 * enough) and each is in the OpenAPI document with its dashboard permission.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expectErrorBody, readJson } from '../../support/controller';
import { permsController } from './harness';

const h = permsController();
const { api, get, send, expectError, permEvents, events } = h;

const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const NOBODY = '99999999-9999-4999-8999-999999999999';



beforeAll(async () => {
  for (const name of ['Mod', 'Helper']) await send('/groups', 'POST', { name });
  await send(`/players/${ALICE}`, 'PUT', { name: 'Alice' });
});

describe('tracks', () => {
  test('POST creates (201) and announces; GET lists and reads it in any case', async () => {
    events.length = 0;
    const res = await api('/tracks', { method: 'POST', json: { name: 'staff', groups: ['default', 'Mod', 'ADMIN'] }, token: h.c.service });
    expect(res.status).toBe(201);
    expect(await readJson(res)).toEqual({ success: true, message: 'created track staff: Default → Mod → Admin' });
    expect(permEvents()).toEqual([{ type: 'PERMISSION_TRACK_CREATED', track: 'staff', moduleId: 'perms', actor: 'api:service' }]);
    const track = { name: 'staff', groups: ['Default', 'Mod', 'Admin'] };
    expect(await get('/tracks')).toEqual({ tracks: [track], total: 1 });
    expect(await get('/tracks/STAFF')).toEqual(track);
  });

  test.each([
    [{ name: 'short', groups: ['Mod'] }, '"groups"', 'VALIDATION_FAILED'],
    [{ name: 'ghost', groups: ['Mod', 'Nope'] }, 'Nope', 'VALIDATION_FAILED'],
    [{ name: 'twice', groups: ['Mod', 'mod'] }, 'twice', 'VALIDATION_FAILED'],
    [{ name: 'STAFF', groups: ['Mod', 'Admin'] }, 'already exists', 'VALIDATION_FAILED'],
    [{ name: 'bad name', groups: ['Mod', 'Admin'] }, '"name"', 'VALIDATION_FAILED'],
    [{ name: 'ok', groups: ['Mod', 'bad group'] }, '"groups.1"', 'VALIDATION_FAILED'],
    [{ name: 'ok', groups: ['Mod', 'Admin'], ordered: true }, '"ordered"', 'VALIDATION_FAILED'],
    [{ groups: ['Mod', 'Admin'] }, '"name"', 'VALIDATION_FAILED'],
  ])('POST %j is 400 naming %s', async (json, mention, code) => {
    await expectError(await api('/tracks', { method: 'POST', json }), 400, code, mention);
    expect((await get('/tracks')).total).toBe(1);
  });

  test('promote climbs one rung at a time, filling previousGroup; at the top it is 200 with success false', async () => {
    events.length = 0;
    const first = await send(`/tracks/staff/promote/${ALICE}`, 'POST', undefined, h.c.service);
    expect(first).toEqual({ success: true, previousGroup: 'Default', newGroup: 'Mod', message: expect.stringContaining('Alice promoted on staff') });
    expect(permEvents()).toEqual([
      { type: 'PLAYER_PROMOTED', uuid: ALICE, player: 'Alice', track: 'staff', newGroup: 'Mod', moduleId: 'perms', actor: 'api:service' },
      { type: 'PLAYER_PERMISSIONS_UPDATED', uuid: ALICE, player: 'Alice', moduleId: 'perms', actor: 'api:service' },
    ]);
    expect((await get(`/players/${ALICE}`)).groups).toEqual(['Mod']);

    expect(await send(`/tracks/STAFF/promote/${ALICE.replace(/-/g, '')}`, 'POST')).toEqual({ success: true, previousGroup: 'Mod', newGroup: 'Admin', message: expect.any(String) });
    events.length = 0;
    const top = await api(`/tracks/staff/promote/${ALICE}`, { method: 'POST' });
    expect(top.status).toBe(200);
    expect(await readJson(top)).toEqual({ success: false, previousGroup: 'Admin', newGroup: null, message: 'Alice is already at the top of staff' });
    expect(permEvents()).toEqual([]);
    const [entry] = (await get('/audit?action=user.promote&limit=1')).entries;
    expect(entry).toEqual({ timestamp: expect.any(String), actor: 'api:admin', action: 'user.promote', target: 'Alice', details: 'staff: Mod → Admin' });
  });

  test('demote steps down one rung; at the bottom it is 200 with success false', async () => {
    events.length = 0;
    expect(await send(`/tracks/staff/demote/${ALICE}`, 'POST')).toEqual({ success: true, previousGroup: 'Admin', newGroup: 'Mod', message: expect.stringContaining('Alice demoted on staff') });
    expect(permEvents()[0]).toEqual({ type: 'PLAYER_DEMOTED', uuid: ALICE, player: 'Alice', track: 'staff', newGroup: 'Mod', moduleId: 'perms', actor: 'api:admin' });
    expect(await send(`/tracks/staff/demote/${ALICE}`, 'POST')).toMatchObject({ success: true, previousGroup: 'Mod', newGroup: 'Default' });
    const bottom = await api(`/tracks/staff/demote/${ALICE}`, { method: 'POST' });
    expect(bottom.status).toBe(200);
    expect(await readJson(bottom)).toEqual({ success: false, previousGroup: 'Default', newGroup: null, message: 'Alice is already at the bottom of staff' });
  });

  test('an unknown track or player is 404 with the error body; a malformed uuid 400', async () => {
    for (const step of ['promote', 'demote']) {
      await expectError(await api(`/tracks/nope/${step}/${ALICE}`, { method: 'POST' }), 404, 'PERMISSION_TRACK_NOT_FOUND');
      await expectError(await api(`/tracks/staff/${step}/${NOBODY}`, { method: 'POST' }), 404, 'PLAYER_NOT_FOUND');
      await expectError(await api(`/tracks/staff/${step}/12345`, { method: 'POST' }), 400, 'VALIDATION_FAILED', '"uuid"');
    }
    await expectError(await api('/tracks/nope'), 404, 'PERMISSION_TRACK_NOT_FOUND');
    await expectError(await api('/tracks/bad!name'), 400, 'VALIDATION_FAILED', '"name"');
  });

  test('DELETE removes the track and announces it; again it is 404', async () => {
    await send('/tracks', 'POST', { name: 'builders', groups: ['Helper', 'Mod'] });
    events.length = 0;
    expect(await send('/tracks/Builders', 'DELETE', undefined, h.c.service)).toEqual({ success: true, message: 'deleted track builders' });
    expect(permEvents()).toEqual([{ type: 'PERMISSION_TRACK_DELETED', track: 'builders', moduleId: 'perms', actor: 'api:service' }]);
    await expectError(await api('/tracks/builders'), 404, 'PERMISSION_TRACK_NOT_FOUND');
    await expectError(await api('/tracks/builders', { method: 'DELETE' }), 404, 'PERMISSION_TRACK_NOT_FOUND');
    expect((await get('/tracks')).tracks.map((t: { name: string }) => t.name)).toEqual(['staff']);
  });
});

describe('bulk', () => {
  test('one node to many groups: unknown groups are listed, the rest done, one event per group', async () => {
    events.length = 0;
    const body = await send('/bulk/permissions', 'POST', { groups: ['Mod', 'helper', 'Nope'], permission: 'Chat.Color', server: 'Lobby-1' }, h.c.service);
    expect(body).toEqual({ success: false, processed: 2, failed: 1, errors: ['Nope: no permission group by that name'] });
    expect(permEvents()).toEqual([
      { type: 'PERMISSION_GROUP_UPDATED', group: 'Mod', moduleId: 'perms', actor: 'api:service' },
      { type: 'PERMISSION_GROUP_UPDATED', group: 'Helper', moduleId: 'perms', actor: 'api:service' },
    ]);
    for (const group of ['Mod', 'Helper']) expect((await get(`/groups/${group}`)).scopedPermissions).toEqual([{ permission: 'chat.color', server: 'Lobby-1' }]);
    expect(await send('/bulk/permissions', 'POST', { groups: ['Mod'], permission: 'chat.bold' })).toEqual({ success: true, processed: 1, failed: 0, errors: [] });
  });

  test('one group to many players: malformed uuids are listed, unseen players are stored as "unknown"', async () => {
    events.length = 0;
    const body = await send('/bulk/groups', 'POST', { players: [ALICE, BOB.replace(/-/g, '').toUpperCase(), 'not-a-uuid'], group: 'helper' });
    expect(body).toEqual({ success: false, processed: 2, failed: 1, errors: ['not-a-uuid: not a UUID'] });
    expect(permEvents().map((e) => [e.type, e.uuid, e.player, e.actor])).toEqual([
      ['PLAYER_PERMISSIONS_UPDATED', ALICE, 'Alice', 'api:admin'],
      ['PLAYER_PERMISSIONS_UPDATED', BOB, 'unknown', 'api:admin'],
    ]);
    expect((await get(`/players/${BOB}`)).groups).toEqual(['Helper']);
    expect((await get(`/players/${ALICE}`)).groups).toEqual(['Default', 'Helper']);
  });

  test.each([
    ['/bulk/permissions', { groups: ['Mod'], permission: 'a*b' }, '"permission"'],
    ['/bulk/permissions', { groups: ['Mod'], permission: 'a..b' }, '"permission"'],
    ['/bulk/permissions', { groups: [], permission: 'a.b' }, '"groups"'],
    ['/bulk/permissions', { groups: Array.from({ length: 1001 }, (_, i) => `g${i}`), permission: 'a.b' }, '"groups"'],
    ['/bulk/permissions', { groups: ['Mod'], permission: 'a.b', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
    ['/bulk/permissions', { groups: ['Mod'], permission: 'a.b', group: 'Mod' }, '"group"'],
    ['/bulk/groups', { players: [], group: 'Mod' }, '"players"'],
    ['/bulk/groups', { players: Array.from({ length: 10_001 }, () => ALICE), group: 'Mod' }, '"players"'],
    ['/bulk/groups', { players: [ALICE], group: 'bad group' }, '"group"'],
    ['/bulk/groups', { players: [ALICE], group: 'Mod', world: 'a b' }, 'world'],
  ])('POST %s %j is 400 VALIDATION_FAILED naming %s; nothing changes', async (path, json, mention) => {
    events.length = 0;
    await expectError(await api(path, { method: 'POST', json }), 400, 'VALIDATION_FAILED', mention);
    expect(permEvents()).toEqual([]);
  });

  test('bulk groups into an unknown group is 404 PERMISSION_GROUP_NOT_FOUND', async () => {
    await expectError(await api('/bulk/groups', { method: 'POST', json: { players: [ALICE], group: 'Nope' } }), 404, 'PERMISSION_GROUP_NOT_FOUND');
  });
});

describe('audit', () => {
  interface Entry {
    timestamp: string;
    actor: string;
    action: string;
    target: string;
    details: string;
  }
  const page = async (query: string): Promise<{ entries: Entry[]; total: number }> => get(`/audit${query}`);

  test('newest first, with the caller as actor; total is the filtered count, not the page size', async () => {
    const everything = await page('?limit=500');
    expect(everything.total).toBe(everything.entries.length);
    const times = everything.entries.map((e) => Date.parse(e.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(everything.entries.at(-1)).toEqual({ timestamp: expect.any(String), actor: 'system', action: 'group.create', target: 'Default', details: 'default' });

    const byService = await page('?actor=api:service&limit=500');
    expect(byService.total).toBe(everything.entries.filter((e) => e.actor === 'api:service').length);
    expect(byService.entries.every((e) => e.actor === 'api:service')).toBe(true);
    expect(byService.entries.map((e) => e.action)).toContain('track.create');

    const creates = await page('?action=group.create&limit=1');
    expect(creates.entries).toHaveLength(1);
    expect(creates.total).toBe(everything.entries.filter((e) => e.action === 'group.create').length);
    expect(creates.entries[0]).toMatchObject({ action: 'group.create', target: 'Helper', actor: 'api:admin' });
    const second = await page('?action=group.create&limit=1&offset=1');
    expect(second.entries[0]!.target).toBe('Mod');
    expect(second.total).toBe(creates.total);

    expect(await page('?target=Alice&action=user.demote')).toMatchObject({ total: 2 });
    expect(await page('?actor=nobody')).toEqual({ entries: [], total: 0 });
  });

  test('limit is clamped to 1..500 and offset to ≥ 0; non-numbers are 400', async () => {
    expect((await page('?limit=0')).entries).toHaveLength(1);
    expect((await page('?limit=-3&offset=-9')).entries).toHaveLength(1);
    expect((await page('?limit=100000')).entries.length).toBe((await page('?limit=500')).entries.length);
    await expectError(await api('/audit?limit=ten'), 400, 'VALIDATION_FAILED', '"limit"');
    await expectError(await api('/audit?offset=x'), 400, 'VALIDATION_FAILED', '"offset"');
  });
});

/** Every route of the module, with a body where it needs one. */
const ROUTES: [string, string, unknown?][] = [
  ['GET', '/groups'],
  ['POST', '/groups', { name: 'X' }],
  ['GET', '/groups/Mod'],
  ['PUT', '/groups/Mod', { prefix: 'x' }],
  ['DELETE', '/groups/Mod'],
  ['POST', '/groups/Mod/permissions', { permission: 'a.b' }],
  ['DELETE', '/groups/Mod/permissions', { permission: 'a.b' }],
  ['GET', '/groups/Mod/meta'],
  ['PUT', '/groups/Mod/meta', { key: 'k', value: 'v' }],
  ['DELETE', '/groups/Mod/meta/k'],
  ['GET', '/players'],
  ['GET', `/players/${ALICE}`],
  ['PUT', `/players/${ALICE}`, { name: 'Alice' }],
  ['POST', `/players/${ALICE}/groups`, { group: 'Mod' }],
  ['DELETE', `/players/${ALICE}/groups`, { group: 'Mod' }],
  ['GET', `/players/${ALICE}/meta`],
  ['PUT', `/players/${ALICE}/meta`, { key: 'k', value: 'v' }],
  ['DELETE', `/players/${ALICE}/meta/k`],
  ['GET', `/check/${ALICE}/a.b`],
  ['GET', `/debug/${ALICE}/a.b`],
  ['GET', '/tracks'],
  ['POST', '/tracks', { name: 't', groups: ['Mod', 'Admin'] }],
  ['GET', '/tracks/staff'],
  ['DELETE', '/tracks/staff'],
  ['POST', `/tracks/staff/promote/${ALICE}`],
  ['POST', `/tracks/staff/demote/${ALICE}`],
  ['POST', '/bulk/permissions', { groups: ['Mod'], permission: 'a.b' }],
  ['POST', '/bulk/groups', { players: [ALICE], group: 'Mod' }],
  ['GET', '/audit'],
];

describe('every route', () => {
  test('needs a token: none or a wrong one is 401 and changes nothing', async () => {
    expect(ROUTES).toHaveLength(29);
    const before = await page();
    for (const [method, path, json] of ROUTES) {
      for (const token of [null, 'wrong-token-0123456789abcdef']) {
        const res = await api(path, { method, json, token });
        expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 401`);
        await expectErrorBody(res);
      }
    }
    expect(await page()).toEqual(before);
  });

  test('is in the OpenAPI document under the permissions tag with its dashboard permission', async () => {
    const doc = await readJson(await h.c.api('/api/openapi.json', { token: null }));
    const toDoc = (path: string) =>
      `/api/permissions${path}`
        .replace(/\/check\/[^/]+\/.*$/, '/check/{uuid}/{path}')
        .replace(/\/debug\/[^/]+\/.*$/, '/debug/{uuid}/{path}')
        .replace(ALICE, '{uuid}')
        .replace(/\/(groups|tracks)\/(Mod|staff)/, '/$1/{name}')
        .replace(/\/meta\/k$/, '/meta/{key}');
    for (const [method, path] of ROUTES) {
      const op = doc.paths[toDoc(path)]?.[method.toLowerCase()];
      expect(op ? `${method} ${path}` : `missing ${method} ${toDoc(path)}`).toBe(`${method} ${path}`);
      expect(op.tags).toEqual(['permissions']);
      expect(op['x-svc-auth']).toBe('service');
      // The bridge's register-and-look-up call is for the proxy's credential only (no session).
      if (method === 'PUT' && path.startsWith('/players/') && !path.includes('/meta')) expect(op['x-svc-machine-only']).toBe(true);
      else expect(op['x-svc-permission']).toBe(method === 'GET' ? 'svc.dashboard.perms.view' : 'svc.dashboard.perms.manage');
    }
    const ours = Object.keys(doc.paths).filter((p) => p.startsWith('/api/permissions/'));
    expect(ours.flatMap((p) => Object.keys(doc.paths[p])).length).toBe(29);
    expect(doc.paths['/api/permissions/check/{uuid}/{path}'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['path', 'server', 'uuid', 'world']);
  });

  async function page() {
    return get('/audit?limit=500');
  }
});
