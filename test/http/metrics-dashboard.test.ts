import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';
import { fakePaperGroup } from '../fixtures/fake-paper-group';

/**
 * The dashboard's network figures end to end: real fake-paper processes, player counts the
 * SDK reports, a real crash. The 10 s sampler is not waited for: tests take samples through
 * the kernel, as the controller's timer does. Groups have room for the counts reported.
 */
const fakeGroup = (name: string, extra: Record<string, unknown> = {}) => fakePaperGroup(name, { minInstances: 0, maxInstances: 2, maxPlayers: 20, ...extra });

let c: TestController;
let restarted: TestController | undefined;
const MINUTE = 60_000;

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 2000, drainPollMs: 20 } });
  for (const group of [fakeGroup('Lobby'), fakeGroup('Game', { restartOnCrash: false }), fakeGroup('Empty')]) {
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  }
  for (const group of ['Lobby', 'Lobby', 'Game']) expect((await c.api(`/api/services/${group}/start`, { method: 'POST' })).status).toBe(201);
  for (const name of ['Lobby-1', 'Lobby-2', 'Game-1']) await waitFor(() => c.controller.kernel.services.get(name)?.state === 'READY', { what: `${name} READY`, timeoutMs: 15_000 });
});
afterAll(async () => {
  if (!restarted) return c.stop();
  // The restarted controller runs on the first one's directory, which only the first removes.
  await restarted.stop();
  rmSync(c.dir, { recursive: true, force: true });
});

const sample = (at = Date.now()) => c.controller.kernel.dashboardMetrics.sample(at);
const report = async (service: string, playerCount: number) => expect((await c.api(`/api/services/${service}/players`, { method: 'PUT', token: c.service, json: { playerCount } })).status).toBe(200);
const history = async (query = '') => {
  const res = await c.api(`/api/metrics/players/history${query}`, { token: c.service });
  expect(res.status).toBe(200);
  return (await readJson(res)) as { samples: { timestamp: string; totalPlayers: number; byGroup: Record<string, number> }[] };
};
/** One group's row of a performance answer. */
const group = (perf: { groups: { groupName: string }[] }, name: string) => perf.groups.find((g) => g.groupName === name) as Record<string, unknown> & { groupName: string };
const performance = async (api = c) => {
  const res = await api.api('/api/metrics/performance', { token: api.service });
  expect(res.status).toBe(200);
  return readJson(res);
};

describe('GET /api/metrics/players/history', () => {
  test('a sample holds the /api/status total and the players by group', async () => {
    await report('Lobby-1', 3);
    await report('Lobby-2', 5);
    await report('Game-1', 2);
    sample();
    const { samples } = await history();
    const status = await readJson(await c.api('/api/status'));
    expect(status.totalPlayers).toBe(10);
    const last = samples.at(-1);
    expect(last).toEqual({ timestamp: expect.any(String), totalPlayers: status.totalPlayers, byGroup: { Lobby: 8, Game: 2, Empty: 0 } });
    expect(new Date(last!.timestamp).toISOString()).toBe(last!.timestamp);
    for (const group of status.groups as { name: string; players: number }[]) expect(last!.byGroup[group.name]).toBe(group.players);
  });

  test('minutes: default 60, clamped to 5..1440', async () => {
    // Compared by timestamp: the controller's own 10 s sampler may add samples near now meanwhile.
    const now = Date.now();
    const at = (minutesAgo: number) => new Date(sample(now - minutesAgo * MINUTE).timestamp).toISOString();
    const [m4, m20, m70, h23, h25] = [4, 20, 70, 23 * 60, 25 * 60].map(at);
    const stamps = async (query: string) => new Set((await history(query)).samples.map((s) => s.timestamp));
    const fiveMinutes = await stamps('?minutes=1');
    expect([fiveMinutes.has(m4!), fiveMinutes.has(m20!)]).toEqual([true, false]);
    const hour = await stamps('');
    expect([hour.has(m20!), hour.has(m70!)]).toEqual([true, false]);
    const day = await stamps('?minutes=99999');
    expect([day.has(h23!), day.has(h25!)]).toEqual([true, false]);
    const ordered = (await history('?minutes=1440')).samples.map((s) => Date.parse(s.timestamp));
    expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
  });

  test('validation and auth', async () => {
    const bad = await c.api('/api/metrics/players/history?minutes=abc', { token: c.service });
    expect(bad.status).toBe(400);
    const body = await expectErrorBody(bad);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.message).toContain('minutes');
    const anonymous = await c.api('/api/metrics/players/history', { token: null });
    expect(anonymous.status).toBe(401);
    expect((await expectErrorBody(anonymous)).error).toBe('UNAUTHORIZED');
    expect((await c.api('/api/metrics/players/history', { token: 'not-the-token' })).status).toBe(401);
  });
});

describe('GET /api/metrics/performance', () => {
  test('live figures, every group, the JSON types the dashboard reads', async () => {
    const perf = await performance();
    const status = await readJson(await c.api('/api/status'));
    expect(perf).toMatchObject({ crashesLast24h: 0, crashesLast7d: 0, uptimePercent: 100, networkPlayers: status.totalPlayers, serviceCount: 3, readyServiceCount: 3 });
    for (const key of ['crashesLast24h', 'crashesLast7d', 'averageStartupSeconds', 'uptimePercent', 'totalMemoryUsedMb', 'totalMemoryMaxMb', 'networkPlayers', 'serviceCount', 'readyServiceCount']) {
      expect(typeof perf[key]).toBe('number');
    }
    expect(perf.averageStartupSeconds).toBeGreaterThan(0);
    expect(perf.totalMemoryUsedMb).toBeGreaterThan(0);
    expect(perf.totalMemoryMaxMb).toBeGreaterThanOrEqual(perf.totalMemoryUsedMb);
    // The group store's order, as GET /api/status lists them.
    expect(perf.groups.map((g: { groupName: string }) => g.groupName)).toEqual(status.groups.map((g: { name: string }) => g.name));
    for (const row of perf.groups) {
      expect(typeof row.groupName).toBe('string');
      expect(typeof row.isDedicated).toBe('boolean');
      for (const key of ['crashesLast24h', 'averageStartupSeconds', 'averageMemoryPercent', 'averageTps', 'playerCount', 'maxPlayers', 'serviceCount', 'readyServiceCount']) expect(typeof row[key]).toBe('number');
    }
    const lobby = group(perf, 'Lobby');
    const game = group(perf, 'Game');
    const empty = group(perf, 'Empty');
    expect(lobby).toMatchObject({ isDedicated: false, crashesLast24h: 0, playerCount: 8, maxPlayers: 40, serviceCount: 2, readyServiceCount: 2, averageTps: 0 });
    expect(lobby.averageStartupSeconds).toBeGreaterThan(0);
    expect(lobby.averageMemoryPercent).toBeGreaterThan(0);
    expect(game).toMatchObject({ playerCount: 2, maxPlayers: 20, serviceCount: 1, readyServiceCount: 1 });
    expect(empty).toEqual({ groupName: 'Empty', isDedicated: false, crashesLast24h: 0, averageStartupSeconds: 0, averageMemoryPercent: 0, averageTps: 0, playerCount: 0, maxPlayers: 0, serviceCount: 0, readyServiceCount: 0 });
  });

  test('a TPS report moves the group average', async () => {
    expect((await c.api('/api/services/Lobby-1/health', { method: 'PUT', token: c.service, json: { tps: 19.5 } })).status).toBe(200);
    const lobby = group(await performance(), 'Lobby');
    expect(lobby.averageTps).toBe(19.5);
  });

  test('a real crash counts for its group and takes uptime below 100', async () => {
    const pid = c.controller.kernel.services.get('Game-1')!.pid!;
    process.kill(pid, 'SIGKILL');
    await waitFor(() => c.controller.kernel.services.get('Game-1')?.state === 'CRASHED', { what: 'Game-1 CRASHED' });
    sample();
    const perf = await performance();
    expect(perf).toMatchObject({ crashesLast24h: 1, crashesLast7d: 1, readyServiceCount: 2 });
    expect(['Lobby', 'Game', 'Empty'].map((name) => group(perf, name).crashesLast24h)).toEqual([0, 1, 0]);
    expect(group(perf, 'Game')).toMatchObject({ playerCount: 0, readyServiceCount: 0, serviceCount: 1 });
    expect(perf.uptimePercent).toBeLessThan(100);
    expect(perf.uptimePercent).toBeGreaterThan(50);
    // The player history no longer counts the crashed server's players.
    expect((await history()).samples.at(-1)!.byGroup.Game).toBe(0);
  });

  test('auth', async () => {
    const anonymous = await c.api('/api/metrics/performance', { token: null });
    expect(anonymous.status).toBe(401);
    expect((await expectErrorBody(anonymous)).error).toBe('UNAUTHORIZED');
    expect((await c.api('/api/metrics/performance', { token: 'not-the-token' })).status).toBe(401);
  });

  test('crashes and startups survive a controller restart', async () => {
    await c.stopKeepingDir();
    restarted = await startController({ dir: c.dir });
    const perf = await performance(restarted);
    expect(perf).toMatchObject({ crashesLast24h: 1, crashesLast7d: 1, serviceCount: 0 });
    expect(perf.averageStartupSeconds).toBeGreaterThan(0);
    expect(group(perf, 'Game').crashesLast24h).toBe(1);
  });
});
