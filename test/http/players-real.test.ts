/**
 * GET /api/players against servers we did not write: two real flying-squid servers run as a
 * CUSTOM group under the controller, with real offline-mode minecraft-protocol clients logged
 * in. The fixture fills the status sample like vanilla, so the listing comes from the servers'
 * own Server List Ping answers; the roster the proxy bridge feeds is merged on top. A wedged
 * backend (fake-paper --hang-status: READY, accepts connections, never answers the status)
 * costs only its own entry and at most the spec's 3 s ping timeout.
 *
 * Version: 1.21.4 for server and clients, the fixture's default and flying-squid's newest
 * tested one; offline clients log in against it without trouble.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createClient, type Client } from 'minecraft-protocol';
import { readJson, startController, waitFor, type TestController } from '../support/controller';
import { pidAlive } from '../../src/core/supervisor/process/pid-probe';
import { offlineUuid, waitForPackets } from '../support/minecraft-client';

const FLYING_SQUID = join(import.meta.dir, '../fixtures/flying-squid-server.ts');
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const VERSION = '1.21.4';

interface Listing {
  players: { name: string; uuid: string; service: string; server: string; group: string; source: 'roster' | 'ping' | 'both'; proxy: string | null }[];
  total: number;
  count: number;
  online: number;
  services: { service: string; group: string; reachable: boolean; online: number; max: number; error?: string }[];
}

let c: TestController;
const clients: Client[] = [];
/** Every pid of a started service (server and sh wrapper): none may outlive the controller. */
const seenPids = new Set<number>();
const ports = new Map<string, number>();



const state = async (name: string): Promise<string> => (await readJson(await c.api(`/api/services/${name}`))).state;
const listing = async (): Promise<Listing> => {
  const res = await c.api('/api/players');
  expect(res.status).toBe(200);
  return readJson(res);
};
const names = (l: Listing) => l.players.map((p) => p.name);

/** Starts one instance of `group` (answered while it is still STARTING); returns its name. */
async function startService(group: string): Promise<string> {
  const res = await c.api(`/api/services/${group}/start`, { method: 'POST' });
  expect(res.status).toBe(201);
  const { service } = await readJson(res);
  const handle = c.controller.kernel.manager.handleOf(service.name);
  if (handle) {
    seenPids.add(handle.pid);
    seenPids.add(handle.wrapperPid);
  }
  ports.set(service.name, service.port);
  return service.name;
}

const ready = (name: string) => waitFor(async () => (await state(name)) === 'READY', { timeoutMs: 45_000, what: `${name} READY` });

/** A real offline-mode client logged in to the server on `port` (resolves on the login packet). */
async function logIn(username: string, port: number): Promise<Client> {
  const client = createClient({ host: '127.0.0.1', port, username, auth: 'offline', version: VERSION });
  clients.push(client);
  await waitForPackets(client, ['login'], { what: `${username} logged in on port ${port}`, failure: `${username} could not log in on port ${port}`, timeoutMs: 20_000 });
  return client;
}

beforeAll(async () => {
  // Without the players module: this is the ping fallback (with it, the module's roster answers).
  c = await startController({ modules: [], timing: { stopTimeoutMs: 10_000, readyTimeoutMs: 45_000 } });
  const squid = {
    name: 'Squid',
    software: 'CUSTOM',
    version: VERSION,
    jarName: 'server.jar',
    startCommand: [process.execPath, FLYING_SQUID, '--port', '{port}', '--max-players', '13', '--motd', 'svc {name}', '--version', VERSION],
    readyPattern: 'Server listening on port',
    minInstances: 0,
    maxInstances: 2,
    memory: '512M',
  };
  expect((await c.api('/api/groups', { method: 'POST', json: squid })).status).toBe(201);
  expect([await startService('Squid'), await startService('Squid')]).toEqual(['Squid-1', 'Squid-2']);
  await Promise.all([ready('Squid-1'), ready('Squid-2')]);
  await logIn('Alice', ports.get('Squid-1')!);
  await logIn('Bob', ports.get('Squid-1')!);
  await logIn('Carol', ports.get('Squid-2')!);
}, 90_000);

afterAll(async () => {
  for (const client of clients) client.end();
  await c?.stop();
  await waitFor(() => [...seenPids].every((pid) => !pidAlive(pid)), { timeoutMs: 10_000, what: `no process left of ${[...seenPids].join(', ')}` });
}, 30_000);

describe('GET /api/players with real servers', () => {
  test('lists the players logged in on two flying-squid servers, from their own status samples', async () => {
    // A client has its login packet a moment before flying-squid puts the player in its list.
    const l = await waitFor(
      async () => {
        const current = await listing();
        return names(current).join(',') === 'Alice,Bob,Carol' ? current : null;
      },
      { timeoutMs: 15_000, what: 'Alice, Bob and Carol in /api/players' },
    );
    expect(l.players).toEqual([
      { name: 'Alice', uuid: offlineUuid('Alice'), service: 'Squid-1', server: 'Squid-1', group: 'Squid', source: 'ping', proxy: null },
      { name: 'Bob', uuid: offlineUuid('Bob'), service: 'Squid-1', server: 'Squid-1', group: 'Squid', source: 'ping', proxy: null },
      { name: 'Carol', uuid: offlineUuid('Carol'), service: 'Squid-2', server: 'Squid-2', group: 'Squid', source: 'ping', proxy: null },
    ]);
    expect(l.total).toBe(3);
    expect(l.count).toBe(3);
    expect(l.online).toBe(3);
    const services = [...l.services].sort((a, b) => a.service.localeCompare(b.service));
    expect(services).toEqual([
      { service: 'Squid-1', group: 'Squid', reachable: true, online: 2, max: 13 },
      { service: 'Squid-2', group: 'Squid', reachable: true, online: 1, max: 13 },
    ]);
  }, 30_000);

  test('merges the proxy roster by uuid: a player both report is listed once as "both", a roster-only one as "roster"', async () => {
    await waitFor(async () => names(await listing()).join(',') === 'Alice,Bob,Carol', { timeoutMs: 15_000, what: 'the three players listed' });
    const dave = '0f1e2d3c-4b5a-4697-8877-665544332211';
    const events = [
      { type: 'PLAYER_CONNECTED', player: 'Alice', uuid: offlineUuid('Alice'), service: 'Squid-1' },
      { type: 'PLAYER_CONNECTED', player: 'Dave', uuid: dave, service: 'Squid-2' },
    ];
    for (const json of events) expect((await c.api('/api/proxy/events', { method: 'POST', json })).status).toBe(200);

    const l = await listing();
    expect(l.players).toEqual([
      { name: 'Alice', uuid: offlineUuid('Alice'), service: 'Squid-1', server: 'Squid-1', group: 'Squid', source: 'both', proxy: null },
      { name: 'Bob', uuid: offlineUuid('Bob'), service: 'Squid-1', server: 'Squid-1', group: 'Squid', source: 'ping', proxy: null },
      { name: 'Carol', uuid: offlineUuid('Carol'), service: 'Squid-2', server: 'Squid-2', group: 'Squid', source: 'ping', proxy: null },
      { name: 'Dave', uuid: dave, service: 'Squid-2', server: 'Squid-2', group: 'Squid', source: 'roster', proxy: null },
    ]);
    expect(l.total).toBe(4);
    expect(l.online).toBe(4); // the listed players outnumber the 3 the servers report

    // The bridge reports them leaving: the listing is the servers' word again.
    for (const json of events) expect((await c.api('/api/proxy/events', { method: 'POST', json: { ...json, type: 'PLAYER_DISCONNECTED' } })).status).toBe(200);
    const after = await listing();
    expect(after.players.map((p) => [p.name, p.source])).toEqual([
      ['Alice', 'ping'],
      ['Bob', 'ping'],
      ['Carol', 'ping'],
    ]);
  }, 30_000);

  test('a wedged backend costs at most the 3 s ping timeout and only its own entry', async () => {
    const wedged = {
      name: 'Wedged',
      software: 'CUSTOM',
      version: VERSION,
      jarName: 'server.jar',
      startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', '--hang-status'],
      minInstances: 0,
      maxInstances: 1,
    };
    await waitFor(async () => names(await listing()).join(',') === 'Alice,Bob,Carol', { timeoutMs: 15_000, what: 'the three players listed' });
    expect((await c.api('/api/groups', { method: 'POST', json: wedged })).status).toBe(201);
    expect(await startService('Wedged')).toBe('Wedged-1');
    await ready('Wedged-1');

    const started = performance.now();
    const l = await listing();
    const elapsed = performance.now() - started;
    // The spec's contract (3 s per ping, all in parallel), with room for a loaded machine; not a benchmark.
    expect(elapsed).toBeLessThan(3500);

    const hung = l.services.find((s) => s.service === 'Wedged-1');
    expect(hung).toMatchObject({ group: 'Wedged', reachable: false, online: 0, max: 0 });
    expect(hung?.error).toMatch(/timed out/);
    expect(l.services.filter((s) => s.reachable).map((s) => [s.service, s.online]).sort()).toEqual([
      ['Squid-1', 2],
      ['Squid-2', 1],
    ]);
    expect(l.players.map((p) => [p.name, p.service, p.source])).toEqual([
      ['Alice', 'Squid-1', 'ping'],
      ['Bob', 'Squid-1', 'ping'],
      ['Carol', 'Squid-2', 'ping'],
    ]);
  }, 30_000);
});
