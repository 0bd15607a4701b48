import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { newRecord, type ServiceRecord } from '../../src/core/services/registry';
import type { SvcEvent } from '../../src/events/catalogue';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';

/**
 * The stress routes through a real controller. The 5/min limit is per route and client IP, so
 * each test speaks from its own address (X-Forwarded-For, trusted here) and none spends
 * another's budget. READY services are records put straight into the registry: no processes.
 */
let c: TestController;
const events: SvcEvent[] = [];
const SERVICES = ['Lobby-1', 'Lobby-2', 'Game-1', 'Proxy-1'];

beforeAll(async () => {
  c = await startController({ apiToml: 'trust_forwarded_for = true' });
  c.controller.kernel.bus.subscribe((event) => event.type === 'STRESS_TEST_UPDATED' && events.push(event));
  // No minimum instances: nothing may try to start real servers for these groups.
  for (const group of [
    { name: 'Lobby', software: 'PAPER', version: '1.21.1', maxPlayers: 10, minInstances: 0, maxInstances: 0 },
    { name: 'Game', software: 'PAPER', version: '1.21.1', maxPlayers: 4, minInstances: 0, maxInstances: 0 },
    { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', minInstances: 0, maxInstances: 0 },
  ]) {
    const res = await c.api('/api/groups', { method: 'POST', json: group });
    if (res.status !== 201 && res.status !== 200) throw new Error(`group ${group.name}: ${res.status} ${await res.text()}`);
  }
  for (const name of SERVICES) {
    const record: ServiceRecord = {
      ...newRecord({ name, group: name.split('-')[0]!, port: 30000 + SERVICES.indexOf(name), workDir: '/tmp/svc-stress', isStatic: false, isProxy: name.startsWith('Proxy'), memoryMaxMb: 1024, restartCount: 0 }),
      state: 'READY',
    };
    c.controller.kernel.services.add(record);
  }
});
afterAll(async () => {
  for (const name of SERVICES) c.controller.kernel.services.remove(name);
  await c.stop();
});

/** Requests from one client address. */
const from = (ip: string) => ({
  get: (path: string, token?: string | null) => c.api(path, { headers: { 'x-forwarded-for': ip }, token }),
  post: (path: string, json?: unknown, token?: string | null) =>
    c.api(path, { method: 'POST', headers: { 'x-forwarded-for': ip }, token, ...(json === undefined ? {} : { json }) }),
});

async function expectError(res: Response, status: number, code: string): Promise<string> {
  expect(res.status).toBe(status);
  const body = await expectErrorBody(res);
  expect(body.error).toBe(code);
  return body.message;
}

/** Leaves no test running behind a failed assertion. */
function stopQuietly(): void {
  if (c.controller.kernel.stress.active) c.controller.kernel.stress.stop('system');
}

describe('stress routes', () => {
  test('GET /api/stress when idle', async () => {
    const res = await from('10.1.0.1').get('/api/stress');
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ active: false, group: null, currentPlayers: 0, targetPlayers: 0, totalCapacity: 0, overflow: 0, elapsedSeconds: 0, services: {}, proxyServices: {} });
  });

  test('start, status, ramp, stop', async () => {
    const client = from('10.1.0.2');
    try {
      events.length = 0;
      const started = await client.post('/api/stress/start', { players: 25, group: 'Lobby', rampSeconds: 0 });
      expect(started.status).toBe(200);
      const body = await readJson(started);
      expect(body).toMatchObject({ success: true, message: expect.stringContaining('Lobby') });
      expect(body.stress).toEqual({
        active: true,
        group: 'Lobby',
        currentPlayers: 20,
        targetPlayers: 25,
        totalCapacity: 20,
        overflow: 5,
        elapsedSeconds: 0,
        // The dashboard renders Object.entries(services): a map of name → count.
        services: { 'Lobby-1': 10, 'Lobby-2': 10 },
        proxyServices: { 'Proxy-1': 20 },
      });
      expect(events[0]).toMatchObject({ actor: 'api:admin', data: { simulatedPlayers: '20', targetPlayers: '25', targetGroup: 'Lobby', perService: 'Lobby-1=10,Lobby-2=10' } });
      // The real counts the services reported are untouched.
      expect(c.controller.kernel.services.get('Lobby-1')!.playerCount).toBe(0);

      expect((await readJson(await client.get('/api/stress'))).currentPlayers).toBe(20);

      const ramped = await client.post('/api/stress/ramp', { players: 5, durationSeconds: 0 });
      expect(ramped.status).toBe(200);
      expect((await readJson(ramped)).stress).toMatchObject({ active: true, currentPlayers: 5, targetPlayers: 5, overflow: 0, services: { 'Lobby-1': 3, 'Lobby-2': 2 } });
      await waitFor(() => events.some((e) => e.data.perService === 'Lobby-1=3,Lobby-2=2'), { what: 'the ramp event' });

      const stopped = await client.post('/api/stress/stop');
      expect(stopped.status).toBe(200);
      const stoppedBody = await readJson(stopped);
      expect(stoppedBody).toMatchObject({ success: true, stress: { active: false, group: null, currentPlayers: 0 } });
      expect(events[events.length - 1]).toMatchObject({ actor: 'api:admin', data: { simulatedPlayers: '0', targetPlayers: '0', perService: 'Lobby-1=0,Lobby-2=0' } });
      expect(c.controller.kernel.stress.active).toBe(false);
    } finally {
      stopQuietly();
    }
  });

  test('no group, null, "" or the dashboard\'s " " ("All groups"): every backend group, each capped at its own maxPlayers', async () => {
    const bodies: unknown[] = [{ players: 40, rampSeconds: 0 }, { players: 40, group: null }, { players: 40, group: ' ', rampSeconds: 0 }, { players: 40, group: '' }];
    for (const [i, body] of bodies.entries()) {
      const client = from(`10.1.1.${i + 1}`);
      try {
        events.length = 0;
        const started = await client.post('/api/stress/start', body);
        expect(started.status).toBe(200);
        const answer = await readJson(started);
        expect(answer.message).toContain('all backend groups');
        // 40 split over three backends: 14/13/13, Game-1 capped at 4 and its 9 spilled to the Lobby services (10 each).
        expect(answer.stress).toEqual({
          active: true,
          group: null,
          currentPlayers: 24,
          targetPlayers: 40,
          totalCapacity: 24,
          overflow: 16,
          elapsedSeconds: 0,
          services: { 'Game-1': 4, 'Lobby-1': 10, 'Lobby-2': 10 },
          proxyServices: { 'Proxy-1': 24 },
        });
        expect(events[0]!.data).toEqual({ simulatedPlayers: '24', targetPlayers: '40', perService: 'Game-1=4,Lobby-1=10,Lobby-2=10' });
        expect((await readJson(await client.post('/api/stress/stop'))).message).toContain('all backend groups');
      } finally {
        stopQuietly();
      }
    }
  });

  test('404 GROUP_NOT_FOUND, 400 for a proxy group, 409 STRESS_NOT_RUNNING and STRESS_ALREADY_RUNNING', async () => {
    const client = from('10.1.0.3');
    try {
      await expectError(await client.post('/api/stress/start', { players: 5, group: 'Nope', rampSeconds: 0 }), 404, 'GROUP_NOT_FOUND');
      const proxy = await expectError(await client.post('/api/stress/start', { players: 5, group: 'Proxy', rampSeconds: 0 }), 400, 'VALIDATION_FAILED');
      expect(proxy).toContain('stress tests target backend groups');
      await expectError(await client.post('/api/stress/ramp', { players: 5, durationSeconds: 10 }), 409, 'STRESS_NOT_RUNNING');
      await expectError(await client.post('/api/stress/stop'), 409, 'STRESS_NOT_RUNNING');
      expect((await client.post('/api/stress/start', { players: 5, group: 'Lobby', rampSeconds: 60 })).status).toBe(200);
      const again = await expectError(await client.post('/api/stress/start', { players: 5, group: 'Lobby', rampSeconds: 0 }), 409, 'STRESS_ALREADY_RUNNING');
      expect(again).toContain('Lobby');
      expect((await client.post('/api/stress/stop')).status).toBe(200);
    } finally {
      stopQuietly();
    }
  });

  test('400 VALIDATION_FAILED on bad bodies; refused bodies do not spend the 5/min budget', async () => {
    const client = from('10.1.0.4');
    const good = { players: 5, group: 'Lobby', rampSeconds: 0 };
    const bad: unknown[] = [
      { ...good, players: -1 },
      { ...good, players: 100_001 },
      { ...good, players: 1.5 },
      { ...good, players: '5' },
      { ...good, rampSeconds: 86_401 },
      { ...good, rampSeconds: -1 },
      { ...good, group: 'bad name!' },
      { ...good, group: 42 },
      { group: 'Lobby', rampSeconds: 0 },
    ];
    for (const body of bad) await expectError(await client.post('/api/stress/start', body), 400, 'VALIDATION_FAILED');
    await expectError(await client.post('/api/stress/start'), 400, 'VALIDATION_FAILED');
    for (const body of [{ players: 5 }, { players: 5, durationSeconds: 86_401 }, { players: 100_001, durationSeconds: 0 }]) {
      await expectError(await client.post('/api/stress/ramp', body), 400, 'VALIDATION_FAILED');
    }
    try {
      expect((await client.post('/api/stress/start', { ...good, players: 100_000, rampSeconds: 86_400 })).status).toBe(200);
    } finally {
      stopQuietly();
    }
  });

  test('admin only: 401 without a token, 403 with the service token', async () => {
    const client = from('10.1.0.5');
    const calls: [string, string, unknown][] = [
      ['GET', '/api/stress', undefined],
      ['POST', '/api/stress/start', { players: 5, group: 'Lobby', rampSeconds: 0 }],
      ['POST', '/api/stress/stop', undefined],
      ['POST', '/api/stress/ramp', { players: 5, durationSeconds: 0 }],
    ];
    for (const [method, path, json] of calls) {
      const send = (token: string | null) => (method === 'GET' ? client.get(path, token) : client.post(path, json, token));
      await expectError(await send(null), 401, 'UNAUTHORIZED');
      await expectError(await send(c.service), 403, 'FORBIDDEN');
    }
    expect(c.controller.kernel.stress.active).toBe(false);
  });

  test('5 per minute per route and client: the 6th is 429 RATE_LIMITED with Retry-After', async () => {
    const client = from('10.1.0.6');
    for (let i = 0; i < 5; i++) await expectError(await client.post('/api/stress/stop'), 409, 'STRESS_NOT_RUNNING');
    const limited = await client.post('/api/stress/stop');
    const message = await expectError(limited, 429, 'RATE_LIMITED');
    expect(message).toContain('5 requests per minute');
    expect(Number(limited.headers.get('retry-after'))).toBe(12);
    // Another route, and another client, keep their own budgets; GET has none of its own.
    await expectError(await client.post('/api/stress/ramp', { players: 1, durationSeconds: 0 }), 409, 'STRESS_NOT_RUNNING');
    await expectError(await from('10.1.0.7').post('/api/stress/stop'), 409, 'STRESS_NOT_RUNNING');
    for (let i = 0; i < 10; i++) expect((await client.get('/api/stress')).status).toBe(200);
  });

  test('stopping the controller clears a running test', async () => {
    const d = await startController();
    try {
      const res = await d.api('/api/groups', { method: 'POST', json: { name: 'Lobby', software: 'PAPER', version: '1.21.1', minInstances: 0, maxInstances: 0 } });
      expect(res.status).toBeLessThan(300);
      expect((await d.api('/api/stress/start', { method: 'POST', json: { players: 5, group: 'Lobby', rampSeconds: 60 } })).status).toBe(200);
      expect(d.controller.kernel.stress.active).toBe(true);
    } finally {
      await d.stop();
    }
    expect(d.controller.kernel.stress.active).toBe(false);
  });
});
