/**
 * The players module through the API with real processes: the bridge's events (POST
 * /api/proxy/events) open and close sessions, the roster and history routes answer the
 * shapes the dashboard reads, a service that stops or crashes ends its sessions, and the last
 * proxy going ends them all. The console-recorder fixture stands in for proxy and backends.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { playersModule } from '../../../src/modules/players';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../../support/controller';

const RECORDER = join(import.meta.dir, '../../fixtures/console-recorder.ts');
const command = [process.execPath, RECORDER];
const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const CAROL = '33333333-3333-4333-8333-333333333333';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let c: TestController;

beforeAll(async () => {
  c = await startController({ modules: [playersModule], timing: { stopTimeoutMs: 3000 } });
  const groups = [
    { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', startCommand: command, minInstances: 0 },
    { name: 'Lobby', software: 'CUSTOM', version: '1.21.1', startCommand: command, minInstances: 0, maxInstances: 2 },
    { name: 'Game', software: 'CUSTOM', version: '1.21.1', startCommand: command, minInstances: 0 },
  ];
  for (const group of groups) expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  for (const group of ['Proxy', 'Lobby', 'Lobby', 'Game']) expect((await c.api(`/api/services/${group}/start`, { method: 'POST' })).status).toBe(201);
  for (const name of ['Proxy-1', 'Lobby-1', 'Lobby-2', 'Game-1']) {
    await waitFor(async () => (await readJson(await c.api(`/api/services/${name}`))).state === 'READY', { timeoutMs: 20_000, what: `${name} READY` });
  }
}, 60_000);
afterAll(() => c.stop());

const post = (json: unknown) => c.api('/api/proxy/events', { method: 'POST', json, token: c.service });
const get = async (path: string) => {
  const res = await c.api(path, { token: c.service });
  expect(res.status).toBe(200);
  return readJson(res);
};

describe('sessions from the bridge', () => {
  test('connect, switch and disconnect: roster, history, info and stats answer the dashboard shapes', async () => {
    expect((await post({ type: 'PLAYER_CONNECTED', player: 'Alice', uuid: ALICE, service: 'Lobby-1' })).status).toBe(200);
    expect((await post({ type: 'PLAYER_CONNECTED', player: 'Bob', uuid: BOB.replace(/-/g, '').toUpperCase(), service: 'Lobby-1' })).status).toBe(200);

    const online = await get('/api/players/online');
    expect(online.map((p: { name: string }) => p.name).sort()).toEqual(['Alice', 'Bob']);
    const alice = online.find((p: { name: string }) => p.name === 'Alice');
    expect(alice).toEqual({ uuid: ALICE, name: 'Alice', service: 'Lobby-1', group: 'Lobby', connectedAt: expect.stringMatching(ISO), proxy: null });
    expect(await get(`/api/players/online/${ALICE}`)).toEqual(alice);
    // The undashed, upper-case uuid the bridge may send is the same player.
    expect((await get(`/api/players/online/${BOB.replace(/-/g, '')}`)).uuid).toBe(BOB);

    expect((await post({ type: 'PLAYER_SERVER_SWITCH', player: 'Alice', uuid: ALICE, fromService: 'Lobby-1', toService: 'Game-1' })).status).toBe(200);
    const history = await get(`/api/players/history/${ALICE}`);
    expect(history).toEqual([
      { service: 'Game-1', group: 'Game', connectedAt: expect.stringMatching(ISO), disconnectedAt: null },
      { service: 'Lobby-1', group: 'Lobby', connectedAt: alice.connectedAt, disconnectedAt: expect.stringMatching(ISO) },
    ]);
    expect(await get(`/api/players/info/${ALICE}`)).toEqual({
      uuid: ALICE,
      name: 'Alice',
      firstSeen: alice.connectedAt,
      lastSeen: expect.stringMatching(ISO),
      totalPlaytimeSeconds: expect.any(Number),
      online: true,
      currentService: 'Game-1',
    });
    expect(await get('/api/players/stats')).toEqual({ online: 2, totalUnique: 2, perService: { 'Game-1': 1, 'Lobby-1': 1 } });

    expect((await post({ type: 'PLAYER_DISCONNECTED', player: 'Bob', uuid: BOB, service: 'Lobby-1' })).status).toBe(200);
    expect(await get(`/api/players/info/${BOB}`)).toMatchObject({ online: false, currentService: null });
    expect(await get('/api/players/all?q=bo')).toEqual([
      { uuid: BOB, name: 'Bob', firstSeen: expect.stringMatching(ISO), lastSeen: expect.stringMatching(ISO), totalPlaytimeSeconds: expect.stringMatching(/^\d+$/), online: 'false' },
    ]);
    expect((await get('/api/players/all')).map((p: { name: string; online: string }) => [p.name, p.online]).sort()).toEqual([
      ['Alice', 'true'],
      ['Bob', 'false'],
    ]);
  });

  test('GET /api/players answers from the module roster, with the names the bridge reads', async () => {
    const listing = await get('/api/players');
    expect(listing.players).toEqual([{ name: 'Alice', uuid: ALICE, service: 'Game-1', server: 'Game-1', group: 'Game', source: 'roster', proxy: null }]);
    expect(listing).toMatchObject({ total: 1, count: 1, online: 1, services: [] });
  });

  test('a name of 32 characters (a Bedrock prefix) is kept whole; 33 is refused', async () => {
    const long = `.${'B'.repeat(31)}`;
    expect((await post({ type: 'PLAYER_CONNECTED', player: long, uuid: CAROL, service: 'Lobby-2' })).status).toBe(200);
    expect((await get(`/api/players/online/${CAROL}`)).name).toBe(long);
    const res = await post({ type: 'PLAYER_CONNECTED', player: `${long}x`, uuid: CAROL, service: 'Lobby-2' });
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).error).toBe('VALIDATION_FAILED');
    expect((await post({ type: 'PLAYER_DISCONNECTED', player: long, uuid: CAROL, service: 'Lobby-2' })).status).toBe(200);
  });
});

describe('limits and validation', () => {
  test('history and all clamp their limits instead of refusing them', async () => {
    for (let i = 0; i < 4; i++) {
      expect((await post({ type: 'PLAYER_SERVER_SWITCH', player: 'Alice', uuid: ALICE, toService: i % 2 ? 'Game-1' : 'Lobby-2' })).status).toBe(200);
    }
    expect(await get(`/api/players/history/${ALICE}?limit=0`)).toHaveLength(1);
    expect(await get(`/api/players/history/${ALICE}?limit=-5`)).toHaveLength(1);
    expect((await get(`/api/players/history/${ALICE}?limit=100000`)).length).toBe(6);
    expect(await get('/api/players/all?limit=0')).toHaveLength(1);
    expect((await get('/api/players/all?limit=999999')).length).toBe(3);
  });

  test('q is a plain substring: % and _ are not wildcards', async () => {
    expect(await get('/api/players/all?q=%25')).toEqual([]);
    expect(await get('/api/players/all?q=_')).toEqual([]);
    expect((await get('/api/players/all?q=LIC')).map((p: { name: string }) => p.name)).toEqual(['Alice']);
  });

  test.each([
    ['/api/players/online/not-a-uuid'],
    ['/api/players/history/123'],
    ['/api/players/info/zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz'],
    [`/api/players/history/${ALICE}?limit=ten`],
    [`/api/players/all?q=${'x'.repeat(65)}`],
  ])('%s → 400 VALIDATION_FAILED', async (path) => {
    const res = await c.api(path);
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).error).toBe('VALIDATION_FAILED');
  });

  test('404 PLAYER_NOT_ONLINE and PLAYER_NOT_FOUND', async () => {
    const nobody = '99999999-9999-4999-8999-999999999999';
    let res = await c.api(`/api/players/online/${BOB}`);
    expect(res.status).toBe(404);
    expect((await expectErrorBody(res)).error).toBe('PLAYER_NOT_ONLINE');
    res = await c.api(`/api/players/info/${nobody}`);
    expect(res.status).toBe(404);
    expect((await expectErrorBody(res)).error).toBe('PLAYER_NOT_FOUND');
    // Someone never seen has no sessions: an empty history, not an error.
    expect(await get(`/api/players/history/${nobody}`)).toEqual([]);
  });

  test.each(['/api/players/online', `/api/players/online/${ALICE}`, `/api/players/history/${ALICE}`, `/api/players/info/${ALICE}`, '/api/players/all', '/api/players/stats'])(
    '%s needs a token',
    async (path) => {
      const res = await c.api(path, { token: null });
      expect(res.status).toBe(401);
      await expectErrorBody(res);
      expect((await c.api(path, { token: 'wrong-token-0123456789abcdef' })).status).toBe(401);
    },
  );

  test('the routes name their dashboard permission in the OpenAPI document', async () => {
    const doc = await readJson(await c.api('/api/openapi.json', { token: null }));
    expect(doc.paths['/api/players/history/{uuid}'].get['x-svc-permission']).toBe('svc.dashboard.players.history');
    expect(doc.paths['/api/players/stats'].get['x-svc-permission']).toBe('svc.dashboard.players.view');
  });
});

describe('sessions end with their service', () => {
  test('a crashed service closes its sessions at that moment; the players on others stay', async () => {
    expect((await post({ type: 'PLAYER_CONNECTED', player: 'Bob', uuid: BOB, service: 'Lobby-2' })).status).toBe(200);
    const before = await get('/api/players/stats');
    expect(before.perService['Lobby-2']).toBe(1);
    const killedAt = Date.now();
    c.controller.kernel.manager.kill('Lobby-2');
    await waitFor(async () => (await get('/api/players/stats')).perService['Lobby-2'] === undefined, { what: 'Lobby-2 sessions closed' });
    const [last] = await get(`/api/players/history/${BOB}?limit=1`);
    expect(last.service).toBe('Lobby-2');
    expect(Date.parse(last.disconnectedAt)).toBeGreaterThanOrEqual(killedAt);
    expect((await get(`/api/players/online`)).map((p: { name: string }) => p.name)).toEqual(['Alice']);
  });

  test('the players console command lists, shows a player, their history and the totals', async () => {
    const run = async (args: string[]) => {
      const res = await c.api('/api/commands/players/execute', { method: 'POST', json: { args } });
      expect(res.status).toBe(200);
      return (await readJson(res)).lines.map((l: { text: string }) => l.text).join('\n');
    };
    expect(await run([])).toMatch(/1 player\(s\) online\nAlice {2}on Game-1 \(Game\)/);
    expect(await run(['list', 'Lobby-1'])).toBe('0 player(s) online on Lobby-1');
    expect(await run(['info', 'bob'])).toMatch(/^Bob \(22222222-2222-4222-8222-222222222222\)\noffline\nfirst seen .*\nlast seen .*\nplaytime \d+s$/);
    expect((await run(['history', 'Alice'])).split('\n')[0]).toBe('last 6 session(s) of Alice');
    expect(await run(['stats'])).toBe('1 online, 3 ever seen\nGame-1: 1');
    const res = await c.api('/api/commands/players/execute', { method: 'POST', json: { args: ['info', 'Nobody'] } });
    expect((await readJson(res)).lines.at(-1).text).toMatch(/no player named Nobody/);
  });

  test('the last proxy going ends every session', async () => {
    expect((await get('/api/players/stats')).online).toBe(1);
    expect((await c.api('/api/services/Proxy-1/stop', { method: 'POST' })).status).toBe(200);
    await waitFor(async () => (await get('/api/players/stats')).online === 0, { what: 'every session closed' });
    expect((await get(`/api/players/history/${ALICE}?limit=1`))[0].disconnectedAt).toMatch(ISO);
    expect(await get('/api/players/online')).toEqual([]);
  });
});
