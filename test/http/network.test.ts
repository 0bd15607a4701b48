/**
 * The network layer through the API with real processes: the roster and live group totals,
 * broadcast to exactly the targeted consoles, send and kick through the proxy, and what
 * happens without a proxy. The console-recorder fixture writes every stdin line it receives
 * to console-input.txt in its work dir, so the tests read what each service really got.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcEvent } from '../../src/events/catalogue';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';

const RECORDER = join(import.meta.dir, '../fixtures/console-recorder.ts');
const command = [process.execPath, RECORDER];
const ALICE = '11111111-1111-1111-1111-111111111111';
const BOB = '22222222-2222-2222-2222-222222222222';

let c: TestController;
const events: SvcEvent[] = [];

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 5000 } });
  c.controller.kernel.bus.subscribe((e) => events.push(e));
  const groups = [
    { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', startCommand: command, minInstances: 0 },
    { name: 'Lobby', type: 'LOBBY', software: 'CUSTOM', version: '1.21.1', startCommand: command, minInstances: 0, maxInstances: 2, maxPlayers: 20 },
    { name: 'Game', software: 'CUSTOM', version: '1.21.1', startCommand: command, minInstances: 0, maxPlayers: 10 },
  ];
  for (const group of groups) expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  for (const group of ['Proxy', 'Lobby', 'Lobby', 'Game']) expect((await c.api(`/api/services/${group}/start`, { method: 'POST' })).status).toBe(201);
  for (const name of ['Proxy-1', 'Lobby-1', 'Lobby-2', 'Game-1']) await ready(name);
}, 60_000);
afterAll(() => c.stop());

async function ready(name: string): Promise<void> {
  await waitFor(async () => (await readJson(await c.api(`/api/services/${name}`))).state === 'READY', { timeoutMs: 20_000, what: `${name} READY` });
}

/** Every line the service's console received so far. */
function consoleOf(name: string): string[] {
  const file = join(c.controller.kernel.services.get(name)!.workDir, 'console-input.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

const received = (name: string, line: string) => waitFor(() => consoleOf(name).includes(line), { what: `${name} to receive ${JSON.stringify(line)}` });

async function status(): Promise<{ totalPlayers: number; groups: { name: string; players: number }[] }> {
  return readJson(await c.api('/api/status'));
}
const playersOf = async (group: string) => (await status()).groups.find((g) => g.name === group)!.players;

const post = (json: unknown) => c.api('/api/proxy/events', { method: 'POST', json, token: c.service });

describe('the roster', () => {
  test('connect, switch and disconnect move the roster, the events and the group totals', async () => {
    const before = events.length;
    expect((await post({ type: 'PLAYER_CONNECTED', player: 'Alice', uuid: ALICE, service: 'Lobby-1' })).status).toBe(200);
    expect((await post({ type: 'PLAYER_CONNECTED', player: 'Bob', uuid: BOB.replace(/-/g, ''), service: 'Lobby-1' })).status).toBe(200);
    expect(await playersOf('Lobby')).toBe(2);
    expect((await status()).totalPlayers).toBe(2);

    expect((await post({ type: 'PLAYER_SERVER_SWITCH', player: 'Alice', uuid: ALICE, service: 'Game-1', fromService: 'Lobby-1', toService: 'Game-1' })).status).toBe(200);
    expect(await playersOf('Lobby')).toBe(1);
    expect(await playersOf('Game')).toBe(1);
    // A bridge that retries its post moves nothing twice.
    expect((await post({ type: 'PLAYER_SERVER_SWITCH', player: 'Alice', uuid: ALICE, fromService: 'Lobby-1', toService: 'Game-1' })).status).toBe(200);
    expect(await playersOf('Game')).toBe(1);

    expect((await post({ type: 'PLAYER_DISCONNECTED', player: 'Bob', uuid: BOB, service: 'Lobby-1' })).status).toBe(200);
    expect((await post({ type: 'PLAYER_DISCONNECTED', player: 'Bob', uuid: BOB, service: 'Lobby-1' })).status).toBe(200);
    expect(await playersOf('Lobby')).toBe(0);
    expect((await status()).totalPlayers).toBe(1);

    const players = events.slice(before).filter((e) => e.type.startsWith('PLAYER_'));
    expect(players.map((e) => [e.type, e.data])).toEqual([
      ['PLAYER_CONNECTED', { player: 'Alice', uuid: ALICE, service: 'Lobby-1' }],
      ['PLAYER_CONNECTED', { player: 'Bob', uuid: BOB, service: 'Lobby-1' }],
      ['PLAYER_SERVER_SWITCH', { player: 'Alice', uuid: ALICE, from: 'Lobby-1', to: 'Game-1' }],
      ['PLAYER_SERVER_SWITCH', { player: 'Alice', uuid: ALICE, from: 'Lobby-1', to: 'Game-1' }],
      ['PLAYER_DISCONNECTED', { player: 'Bob', uuid: BOB, service: 'Lobby-1' }],
      ['PLAYER_DISCONNECTED', { player: 'Bob', uuid: BOB, service: 'Lobby-1' }],
    ]);
    expect(players.every((e) => e.actor === 'api:service')).toBe(true);
  });

  test("GET /api/players carries the bridge's fields: count beside total, server beside service", async () => {
    const listing = await readJson(await c.api('/api/players', { token: c.service }));
    expect(listing.players).toEqual([{ name: 'Alice', uuid: ALICE, service: 'Game-1', server: 'Game-1', group: 'Game', source: 'roster', proxy: null }]);
    expect(listing.total).toBe(1);
    expect(listing.count).toBe(1);
  });

  test('an SDK report is an absolute reading; proxy events move the count from there', async () => {
    expect((await c.api('/api/services/Lobby-2/players', { method: 'PUT', json: { playerCount: 7 } })).status).toBe(200);
    expect(await playersOf('Lobby')).toBe(7);
    await post({ type: 'PLAYER_CONNECTED', player: 'Carol', uuid: '33333333-3333-3333-3333-333333333333', service: 'Lobby-2' });
    expect(await playersOf('Lobby')).toBe(8);
    expect((await c.api('/api/services/Lobby-2/players', { method: 'PUT', json: { playerCount: 3 } })).status).toBe(200);
    expect(await playersOf('Lobby')).toBe(3);
    await post({ type: 'PLAYER_DISCONNECTED', player: 'Carol', uuid: '33333333-3333-3333-3333-333333333333', service: 'Lobby-2' });
    expect(await playersOf('Lobby')).toBe(2);
  });

  test('a malformed uuid or player name is a 400 and changes nothing', async () => {
    const before = events.length;
    for (const body of [
      { type: 'PLAYER_CONNECTED', player: 'Eve', uuid: 'not-a-uuid', service: 'Lobby-1' },
      { type: 'PLAYER_CONNECTED', player: 'Eve', uuid: '1111111-1111-1111-1111-1111111111111', service: 'Lobby-1' },
      { type: 'PLAYER_CONNECTED', player: 'Eve stop', uuid: ALICE, service: 'Lobby-1' },
      { type: 'PLAYER_JUMPED', player: 'Eve', uuid: ALICE, service: 'Lobby-1' },
      { type: 'PLAYER_SERVER_SWITCH', player: 'Eve', uuid: ALICE, fromService: 'Lobby-1' },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).error).toBe('VALIDATION_FAILED');
    }
    expect(events.slice(before).filter((e) => e.type.startsWith('PLAYER_'))).toEqual([]);
    expect((await c.api('/api/proxy/events', { method: 'POST', json: { type: 'PLAYER_CONNECTED', player: 'Eve', uuid: ALICE, service: 'x' }, token: null })).status).toBe(401);
  });
});

describe('broadcast', () => {
  test('reaches exactly the READY services: the broadcast command on the proxy, say on backends', async () => {
    const res = await c.api('/api/broadcast', { method: 'POST', json: { message: 'restart in 5 minutes' }, token: c.service });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ success: true, services: 4 });
    expect(body.targets).toEqual(['Game-1', 'Lobby-1', 'Lobby-2', 'Proxy-1']);
    await received('Proxy-1', 'velocity broadcast restart in 5 minutes');
    for (const name of ['Lobby-1', 'Lobby-2', 'Game-1']) await received(name, 'say restart in 5 minutes');
    expect(consoleOf('Proxy-1')).not.toContain('say restart in 5 minutes');
  });

  test('group narrows it; an unknown group is GROUP_NOT_FOUND; a second line is refused', async () => {
    const res = await c.api('/api/broadcast', { method: 'POST', json: { message: 'lobby only', group: 'Lobby' } });
    expect(await readJson(res)).toMatchObject({ success: true, services: 2, targets: ['Lobby-1', 'Lobby-2'] });
    await received('Lobby-1', 'say lobby only');
    await received('Lobby-2', 'say lobby only');
    // Lines written later arrive later: once this marker is in, "lobby only" would have been too.
    await c.api('/api/services/Game-1/exec', { method: 'POST', json: { command: 'marker' } });
    await c.api('/api/services/Proxy-1/exec', { method: 'POST', json: { command: 'marker' } });
    await received('Game-1', 'marker');
    await received('Proxy-1', 'marker');
    expect(consoleOf('Game-1').some((l) => l.includes('lobby only'))).toBe(false);
    expect(consoleOf('Proxy-1').some((l) => l.includes('lobby only'))).toBe(false);

    const unknown = await c.api('/api/broadcast', { method: 'POST', json: { message: 'x', group: 'Nope' } });
    expect(unknown.status).toBe(404);
    expect((await expectErrorBody(unknown)).error).toBe('GROUP_NOT_FOUND');
    const injected = await c.api('/api/broadcast', { method: 'POST', json: { message: 'hi\nstop' } });
    expect(injected.status).toBe(400);
    expect((await expectErrorBody(injected)).error).toBe('VALIDATION_FAILED');
  });
});

describe('messages', () => {
  test('a message to a service or to the controller is a SERVICE_MESSAGE with the sender data at top level', async () => {
    const before = events.length;
    expect((await c.api('/api/services/Game-1/message', { method: 'POST', json: { from: 'Lobby-1', channel: 'queue', data: { party: 'red', size: 3 } }, token: c.service })).status).toBe(200);
    expect((await c.api('/api/services/controller/message', { method: 'POST', json: { from: 'Game-1', channel: 'stats', data: {} } })).status).toBe(200);
    expect(events.slice(before).filter((e) => e.type === 'SERVICE_MESSAGE').map((e) => e.data)).toEqual([
      { party: 'red', size: '3', from: 'Lobby-1', to: 'Game-1', channel: 'queue' },
      { from: 'Game-1', to: 'controller', channel: 'stats' },
    ]);
  });
});

describe('send and kick', () => {
  test('go to the READY proxy console; validation and offline players are refused', async () => {
    const sent = await c.api('/api/players/Alice/send', { method: 'POST', json: { targetService: 'Lobby-2' }, token: c.service });
    expect(sent.status).toBe(200);
    expect(await readJson(sent)).toMatchObject({ success: true, proxies: ['Proxy-1'] });
    await received('Proxy-1', 'send Alice Lobby-2');

    const kicked = await c.api('/api/players/Alice/kick', { method: 'POST', json: { reason: 'be nice' } });
    expect(kicked.status).toBe(200);
    await received('Proxy-1', 'velocity kick Alice be nice');

    // Bob was seen leaving: the roster knows he is not online.
    const offline = await c.api('/api/players/Bob/kick', { method: 'POST', json: { reason: 'x' } });
    expect(offline.status).toBe(404);
    expect((await expectErrorBody(offline)).error).toBe('PLAYER_NOT_ONLINE');
    // A name the roster never saw may be online (joined before this controller): it goes through.
    expect((await c.api('/api/players/Zed/send', { method: 'POST', json: { targetService: 'Game-1' } })).status).toBe(200);

    const cases: [string, unknown, number, string][] = [
      ['/api/players/Alice/send', { targetService: 'Nope-1' }, 404, 'SERVICE_NOT_FOUND'],
      ['/api/players/Alice/send', { targetService: 'Proxy-1' }, 400, 'VALIDATION_FAILED'],
      ['/api/players/Alice/send', { targetService: 'Game-1 ; stop' }, 400, 'VALIDATION_FAILED'],
      ['/api/players/Al%20ice/send', { targetService: 'Game-1' }, 400, 'VALIDATION_FAILED'],
      ['/api/players/Alice/kick', { reason: 'bye\nend' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [path, json, code, error] of cases) {
      const res = await c.api(path, { method: 'POST', json });
      expect(res.status).toBe(code);
      expect((await expectErrorBody(res)).error).toBe(error);
    }
    expect(consoleOf('Proxy-1').filter((l) => l.startsWith('send ') || l.startsWith('velocity kick'))).toEqual(['send Alice Lobby-2', 'velocity kick Alice be nice', 'send Zed Game-1']);
  });

  test('without a READY proxy: 503 PROXY_NOT_AVAILABLE, and the roster empties with the last proxy', async () => {
    expect((await status()).totalPlayers).toBeGreaterThan(0);
    expect((await c.api('/api/services/Proxy-1/stop', { method: 'POST' })).status).toBe(200);
    // The proxy is checked first: an unknown player, a player known offline or an unknown target is still a 503, not a 404.
    for (const [path, json] of [
      ['/api/players/Alice/send', { targetService: 'Lobby-1' }],
      ['/api/players/Alice/kick', { reason: 'x' }],
      ['/api/players/Nobody/kick', { reason: 'x' }],
      ['/api/players/Nobody/send', { targetService: 'Lobby-1' }],
      ['/api/players/Bob/kick', { reason: 'x' }],
      ['/api/players/Alice/send', { targetService: 'Nope-1' }],
    ] as const) {
      const res = await c.api(path, { method: 'POST', json });
      expect(res.status).toBe(503);
      expect((await expectErrorBody(res)).error).toBe('PROXY_NOT_AVAILABLE');
    }
    // Nobody is connected through a proxy that is gone; only what SDKs reported remains.
    expect(c.controller.kernel.players.roster.size).toBe(0);
    expect(await playersOf('Game')).toBe(0);
    // With no proxy, broadcast still reaches the backends.
    expect(await readJson(await c.api('/api/broadcast', { method: 'POST', json: { message: 'no proxy' } }))).toMatchObject({ services: 3 });
  });

  test('a stopped service holds no players, whatever it reported last', async () => {
    expect((await c.api('/api/services/Game-1/players', { method: 'PUT', json: { playerCount: 4 } })).status).toBe(200);
    expect(await playersOf('Game')).toBe(4);
    // A forced stop: the drain would otherwise wait for those four players to leave.
    c.controller.kernel.manager.kill('Game-1');
    await waitFor(async () => (await readJson(await c.api('/api/services/Game-1'))).state !== 'READY', { what: 'Game-1 to go down' });
    expect(await playersOf('Game')).toBe(0);
  });
});
