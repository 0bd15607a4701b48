/**
 * Assignments and what backends read, through a real controller: assigning a pack (scope in
 * any case, GLOBAL without a target, one assignment per pack, scope and target — a duplicate
 * is 409 RESOURCE_PACK_ALREADY_EXISTS, not the reference's 500), listing and removing them
 * (RESOURCE_PACK_UNASSIGNED published, which the reference never did), the stack a backend of
 * a group and service applies (order, names in any case, LOCAL URLs made absolute with the
 * API's real address or `public_base_url`), status telemetry, and which dashboard session
 * nodes each route needs. The stack routes are for API tokens only.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SvcEvent } from '../../../src/events/catalogue';
import { BUILTIN_MODULES } from '../../../src/modules/builtin';
import { resourcePacksModule } from '../../../src/modules/resourcepacks';
import type { Assignment, PackView, ResolvedPack } from '../../../src/modules/resourcepacks/model';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';
import { loginAs, testPlayer } from '../../support/dashboard-login';
import { buildZip, packMcmeta, sha1Hex } from './zip-fixture';

const VIEW = 'svc.dashboard.resourcepacks.view';
const MANAGE = 'svc.dashboard.resourcepacks.manage';
const ASSIGN = 'svc.dashboard.resourcepacks.assign';
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

let c: TestController;
const events: SvcEvent[] = [];

beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES });
  c.controller.kernel.bus.subscribe((e) => events.push(e));
});
afterAll(() => c.stop());

const eventsOf = (type: SvcEvent['type'], since = 0) => events.slice(since).filter((e) => e.type === type);
const packEvents = (since: number) => events.slice(since).filter((e) => e.type.startsWith('RESOURCE_PACK_'));

let n = 0;
async function urlPack(t: TestController = c, extra: Record<string, unknown> = {}): Promise<PackView> {
  n += 1;
  const json = { name: `Pack ${n}`, url: `https://cdn.example.com/packs/${n}.zip`, sha1Hash: sha1Hex(new TextEncoder().encode(`pack ${n}`)), ...extra };
  const res = await t.api('/api/resourcepacks', { method: 'POST', json });
  expect(res.status).toBe(201);
  return (await readJson(res)) as PackView;
}

async function localPack(t: TestController, zip: Uint8Array<ArrayBuffer>): Promise<PackView> {
  const res = await t.api(`/api/resourcepacks/upload?name=Local${++n}`, { method: 'POST', body: zip, headers: { 'content-type': 'application/octet-stream' } });
  expect(res.status).toBe(201);
  return (await readJson(res)) as PackView;
}

const assign = (packId: number, json: unknown, token?: string, t: TestController = c) => t.api(`/api/resourcepacks/${packId}/assignments`, { method: 'POST', json, token });

async function assigned(packId: number, json: Record<string, unknown>, t: TestController = c): Promise<Assignment> {
  const res = await assign(packId, json, undefined, t);
  const body = await readJson(res);
  expect({ status: res.status, body }).toEqual({ status: 201, body: expect.objectContaining({ id: expect.any(Number) }) });
  return body as Assignment;
}

async function refusal(res: Response, status: number, error?: string): Promise<string> {
  const body = await expectErrorBody(res);
  expect({ status: res.status, error: error === undefined ? status : body.error }).toEqual({ status, error: error ?? status });
  return body.message;
}

async function assignmentsOf(query = '', token?: string): Promise<Assignment[]> {
  const res = await c.api(`/api/resourcepacks/assignments${query}`, { token });
  expect(res.status).toBe(200);
  return (await readJson(res)) as Assignment[];
}

async function stackOf(t: TestController, path: string, token = t.service): Promise<ResolvedPack[]> {
  const res = await t.api(`/api/resourcepacks/for-group/${path}`, { token });
  const body = (await readJson(res)) as { packs: ResolvedPack[] };
  expect({ status: res.status, keys: Object.keys(body) }).toEqual({ status: 200, keys: ['packs'] });
  return body.packs;
}

describe('POST /api/resourcepacks/{id}/assignments', () => {
  test('201 {id, packId, scope, target, priority}: scope upper-cased, priority 0 by default; ASSIGNED published and audited', async () => {
    const pack = await urlPack();
    const since = events.length;
    const a = await assigned(pack.id, { scope: 'group', target: 'Lobby' });
    expect(Object.keys(a).sort()).toEqual(['id', 'packId', 'priority', 'scope', 'target']);
    expect(a).toEqual({ id: expect.any(Number), packId: pack.id, scope: 'GROUP', target: 'Lobby', priority: 0 });
    expect(eventsOf('RESOURCE_PACK_ASSIGNED', since).map((e) => ({ actor: e.actor, data: e.data }))).toEqual([
      { actor: 'api:admin', data: { packId: String(pack.id), scope: 'GROUP', target: 'Lobby', moduleId: 'resourcepacks' } },
    ]);
    const audit = await c.api('/api/audit?action=RESOURCE_PACK_ASSIGNED&limit=500');
    const entries = ((await readJson(audit)) as { entries: { actor: string; details: string }[] }).entries;
    expect(entries.filter((e) => e.details.split(', ').includes(`packId=${pack.id}`)).map((e) => e.actor)).toEqual(['api:admin']);
  });

  test('GLOBAL in any case stores the target empty, whatever was sent; SERVICE keeps its target and priority', async () => {
    const pack = await urlPack();
    expect(await assigned(pack.id, { scope: 'Global', target: 'ignored', priority: -4 })).toEqual(expect.objectContaining({ scope: 'GLOBAL', target: '', priority: -4 }));
    expect(await assigned(pack.id, { scope: 'SeRvIcE', target: 'Lobby-1', priority: 7 })).toEqual(expect.objectContaining({ scope: 'SERVICE', target: 'Lobby-1', priority: 7 }));
  });

  const refused: [string, number, string, Record<string, unknown>][] = [
    ['GROUP without target', 400, 'VALIDATION_FAILED', { scope: 'GROUP' }],
    ['GROUP with a blank target', 400, 'VALIDATION_FAILED', { scope: 'GROUP', target: '   ' }],
    ['SERVICE without target', 400, 'VALIDATION_FAILED', { scope: 'SERVICE' }],
    ['SERVICE with an empty target', 400, 'VALIDATION_FAILED', { scope: 'service', target: '' }],
    ['an unknown scope', 400, 'VALIDATION_FAILED', { scope: 'WORLD', target: 'x' }],
    ['no scope', 400, 'VALIDATION_FAILED', { target: 'Lobby' }],
    ['a fractional priority', 400, 'VALIDATION_FAILED', { scope: 'GLOBAL', priority: 1.5 }],
    ['an unknown key', 400, 'VALIDATION_FAILED', { scope: 'GLOBAL', weight: 3 }],
    ['a target over two lines', 400, 'VALIDATION_FAILED', { scope: 'GROUP', target: 'Lobby\nGames' }],
  ];
  test.each(refused)('%s → %d %s, nothing assigned or published', async (_what, status, error, json) => {
    const pack = await urlPack();
    const since = events.length;
    await refusal(await assign(pack.id, json), status, error);
    expect({ stored: await assignmentsOf(`?packId=${pack.id}`), published: packEvents(since) }).toEqual({ stored: [], published: [] });
  });

  test('an unknown pack is 404 RESOURCE_PACK_NOT_FOUND; a non-numeric id is 400', async () => {
    const since = events.length;
    await refusal(await assign(999_999, { scope: 'GLOBAL' }), 404, 'RESOURCE_PACK_NOT_FOUND');
    await refusal(await assign(999_999, { scope: 'GROUP', target: 'Lobby' }), 404, 'RESOURCE_PACK_NOT_FOUND');
    await refusal(await c.api('/api/resourcepacks/abc/assignments', { method: 'POST', json: { scope: 'GLOBAL' } }), 400, 'VALIDATION_FAILED');
    expect(packEvents(since)).toEqual([]);
  });

  test('the same pack, scope and target again — also differing only in case — is 409 RESOURCE_PACK_ALREADY_EXISTS', async () => {
    const pack = await urlPack();
    const group = await assigned(pack.id, { scope: 'GROUP', target: 'Lobby', priority: 1 });
    const global = await assigned(pack.id, { scope: 'GLOBAL' });
    const since = events.length;
    for (const json of [
      { scope: 'GROUP', target: 'Lobby', priority: 1 },
      { scope: 'group', target: 'lobby', priority: 9 },
      { scope: 'GROUP', target: 'LOBBY' },
      { scope: 'GLOBAL' },
      { scope: 'global', target: 'anything' },
    ]) {
      const message = await refusal(await assign(pack.id, json), 409, 'RESOURCE_PACK_ALREADY_EXISTS');
      expect(message).toContain('already assigned');
    }
    expect(await assignmentsOf(`?packId=${pack.id}`)).toEqual([group, global].sort((x, y) => x.priority - y.priority || x.id - y.id));
    expect(packEvents(since)).toEqual([]);
    // The same target at another scope, and another pack at the same place, are different assignments.
    expect((await assign(pack.id, { scope: 'SERVICE', target: 'Lobby' })).status).toBe(201);
    expect((await assign((await urlPack()).id, { scope: 'GROUP', target: 'Lobby' })).status).toBe(201);
  });
});

describe('GET and DELETE /api/resourcepacks/assignments', () => {
  test('a bare array by priority (then creation); ?packId= keeps one pack’s', async () => {
    const first = await urlPack();
    const second = await urlPack();
    const a = await assigned(first.id, { scope: 'GROUP', target: 'Sort', priority: 50 });
    const b = await assigned(second.id, { scope: 'GROUP', target: 'Sort', priority: -50 });
    const d = await assigned(first.id, { scope: 'SERVICE', target: 'Sort-1', priority: 50 });
    const all = await assignmentsOf();
    expect(Array.isArray(all)).toBe(true);
    const sorted = [...all].sort((x, y) => x.priority - y.priority || x.id - y.id);
    expect(all).toEqual(sorted);
    expect(all.filter((x) => [a.id, b.id, d.id].includes(x.id))).toEqual([b, a, d]);
    expect(await assignmentsOf(`?packId=${first.id}`)).toEqual([a, d]);
    expect(await assignmentsOf(`?packId=${second.id}`, c.service)).toEqual([b]);
    expect(await assignmentsOf('?packId=999999')).toEqual([]);
    await refusal(await c.api('/api/resourcepacks/assignments?packId=abc'), 400, 'VALIDATION_FAILED');
  });

  test('DELETE removes one: "Assignment removed", UNASSIGNED {packId, scope, target} published and audited; again → 404', async () => {
    const pack = await urlPack();
    const keep = await assigned(pack.id, { scope: 'GLOBAL' });
    const gone = await assigned(pack.id, { scope: 'SERVICE', target: 'Games-2', priority: 3 });
    const since = events.length;
    const res = await c.api(`/api/resourcepacks/assignments/${gone.id}`, { method: 'DELETE', token: c.service });
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 200, body: { success: true, message: 'Assignment removed' } });
    expect(await assignmentsOf(`?packId=${pack.id}`)).toEqual([keep]);
    expect(packEvents(since).map((e) => ({ type: e.type, actor: e.actor, data: e.data }))).toEqual([
      { type: 'RESOURCE_PACK_UNASSIGNED', actor: 'api:service', data: { packId: String(pack.id), scope: 'SERVICE', target: 'Games-2', moduleId: 'resourcepacks' } },
    ]);
    const audit = await c.api('/api/audit?action=RESOURCE_PACK_UNASSIGNED&limit=500');
    const entries = ((await readJson(audit)) as { entries: { actor: string; details: string }[] }).entries;
    expect(entries.filter((e) => e.details.split(', ').includes(`packId=${pack.id}`)).map((e) => e.actor)).toEqual(['api:service']);

    const again = events.length;
    await refusal(await c.api(`/api/resourcepacks/assignments/${gone.id}`, { method: 'DELETE' }), 404, 'RESOURCE_PACK_ASSIGNMENT_NOT_FOUND');
    await refusal(await c.api('/api/resourcepacks/assignments/987654', { method: 'DELETE' }), 404, 'RESOURCE_PACK_ASSIGNMENT_NOT_FOUND');
    await refusal(await c.api('/api/resourcepacks/assignments/abc', { method: 'DELETE' }), 400, 'VALIDATION_FAILED');
    expect(packEvents(again)).toEqual([]);
  });

  test('a removed assignment can be made again (the 409 is about existing ones only)', async () => {
    const pack = await urlPack();
    const first = await assigned(pack.id, { scope: 'GROUP', target: 'Again' });
    expect((await c.api(`/api/resourcepacks/assignments/${first.id}`, { method: 'DELETE' })).status).toBe(200);
    const second = await assigned(pack.id, { scope: 'group', target: 'again', priority: 2 });
    expect(second).toEqual({ id: expect.any(Number), packId: pack.id, scope: 'GROUP', target: 'again', priority: 2 });
    expect(second.id).not.toBe(first.id);
  });
});

describe('GET /api/resourcepacks/for-group/{group}: the stack a backend applies', () => {
  // A controller of its own: every GLOBAL assignment is in every stack.
  let s: TestController;
  let port: number;
  let zip: Uint8Array<ArrayBuffer>;
  const p: Record<string, PackView> = {};

  beforeAll(async () => {
    s = await startController({ modules: [resourcePacksModule] });
    port = Number(new URL(s.url).port);
    zip = buildZip([{ name: 'pack.mcmeta', content: packMcmeta('stacked') }]);
    for (const name of ['global5', 'globalMinus1', 'group10', 'group0', 'service0', 'otherGroup', 'otherService', 'twice']) p[name] = await urlPack(s, { name, promptMessage: `prompt of ${name}`, force: name === 'group0' });
    p.local = await localPack(s, zip);
    await assigned(p.global5!.id, { scope: 'GLOBAL', priority: 5 }, s);
    await assigned(p.service0!.id, { scope: 'SERVICE', target: 'Lobby-1', priority: 0 }, s);
    await assigned(p.group10!.id, { scope: 'GROUP', target: 'Lobby', priority: 10 }, s);
    await assigned(p.otherGroup!.id, { scope: 'GROUP', target: 'Games', priority: -100 }, s);
    await assigned(p.group0!.id, { scope: 'GROUP', target: 'lobby', priority: 0 }, s);
    await assigned(p.otherService!.id, { scope: 'SERVICE', target: 'Lobby-2', priority: -100 }, s);
    await assigned(p.globalMinus1!.id, { scope: 'GLOBAL', priority: -1 }, s);
    await assigned(p.local!.id, { scope: 'GROUP', target: 'LOBBY', priority: 3 }, s);
    // Assigned everywhere and to the service: it is applied once, at its narrowest place.
    await assigned(p.twice!.id, { scope: 'GLOBAL', priority: -50 }, s);
    await assigned(p.twice!.id, { scope: 'SERVICE', target: 'lobby-1', priority: 1 }, s);
  });
  afterAll(() => s.stop());

  const names = (stack: ResolvedPack[]) => stack.map((item) => item.name);

  test('GLOBAL, then GROUP, then SERVICE, by priority within each; group and service matched in any case', async () => {
    const expected = ['globalMinus1', 'global5', 'group0', p.local!.name, 'group10', 'service0', 'twice'];
    expect(names(await stackOf(s, 'Lobby?service=Lobby-1'))).toEqual(expected);
    expect(names(await stackOf(s, 'LOBBY?service=LOBBY-1'))).toEqual(expected);
    expect(names(await stackOf(s, 'lobby?service=lobby-1'))).toEqual(expected);
  });

  test('without a service only GLOBAL and GROUP apply; an unknown group gets the GLOBAL packs', async () => {
    expect(names(await stackOf(s, 'Lobby'))).toEqual(['twice', 'globalMinus1', 'global5', 'group0', p.local!.name, 'group10']);
    expect(names(await stackOf(s, 'Lobby?service='))).toEqual(['twice', 'globalMinus1', 'global5', 'group0', p.local!.name, 'group10']);
    expect(names(await stackOf(s, 'Nowhere'))).toEqual(['twice', 'globalMinus1', 'global5']);
    expect(names(await stackOf(s, 'Games?service=Games-1'))).toEqual(['twice', 'globalMinus1', 'global5', 'otherGroup']);
  });

  test('every item is {packUuid, name, url, sha1Hash, promptMessage, force, priority}; a URL pack keeps its url', async () => {
    const stack = await stackOf(s, 'Lobby?service=Lobby-1');
    const group0 = stack.find((item) => item.name === 'group0');
    expect(group0).toEqual({ packUuid: p.group0!.packUuid, name: 'group0', url: p.group0!.url, sha1Hash: p.group0!.sha1Hash, promptMessage: 'prompt of group0', force: true, priority: 0 });
    for (const item of stack) expect(Object.keys(item).sort()).toEqual(['force', 'name', 'packUuid', 'priority', 'promptMessage', 'sha1Hash', 'url']);
  });

  test('a LOCAL pack’s url is absolute on the API’s real address, and that url serves the uploaded bytes', async () => {
    const local = (await stackOf(s, 'Lobby')).find((item) => item.packUuid === p.local!.packUuid)!;
    expect(local).toEqual({ packUuid: p.local!.packUuid, name: p.local!.name, url: `http://127.0.0.1:${port}/api/resourcepacks/files/${p.local!.packUuid}.zip`, sha1Hash: sha1Hex(zip), promptMessage: '', force: false, priority: 3 });
    const download = await fetch(local.url);
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(zip);
  });

  test('a removed assignment leaves the stack at once', async () => {
    const extra = await urlPack(s, { name: 'transient' });
    const a = await assigned(extra.id, { scope: 'GROUP', target: 'Transient' }, s);
    expect(names(await stackOf(s, 'Transient'))).toContain('transient');
    expect((await s.api(`/api/resourcepacks/assignments/${a.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(names(await stackOf(s, 'Transient'))).not.toContain('transient');
  });

  test('the master token may read it too; no token is 401', async () => {
    expect(names(await stackOf(s, 'Nowhere', s.master))).toEqual(['twice', 'globalMinus1', 'global5']);
    await refusal(await s.api('/api/resourcepacks/for-group/Lobby', { token: null }), 401);
  });
});

describe('[resourcepacks] public_base_url', () => {
  test('LOCAL urls are made absolute under it, its trailing slash dropped; URL packs are untouched', async () => {
    const t = await startController({ modules: [resourcePacksModule], toml: '[resourcepacks]\npublic_base_url = "https://packs.example.net/"' });
    try {
      const local = await localPack(t, buildZip());
      const remote = await urlPack(t);
      await assigned(local.id, { scope: 'GLOBAL' }, t);
      await assigned(remote.id, { scope: 'GLOBAL', priority: 1 }, t);
      const stack = await stackOf(t, 'Anything?service=Anything-1');
      expect(stack.map((item) => item.url)).toEqual([`https://packs.example.net/api/resourcepacks/files/${local.packUuid}.zip`, remote.url]);
    } finally {
      await t.stop();
    }
  });
});

describe('POST /api/resourcepacks/status', () => {
  const report = (json: unknown, token: string | null = c.service) => c.api('/api/resourcepacks/status', { method: 'POST', json, token });

  test('"Status recorded" and RESOURCE_PACK_STATUS {player, pack, status}: uuids normalised, status upper-cased, not audited', async () => {
    const player = '0A1B2C3D-0000-4000-8000-00000000BEEF';
    const pack = '0f0e0d0c0b0a49088000000000000001';
    const since = events.length;
    const res = await report({ playerUuid: player, packUuid: pack, status: 'successfully_loaded' });
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 200, body: { success: true, message: 'Status recorded' } });
    expect(eventsOf('RESOURCE_PACK_STATUS', since).map((e) => ({ actor: e.actor, data: e.data }))).toEqual([
      { actor: 'api:service', data: { player: player.toLowerCase(), pack: '0f0e0d0c-0b0a-4908-8000-000000000001', status: 'SUCCESSFULLY_LOADED', moduleId: 'resourcepacks' } },
    ]);
    // Telemetry from every join would drown the operator's audit log.
    const audit = await c.api('/api/audit?action=RESOURCE_PACK_STATUS');
    expect(((await readJson(audit)) as { total: number }).total).toBe(0);
  });

  test('the zero pack uuid (a client that named none) is accepted', async () => {
    const since = events.length;
    const res = await report({ playerUuid: testPlayer(7).uuid, packUuid: ZERO_UUID, status: 'DECLINED' });
    expect(res.status).toBe(200);
    expect(eventsOf('RESOURCE_PACK_STATUS', since).map((e) => e.data)).toEqual([{ player: testPlayer(7).uuid, pack: ZERO_UUID, status: 'DECLINED', moduleId: 'resourcepacks' }]);
  });

  const bad: [string, Record<string, unknown>][] = [
    ['a player uuid that is not one', { playerUuid: 'not-a-uuid', packUuid: ZERO_UUID, status: 'ACCEPTED' }],
    ['a pack uuid that is not one', { playerUuid: testPlayer(1).uuid, packUuid: 'zzzzzzzz-0000-0000-0000-000000000000', status: 'ACCEPTED' }],
    ['a status with spaces', { playerUuid: testPlayer(1).uuid, packUuid: ZERO_UUID, status: 'ACCEPTED NOW' }],
    ['an empty status', { playerUuid: testPlayer(1).uuid, packUuid: ZERO_UUID, status: '' }],
    ['a status over 32 characters', { playerUuid: testPlayer(1).uuid, packUuid: ZERO_UUID, status: 'A'.repeat(33) }],
    ['no status', { playerUuid: testPlayer(1).uuid, packUuid: ZERO_UUID }],
    ['an unknown key', { playerUuid: testPlayer(1).uuid, packUuid: ZERO_UUID, status: 'ACCEPTED', extra: 1 }],
  ];
  test.each(bad)('%s → 400 VALIDATION_FAILED, nothing published', async (_what, json) => {
    const since = events.length;
    await refusal(await report(json), 400, 'VALIDATION_FAILED');
    expect(eventsOf('RESOURCE_PACK_STATUS', since)).toEqual([]);
  });

  test('no token is 401', async () => {
    await refusal(await report({ playerUuid: testPlayer(1).uuid, packUuid: ZERO_UUID, status: 'ACCEPTED' }, null), 401);
  });
});

describe('dashboard sessions', () => {
  let viewer: string;
  let manager: string;
  let assigner: string;
  let admin: string;
  const assignerPlayer = testPlayer(63, 'PackAssigner');

  beforeAll(async () => {
    viewer = await loginAs(c, testPlayer(61, 'PackViewer'), [VIEW]);
    manager = await loginAs(c, testPlayer(62, 'PackManager'), [VIEW, MANAGE]);
    assigner = await loginAs(c, assignerPlayer, [VIEW, ASSIGN]);
    admin = await loginAs(c, testPlayer(64, 'NetAdmin'), ['*']);
  });

  test('the view node lists packs and assignments but may not register a pack', async () => {
    expect((await c.api('/api/resourcepacks', { token: viewer })).status).toBe(200);
    expect((await c.api('/api/resourcepacks/assignments', { token: viewer })).status).toBe(200);
    const message = await refusal(await c.api('/api/resourcepacks', { method: 'POST', token: viewer, json: { name: 'x', url: 'https://a.example/x.zip', sha1Hash: 'a'.repeat(40) } }), 403, 'FORBIDDEN');
    expect(message).toContain('Missing permission: svc.dashboard.resourcepacks.manage');
  });

  test('assigning and removing assignments need the assign node; manage alone is not enough', async () => {
    const pack = await urlPack();
    for (const token of [viewer, manager]) {
      const message = await refusal(await assign(pack.id, { scope: 'GLOBAL' }, token), 403, 'FORBIDDEN');
      expect(message).toContain(`Missing permission: ${ASSIGN}`);
    }
    const since = events.length;
    const res = await assign(pack.id, { scope: 'GROUP', target: 'Lobby' }, assigner);
    expect(res.status).toBe(201);
    const a = (await readJson(res)) as Assignment;
    expect(eventsOf('RESOURCE_PACK_ASSIGNED', since).map((e) => e.actor)).toEqual([`dashboard:${assignerPlayer.name}`]);
    await refusal(await c.api(`/api/resourcepacks/assignments/${a.id}`, { method: 'DELETE', token: manager }), 403, 'FORBIDDEN');
    expect((await c.api(`/api/resourcepacks/assignments/${a.id}`, { method: 'DELETE', token: assigner })).status).toBe(200);
  });

  test('the stack and status routes are for API tokens: even a session holding every node gets 403', async () => {
    const message = await refusal(await c.api('/api/resourcepacks/for-group/Lobby?service=Lobby-1', { token: admin }), 403, 'FORBIDDEN');
    expect(message).toContain('API tokens');
    const since = events.length;
    await refusal(await c.api('/api/resourcepacks/status', { method: 'POST', token: admin, json: { playerUuid: testPlayer(1).uuid, packUuid: ZERO_UUID, status: 'ACCEPTED' } }), 403, 'FORBIDDEN');
    expect(eventsOf('RESOURCE_PACK_STATUS', since)).toEqual([]);
    // The same session still reads the list: it is the route, not the session, that refuses.
    expect((await c.api('/api/resourcepacks', { token: admin })).status).toBe(200);
  });
});
