/**
 * The balancer in front of real Minecraft servers we did not write: two flying-squid servers
 * (test/fixtures/flying-squid-server.ts) as backends, real offline-mode minecraft-protocol
 * clients joining THROUGH the balancer, and the default health check (Server List Ping)
 * against the real servers. One server is killed mid-test: it is marked unhealthy and the
 * next player goes to the other one even though it has fewer connections.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from 'minecraft-protocol';
import { pingServer } from '../../src/core/net/server-list-ping';
import type { Backend } from '../../src/loadbalancer/model';
import { spawnFixture, type FixtureProcess } from '../fixtures/spawn-fixture';
import { waitFor } from '../support/controller';
import { startBalancer, type TestBalancer } from './support';
import { waitForPackets } from '../support/minecraft-client';

const FLYING_SQUID = join(import.meta.dir, '../fixtures/flying-squid-server.ts');
const VERSION = '1.21.4';

const dir = mkdtempSync(join(tmpdir(), 'svc-lb-squid-'));
const squids: FixtureProcess[] = [];
const backends: Backend[] = [];
const clients: Client[] = [];
let b: TestBalancer;

async function startSquid(name: string): Promise<Backend> {
  const squid = spawnFixture(FLYING_SQUID, ['--port', '0', '--motd', name, '--version', VERSION], { cwd: dir });
  squids.push(squid);
  const port = Number((await squid.waitForLine(/Server listening on port (\d+)/, 30_000))[1]);
  return { name, host: '127.0.0.1', port, playerCount: 0 };
}

/** A real client joining through the balancer; resolves once the login (join game) and spawn position packets arrived. */
async function play(username: string): Promise<Client> {
  const client = createClient({ host: '127.0.0.1', port: b.port, username, auth: 'offline', version: VERSION });
  clients.push(client);
  await waitForPackets(client, ['login', 'spawn_position'], { what: `${username} joined and spawned`, failure: `${username} could not join through the balancer`, timeoutMs: 15_000 });
  return client;
}

/** The players a server itself lists in its status. */
async function playersOn(backend: Backend): Promise<string[]> {
  const status = await pingServer(backend.host, backend.port, { measureLatency: false });
  return (status.players.sample ?? []).map((p) => p.name).sort();
}

beforeAll(async () => {
  backends.push(...(await Promise.all([startSquid('Squid-1'), startSquid('Squid-2')])));
  b = startBalancer(() => backends, { unhealthy_threshold: 2, healthy_threshold: 1 }, { timing: { healthCheckIntervalMs: 100, healthCheckTimeoutMs: 1000 } });
}, 40_000);

afterAll(async () => {
  for (const client of clients) client.end();
  b?.stop();
  await Promise.all(squids.map((s) => s.kill()));
  rmSync(dir, { recursive: true, force: true });
});

describe('players through the balancer to flying-squid', () => {
  test('players land on the servers in turn and spawn', async () => {
    await play('Alice');
    await waitFor(async () => (await playersOn(backends[0]!)).includes('Alice'), { what: 'Alice listed by Squid-1' });
    await play('Bob');
    // Same players (0) on both: the tie goes to the server with fewer balancer connections.
    await waitFor(async () => (await playersOn(backends[1]!)).includes('Bob'), { what: 'Bob listed by Squid-2' });
    expect(await playersOn(backends[0]!)).toEqual(['Alice']);
    const status = b.lb.status();
    expect(status.backends.map((x) => [x.name, x.health, x.connectionCount])).toEqual([
      ['Squid-1', 'healthy', 1],
      ['Squid-2', 'healthy', 1],
    ]);
    expect(status).toMatchObject({ totalConnections: expect.any(Number), activeConnections: 2, rejectedConnections: 0 });
  });

  test('a server killed mid-game is marked unhealthy and the next player goes to the other', async () => {
    await squids[0]!.kill();
    const changed = await waitFor(
      () => b.events.find((e) => e.type === 'LOAD_BALANCER_BACKEND_HEALTH_CHANGED' && e.data.port === String(backends[0]!.port)),
      { timeoutMs: 5000, what: 'Squid-1 marked unhealthy' },
    );
    expect(changed.data).toEqual({ host: '127.0.0.1', port: String(backends[0]!.port), oldStatus: 'healthy', newStatus: 'unhealthy' });
    // Alice's relay ended with her server.
    await waitFor(() => b.lb.status().backends[0]!.connectionCount === 0, { what: "Alice's relay gone" });
    // Squid-1 now has fewer connections (0 vs 1) but is unhealthy: Carol goes to Squid-2.
    await play('Carol');
    await waitFor(async () => (await playersOn(backends[1]!)).includes('Carol'), { what: 'Carol listed by Squid-2' });
    expect(b.lb.status().backends.map((x) => [x.name, x.health, x.connectionCount])).toEqual([
      ['Squid-1', 'unhealthy', 0],
      ['Squid-2', 'healthy', 2],
    ]);
    expect(b.lb.failedConnections).toBe(0);
  });
});
