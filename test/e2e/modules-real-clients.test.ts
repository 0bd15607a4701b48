/**
 * The players and display modules in the compiled binary, against servers and clients we did
 * not write: two real flying-squid backends run as a CUSTOM group, real offline-mode
 * minecraft-protocol clients log in, and each login is reported exactly as the Velocity bridge
 * would (the name and the uuid the server assigned, as its status sample shows it). No proxy
 * runs: the test plays the bridge. Then both modules are uninstalled and the controller
 * restarted: their routes are gone, core's listing falls back to pinging the servers.
 *
 * Version: 1.21.4 for server and clients, as in test/http/players-real.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, ping, type Client, type NewPingResult } from 'minecraft-protocol';
import { pidAlive } from '../../src/core/supervisor/process/pid-probe';
import { startBinaryController, svcBinary } from '../support/binary';
import { expectErrorBody, readJson, tempDir, waitFor } from '../support/controller';
import { offlineUuid, waitForPackets } from '../support/minecraft-client';

const FLYING_SQUID = join(import.meta.dir, '../fixtures/flying-squid-server.ts');
const VERSION = '1.21.4';
const TOKEN = 'modules-real-clients-token-0123456789';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const ALICE = offlineUuid('Alice');
const BOB = offlineUuid('Bob');
const CAROL = offlineUuid('Carol');

/** D of REFERENCE-MODULES §3 as a fresh group gets it ("Squid" matches no floating-item rule). */
function defaultDisplay(name: string) {
  return {
    name,
    sign: { line1: '&1&l★ {name} ★', line2: '&8{players}/{max_players} online', line3: '&7{state}', line4Online: '&2▶ Click to join!', line4Offline: '&4✖ Offline' },
    npc: {
      displayName: '&b&l{name}',
      subtitle: '&7{players}/{max_players} online &8| &7{state}',
      subtitleOffline: '&c✖ Offline',
      floatingItem: 'GRASS_BLOCK',
      statusItems: { ONLINE: 'LIME_WOOL', STARTING: 'YELLOW_WOOL', INGAME: 'ORANGE_WOOL', WAITING: 'LIGHT_BLUE_WOOL', OFFLINE: 'GRAY_WOOL', FULL: 'RED_WOOL', ENDING: 'ORANGE_WOOL', STOPPING: 'RED_WOOL' },
      inventory: { title: '&8» &b&l{name} Servers', size: 27, itemName: '&b{name}', itemLore: ['&7Players: &f{players}/{max_players}', '&7State: &f{state}', '', '&aClick to join!'] },
    },
    states: { PREPARING: 'STARTING', STARTING: 'STARTING', READY: 'ONLINE', STOPPING: 'STOPPING', STOPPED: 'OFFLINE', CRASHED: 'OFFLINE', WAITING: 'WAITING', INGAME: 'INGAME', ENDING: 'ENDING' },
  };
}

type Binary = Awaited<ReturnType<typeof startBinary>>;

let svc: string;
let dir: string;
let current: Binary;
const clients: Client[] = [];
const ports = new Map<string, number>();
/** Server pids and their wrappers (process group leaders): none may outlive the test. */
const seenPids = new Set<number>();
const cleanups: (() => void)[] = [];

const startBinary = () => startBinaryController(svc, dir, TOKEN, cleanups);

const api = (path: string, init: RequestInit = {}) => current.api(path, init);
const get = async (path: string) => {
  const res = await api(path);
  expect(res.status).toBe(200);
  return readJson(res);
};
const send = async (method: string, path: string, json?: unknown) => {
  const res = await api(path, { method, body: json === undefined ? undefined : JSON.stringify(json) });
  expect(res.status).toBe(200);
  return readJson(res);
};
/** What the Velocity bridge posts (proxies hold the master token). */
const report = (json: Record<string, string>) => send('POST', '/api/proxy/events', json);
const expectError = async (path: string, status: number, code: string) => {
  const res = await api(path);
  expect(res.status).toBe(status);
  expect((await expectErrorBody(res)).error).toBe(code);
};
const byName = <T extends { name: string }>(list: T[]) => [...list].sort((a, b) => a.name.localeCompare(b.name));

/** An entry of GET /api/players/online. */
interface OnlinePlayer {
  uuid: string;
  name: string;
  service: string;
  group: string;
  connectedAt: string;
  proxy: string | null;
}

/** The players a flying-squid server lists in its own status answer (read with minecraft-protocol's ping). */
async function statusSample(service: string): Promise<{ name: string; id: string }[]> {
  const status = (await ping({ host: '127.0.0.1', port: ports.get(service)!, version: VERSION })) as NewPingResult;
  return status.players.sample ?? [];
}

/** A real offline-mode client logged in to `service` (resolves on the login packet). */
async function logIn(name: string, service: string): Promise<Client> {
  const client = createClient({ host: '127.0.0.1', port: ports.get(service)!, username: name, auth: 'offline', version: VERSION });
  clients.push(client);
  await waitForPackets(client, ['login'], { what: `${name} logged in on ${service}`, failure: `${name} could not log in on ${service}`, timeoutMs: 20_000 });
  return client;
}

/** The uuid `service` assigned `name`, once its status sample lists the player. */
async function assignedUuid(name: string, service: string): Promise<string> {
  const entry = await waitFor(async () => (await statusSample(service)).find((p) => p.name === name), { what: `${name} in ${service}'s status sample`, timeoutMs: 10_000 });
  expect(entry.id).toBe(offlineUuid(name));
  return entry.id;
}

/** Logs `name` in on `service` and reports it as the bridge does on the first post-connect. */
async function joinAndReport(name: string, service: string): Promise<Client> {
  const client = await logIn(name, service);
  const uuid = await assignedUuid(name, service);
  expect(client.uuid).toBe(uuid);
  await report({ type: 'PLAYER_CONNECTED', player: name, uuid, service });
  return client;
}

/** Notes a service's server pid and its wrapper (the leader of its process group). */
function watchPids(pid: number): void {
  seenPids.add(pid);
  const pgid = Number(Bun.spawnSync(['ps', '-o', 'pgid=', '-p', String(pid)]).stdout.toString().trim());
  if (pgid > 0) seenPids.add(pgid);
}

beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);

beforeAll(async () => {
  const temp = tempDir('svc-modules-real-');
  dir = temp.dir;
  cleanups.push(temp.remove);
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  current = await startBinary();
  const squid = {
    name: 'Squid',
    software: 'CUSTOM',
    version: VERSION,
    jarName: 'server.jar',
    startCommand: [process.execPath, FLYING_SQUID, '--port', '{port}', '--max-players', '13', '--version', VERSION],
    readyPattern: 'Server listening on port',
    minInstances: 0,
    maxInstances: 2,
    memory: '512M',
    drainTimeout: 0,
    restartOnCrash: false,
  };
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(squid) })).status).toBe(201);
  for (const expected of ['Squid-1', 'Squid-2']) {
    const res = await api('/api/services/Squid/start', { method: 'POST' });
    expect(res.status).toBe(201);
    const { service } = await readJson(res);
    expect(service.name).toBe(expected);
    ports.set(service.name, service.port);
  }
  for (const name of ports.keys()) {
    const ready = await waitFor(
      async () => {
        const view = await readJson(await api(`/api/services/${name}`));
        return view.state === 'READY' ? view : null;
      },
      { what: `${name} READY`, timeoutMs: 45_000 },
    );
    watchPids(ready.pid);
  }
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.end();
  if (current && current.child.exitCode === null) {
    current.child.kill('SIGTERM');
    await current.child.exited;
  }
  for (const pid of seenPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  // Anything else started under the test dir (its wrapper's command line names it).
  for (const line of Bun.spawnSync(['ps', '-eo', 'pid=,args=']).stdout.toString().split('\n')) {
    if (!dir || !line.includes(dir)) continue;
    try {
      process.kill(-Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
    } catch {
      /* not a group leader or gone */
    }
  }
  await waitFor(() => [...seenPids].every((pid) => !pidAlive(pid)), { timeoutMs: 10_000, what: `no process left of ${[...seenPids].join(', ')}` });
  cleanups.splice(0).forEach((f) => f());
}, 30_000);

describe('players and display modules with real servers and clients (compiled binary)', () => {
  let carolSwitchedAt: string;

  test('real logins reported as the bridge does: every players route answers the dashboard shapes', async () => {
    await joinAndReport('Alice', 'Squid-1');
    const bob = await joinAndReport('Bob', 'Squid-1');
    const carolOn2 = await joinAndReport('Carol', 'Squid-2');

    // Carol moves: the proxy connects her to Squid-1 first, reports the switch, then drops Squid-2.
    await logIn('Carol', 'Squid-1');
    expect(await assignedUuid('Carol', 'Squid-1')).toBe(CAROL);
    await report({ type: 'PLAYER_SERVER_SWITCH', player: 'Carol', uuid: CAROL, fromService: 'Squid-2', toService: 'Squid-1' });
    carolOn2.end();
    // Bob quits the network.
    bob.end();
    await waitFor(async () => !(await statusSample('Squid-1')).some((p) => p.name === 'Bob'), { what: 'Bob gone from Squid-1', timeoutMs: 10_000 });
    await report({ type: 'PLAYER_DISCONNECTED', player: 'Bob', uuid: BOB, service: 'Squid-1' });

    // online and online/{uuid}
    const online = byName<OnlinePlayer>(await get('/api/players/online'));
    expect(online).toEqual([
      { uuid: ALICE, name: 'Alice', service: 'Squid-1', group: 'Squid', connectedAt: expect.stringMatching(ISO), proxy: null },
      { uuid: CAROL, name: 'Carol', service: 'Squid-1', group: 'Squid', connectedAt: expect.stringMatching(ISO), proxy: null },
    ]);
    const [alice, carol] = online as [OnlinePlayer, OnlinePlayer];
    expect(await get(`/api/players/online/${CAROL}`)).toEqual(carol);
    expect(await get(`/api/players/online/${CAROL.replace(/-/g, '').toUpperCase()}`)).toEqual(carol);
    carolSwitchedAt = carol.connectedAt;

    // history/{uuid}: newest first; the switch closed Squid-2 the moment Squid-1 opened.
    const carolHistory = await get(`/api/players/history/${CAROL}`);
    expect(carolHistory).toEqual([
      { service: 'Squid-1', group: 'Squid', connectedAt: carol.connectedAt, disconnectedAt: null },
      { service: 'Squid-2', group: 'Squid', connectedAt: expect.stringMatching(ISO), disconnectedAt: carol.connectedAt },
    ]);
    const bobHistory = await get(`/api/players/history/${BOB}`);
    expect(bobHistory).toEqual([{ service: 'Squid-1', group: 'Squid', connectedAt: expect.stringMatching(ISO), disconnectedAt: expect.stringMatching(ISO) }]);
    expect(Date.parse(bobHistory[0].disconnectedAt)).toBeGreaterThanOrEqual(Date.parse(bobHistory[0].connectedAt));

    // info/{uuid}: numbers and booleans
    expect(await get(`/api/players/info/${ALICE}`)).toEqual({
      uuid: ALICE,
      name: 'Alice',
      firstSeen: alice.connectedAt,
      lastSeen: expect.stringMatching(ISO),
      totalPlaytimeSeconds: expect.any(Number),
      online: true,
      currentService: 'Squid-1',
    });
    expect(await get(`/api/players/info/${BOB}`)).toEqual({
      uuid: BOB,
      name: 'Bob',
      firstSeen: bobHistory[0].connectedAt,
      lastSeen: bobHistory[0].disconnectedAt,
      totalPlaytimeSeconds: Math.floor((Date.parse(bobHistory[0].disconnectedAt) - Date.parse(bobHistory[0].connectedAt)) / 1000),
      online: false,
      currentService: null,
    });
    expect((await get(`/api/players/info/${CAROL}`)).firstSeen).toBe(carolHistory[1].connectedAt);

    // all: every value a string, as the dashboard reads them
    const all = byName<{ name: string }>(await get('/api/players/all'));
    const known = (uuid: string, name: string, online: 'true' | 'false') => ({
      uuid,
      name,
      firstSeen: expect.stringMatching(ISO),
      lastSeen: expect.stringMatching(ISO),
      totalPlaytimeSeconds: expect.stringMatching(/^\d+$/),
      online,
    });
    expect(all).toEqual([known(ALICE, 'Alice', 'true'), known(BOB, 'Bob', 'false'), known(CAROL, 'Carol', 'true')]);
    expect(await get('/api/players/all?q=ARO')).toEqual([known(CAROL, 'Carol', 'true')]);

    expect(await get('/api/players/stats')).toEqual({ online: 2, totalUnique: 3, perService: { 'Squid-1': 2 } });

    // Core's listing answers from the module's roster.
    expect(await get('/api/players')).toEqual({
      players: [
        { name: 'Alice', uuid: ALICE, service: 'Squid-1', server: 'Squid-1', group: 'Squid', source: 'roster', proxy: null },
        { name: 'Carol', uuid: CAROL, service: 'Squid-1', server: 'Squid-1', group: 'Squid', source: 'roster', proxy: null },
      ],
      total: 2,
      count: 2,
      online: 2,
      services: [],
    });

    await expectError(`/api/players/online/${BOB}`, 404, 'PLAYER_NOT_ONLINE');
    await expectError(`/api/players/info/${offlineUuid('Nobody')}`, 404, 'PLAYER_NOT_FOUND');
    expect(await get(`/api/players/history/${offlineUuid('Nobody')}`)).toEqual([]);
  }, 60_000);

  test('stopping a backend through the API closes the sessions on it at that moment', async () => {
    const squid1 = await get('/api/services/Squid-1');
    const stopAsked = Date.now();
    expect((await send('POST', '/api/services/Squid-1/stop')).success).toBe(true);
    const stopped = Date.now();
    await waitFor(() => !pidAlive(squid1.pid), { what: 'Squid-1 gone', timeoutMs: 10_000 });

    expect(await get('/api/players/online')).toEqual([]);
    expect(await get('/api/players/stats')).toEqual({ online: 0, totalUnique: 3, perService: {} });
    const closedAt: Record<string, string> = {};
    for (const [name, uuid] of [['Alice', ALICE], ['Carol', CAROL]] as const) {
      const [last] = await get(`/api/players/history/${uuid}?limit=1`);
      // (toEqual, not toMatchObject: Bun 1.4.5's toMatchObject writes its asymmetric matchers into the received object.)
      expect(last).toEqual({ service: 'Squid-1', group: 'Squid', connectedAt: expect.stringMatching(ISO), disconnectedAt: expect.stringMatching(ISO) });
      const at = Date.parse(last.disconnectedAt);
      expect(at).toBeGreaterThanOrEqual(stopAsked);
      expect(at).toBeLessThanOrEqual(stopped);
      expect(await get(`/api/players/info/${uuid}`)).toMatchObject({ name, online: false, currentService: null, lastSeen: last.disconnectedAt });
      closedAt[name] = last.disconnectedAt;
    }
    expect((await get(`/api/players/history/${CAROL}?limit=1`))[0].connectedAt).toBe(carolSwitchedAt);

    // The proxy sends Alice on to the other backend (a post-connect: a switch) and Carol leaves.
    await logIn('Alice', 'Squid-2');
    expect(await assignedUuid('Alice', 'Squid-2')).toBe(ALICE);
    await report({ type: 'PLAYER_SERVER_SWITCH', player: 'Alice', uuid: ALICE, fromService: 'Squid-1', toService: 'Squid-2' });
    await report({ type: 'PLAYER_DISCONNECTED', player: 'Carol', uuid: CAROL, service: 'Squid-1' });

    const [aliceNow, aliceBefore] = await get(`/api/players/history/${ALICE}?limit=2`);
    expect(aliceNow).toEqual({ service: 'Squid-2', group: 'Squid', connectedAt: expect.stringMatching(ISO), disconnectedAt: null });
    expect(aliceBefore.disconnectedAt).toBe(closedAt.Alice);
    // A late disconnect does not move the end the stop recorded.
    expect((await get(`/api/players/history/${CAROL}?limit=1`))[0].disconnectedAt).toBe(closedAt.Carol);
    expect(await get('/api/players/stats')).toEqual({ online: 1, totalUnique: 3, perService: { 'Squid-2': 1 } });
  }, 30_000);

  test('display: the backend group has the defaults; a partial PUT, reset and state labels through the binary', async () => {
    const defaults = defaultDisplay('Squid');
    expect(await get('/api/displays')).toEqual({ displays: [defaults], total: 1 });
    expect(await get('/api/displays/squid')).toEqual(defaults);

    const edited = { ...defaults, sign: { ...defaults.sign, line2: '&a{players} playing now' } };
    expect(await send('PUT', '/api/displays/SQUID', { sign: { line2: '&a{players} playing now' } })).toEqual(edited);
    expect(await get('/api/displays/Squid')).toEqual(edited);
    const file = join(dir, 'config/modules/display/Squid.toml');
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('{players} playing now');

    expect(await send('POST', '/api/displays/squid/reset')).toEqual(defaults);
    expect(await get('/api/displays/Squid')).toEqual(defaults);

    expect(await get('/api/displays/Squid/state/READY')).toEqual({ raw: 'READY', label: 'ONLINE' });
    expect(await get('/api/displays/squid/state/CRASHED')).toEqual({ raw: 'CRASHED', label: 'OFFLINE' });
    expect(await get('/api/displays/Squid/state/LOBBY_PHASE')).toEqual({ raw: 'LOBBY_PHASE', label: 'LOBBY_PHASE' });
    await expectError('/api/displays/Nope', 404, 'DISPLAY_CONFIG_NOT_FOUND');
  }, 20_000);

  test('uninstalled and restarted: the module routes are gone, core lists players from the servers’ own status', async () => {
    for (const id of ['players', 'display']) {
      expect(await send('POST', `/api/modules/uninstall/${id}`)).toEqual({ success: true, message: expect.stringContaining(id), restartRequired: true });
    }
    const squid2 = await get('/api/services/Squid-2');

    // kill -9: Squid-2 and Alice's connection to it go on while the controller restarts.
    current.child.kill('SIGKILL');
    await current.child.exited;
    current = await startBinary();

    for (const path of ['/api/players/online', `/api/players/info/${ALICE}`, '/api/players/stats', '/api/displays', '/api/displays/Squid']) {
      await expectError(path, 404, 'ROUTE_NOT_FOUND');
    }
    const modules = (await get('/api/modules')).modules.filter((m: { id: string }) => m.id === 'players' || m.id === 'display');
    expect(modules.map((m: { id: string; status: string; installed: boolean }) => [m.id, m.status, m.installed]).sort()).toEqual([
      ['display', 'available', false],
      ['players', 'available', false],
    ]);

    // Without the module, GET /api/players pings the READY backends: flying-squid's sample names Alice.
    const listing = await waitFor(
      async () => {
        const l = await get('/api/players');
        return l.total === 1 ? l : null;
      },
      { what: 'Alice in the ping listing', timeoutMs: 10_000 },
    );
    expect(listing).toEqual({
      players: [{ name: 'Alice', uuid: ALICE, service: 'Squid-2', server: 'Squid-2', group: 'Squid', source: 'ping', proxy: null }],
      total: 1,
      count: 1,
      online: 1,
      services: [{ service: 'Squid-2', group: 'Squid', reachable: true, online: 1, max: 13 }],
    });

    expect(await get('/api/health')).toMatchObject({ status: 'ok', services: 1 });
    const services = await get('/api/services?group=Squid');
    expect(services.services.map((s: { name: string; state: string; pid: number }) => [s.name, s.state, s.pid])).toEqual([['Squid-2', 'READY', squid2.pid]]);
    expect(services.total).toBe(1);
  }, 30_000);
});
