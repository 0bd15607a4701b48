import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pingServer } from '../../src/core/net/server-list-ping';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
let c: TestController;
const events: { type: string; data: Record<string, string> }[] = [];

/** A CUSTOM group running the fake Paper fixture through startCommand. */
function fakeGroup(name: string, extra: Record<string, unknown> = {}, args: string[] = []) {
  return { name, software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', ...args], minInstances: 0, maxInstances: 2, ...extra };
}

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 1000, drainPollMs: 20, restart: { baseDelayMs: 10, maxDelayMs: 50, loopThreshold: 10, loopWindowMs: 60_000, stableAfterMs: 600_000 } } });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
  for (const group of [fakeGroup('Lobby'), fakeGroup('Crashy', { maxRestarts: 2 }, ['--crash-after-ready', '3']), fakeGroup('Hangs', {}, ['--hang-on-stop'])]) {
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  }
});
afterAll(() => c.stop());

const ofType = (type: string, service?: string) => events.filter((e) => e.type === type && (!service || e.data.service === service));
const state = async (name: string) => (await readJson(await c.api(`/api/services/${name}`))).state as string;

describe('services (real processes)', () => {
  test('start: 201 STARTING, then READY on the Done line; port leased; status and list show it', async () => {
    const res = await c.api('/api/services/Lobby/start', { method: 'POST', token: c.service });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(body.service).toMatchObject({ name: 'Lobby-1', groupName: 'Lobby', state: 'STARTING' });
    expect(body.service.port).toBeGreaterThanOrEqual(30000);
    await waitFor(async () => (await state('Lobby-1')) === 'READY', { what: 'Lobby-1 READY' });
    expect(ofType('SERVICE_STARTING', 'Lobby-1')[0]!.data).toEqual({ service: 'Lobby-1', group: 'Lobby', port: String(body.service.port) });
    expect(ofType('SERVICE_READY', 'Lobby-1')).toHaveLength(1);
    const status = await pingServer('127.0.0.1', body.service.port, { timeoutMs: 2000 });
    expect(status.players.max).toBeGreaterThan(0);
    const list = await readJson(await c.api('/api/services?group=Lobby&state=READY'));
    expect(list.services.map((s: { name: string }) => s.name)).toEqual(['Lobby-1']);
    const view = list.services[0];
    expect(view.pid).toBeGreaterThan(0);
    expect(view.memoryUsedMb).toBeGreaterThan(0);
    expect(view.healthy).toBe(true);
    const network = await readJson(await c.api('/api/status'));
    expect(network.groups.find((g: { name: string }) => g.name === 'Lobby')).toMatchObject({ instances: 1, maxInstances: 2 });
  });

  test('exec reaches stdin; logs read both sources with clamps', async () => {
    expect((await c.api('/api/services/Lobby-1/exec', { method: 'POST', json: { command: 'say hello there' } })).status).toBe(200);
    await waitFor(async () => (await readJson(await c.api('/api/services/Lobby-1/logs?source=stdout&lines=5'))).lines.some((l: string) => l.includes('[Server] hello there')), { what: 'the say line' });
    const app = await readJson(await c.api('/api/services/Lobby-1/logs?lines=0'));
    expect(app.source).toBe('app');
    expect(app.lines).toHaveLength(1);
    expect((await c.api('/api/services/Lobby-1/logs?source=other')).status).toBe(400);
    expect((await c.api('/api/services/Lobby-1/exec', { method: 'POST', json: { command: 'a\nb' } })).status).toBe(400);
  });

  test('the record as the SDK, the dashboard and the bridge read it: JSON types before any report', async () => {
    const one = await readJson(await c.api('/api/services/Lobby-1'));
    expect(one.uptime).toMatch(/^\d+h \d+m \d+s$/);
    expect(Number.isInteger(one.uptimeSeconds)).toBe(true);
    expect(one.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(one.customState).toBeNull();
    expect(one).not.toHaveProperty('tps');
    expect(one.isStatic).toBe(false);
    expect(await readJson(await c.api('/api/services/Lobby-1/state'))).toEqual({ service: 'Lobby-1', state: 'READY', customState: null });
    const list = await readJson(await c.api('/api/services'));
    expect(list.count).toBe(list.total);
    expect(list.count).toBe(list.services.length);
    expect(list.services[0]).toMatchObject({ name: 'Lobby-1', customState: null, uptime: expect.stringMatching(/^\d+h \d+m \d+s$/) });
    expect((await readJson(await c.api('/api/services?group=Nope'))).count).toBe(0);
  });

  test('custom state needs READY; players and TPS reports; message to the controller', async () => {
    const set = await c.api('/api/services/Lobby-1/state', { method: 'PUT', json: { customState: 'INGAME' }, token: c.service });
    expect(set.status).toBe(200);
    expect(await readJson(set)).toMatchObject({ success: true, service: 'Lobby-1', customState: 'INGAME' });
    expect(await readJson(await c.api('/api/services/Lobby-1/state'))).toEqual({ service: 'Lobby-1', state: 'READY', customState: 'INGAME' });
    expect(ofType('SERVICE_CUSTOM_STATE_CHANGED', 'Lobby-1')[0]!.data).toEqual({ service: 'Lobby-1', group: 'Lobby', newState: 'INGAME' });
    expect((await readJson(await c.api('/api/services?customState=INGAME'))).total).toBe(1);
    expect((await readJson(await c.api('/api/services/Lobby-1'))).customState).toBe('INGAME');
    expect((await c.api('/api/services/Lobby-1/state', { method: 'PUT', json: { customState: 7 } })).status).toBe(400);
    expect((await c.api('/api/services/Lobby-1/state', { method: 'PUT', json: { customState: 'x'.repeat(257) } })).status).toBe(400);
    expect((await c.api('/api/services/Nope-1/state', { method: 'PUT', json: {} })).status).toBe(404);
    expect((await c.api('/api/services/Lobby-1/players', { method: 'PUT', json: { playerCount: 7 } })).status).toBe(200);
    expect((await c.api('/api/services/Lobby-1/health', { method: 'PUT', json: { tps: 12.5 } })).status).toBe(200);
    const view = await readJson(await c.api('/api/services/Lobby-1'));
    expect(view).toMatchObject({ playerCount: 7, tps: 12.5, healthy: false });
    expect(typeof view.tps).toBe('number');
    const health = await readJson(await c.api('/api/services/health'));
    expect(health).toMatchObject({ total: 1, ready: 1, healthy: 0, averageTps: 12.5 });
    expect((await c.api('/api/services/Lobby-1/players', { method: 'PUT', json: { playerCount: 0 } })).status).toBe(200);
    const sent = await c.api('/api/services/controller/message', { method: 'POST', json: { from: 'Lobby-1', channel: 'stats', data: { kills: 3, mode: 'duel' } } });
    expect(sent.status).toBe(200);
    expect(ofType('SERVICE_MESSAGE').at(-1)!.data).toEqual({ from: 'Lobby-1', to: 'controller', channel: 'stats', kills: '3', mode: 'duel' });
    expect((await c.api('/api/services/Nope-1/message', { method: 'POST', json: { from: 'x', channel: 'c', data: {} } })).status).toBe(404);
  });

  test('the custom state clears with {}, null or "": null again, one event per real change', async () => {
    const changes = () => ofType('SERVICE_CUSTOM_STATE_CHANGED', 'Lobby-1').map((e) => e.data);
    const put = (json: unknown) => c.api('/api/services/Lobby-1/state', { method: 'PUT', json, token: c.service });
    const before = changes().length;
    for (const [body, set] of [
      [{}, 'WAITING'],
      [{ customState: null }, 'ENDING'],
      [{ customState: '' }, 'INGAME'],
    ] as const) {
      expect((await put({ customState: set })).status).toBe(200);
      const cleared = await put(body);
      expect(cleared.status).toBe(200);
      expect(await readJson(cleared)).toMatchObject({ success: true, service: 'Lobby-1', customState: null });
      expect(await readJson(await c.api('/api/services/Lobby-1/state'))).toEqual({ service: 'Lobby-1', state: 'READY', customState: null });
      expect((await readJson(await c.api('/api/services/Lobby-1'))).customState).toBeNull();
    }
    // Clearing what is already clear changes nothing and says nothing.
    expect((await put({})).status).toBe(200);
    expect(changes().slice(before)).toEqual([
      { service: 'Lobby-1', group: 'Lobby', oldState: 'INGAME', newState: 'WAITING' },
      { service: 'Lobby-1', group: 'Lobby', oldState: 'WAITING' },
      { service: 'Lobby-1', group: 'Lobby', newState: 'ENDING' },
      { service: 'Lobby-1', group: 'Lobby', oldState: 'ENDING' },
      { service: 'Lobby-1', group: 'Lobby', newState: 'INGAME' },
      { service: 'Lobby-1', group: 'Lobby', oldState: 'INGAME' },
    ]);
    expect((await readJson(await c.api('/api/services?customState=INGAME'))).total).toBe(0);
  });

  test('metrics history answers with clamps (the sampler fills it every 10 s)', async () => {
    c.controller.kernel.history.sample();
    const res = await readJson(await c.api('/api/services/Lobby-1/metrics/history?minutes=1'));
    expect(res.service).toBe('Lobby-1');
    expect(res.samples.length).toBeGreaterThanOrEqual(1);
    expect(res.samples[0].memoryUsedMb).toBeGreaterThan(0);
    expect((await c.api('/api/services/Lobby-1/metrics/history?minutes=abc')).status).toBe(400);
    expect((await c.api('/api/services/Nope-1/metrics/history')).status).toBe(404);
  });

  test('the timeline: its start by the caller (the service token here) and its READY by the controller, newest first; clamps and 404', async () => {
    const res = await readJson(await c.api('/api/services/Lobby-1/timeline'));
    expect(res.service).toBe('Lobby-1');
    const steps = res.steps as { type: string; actor: string; timestamp: string; data: Record<string, string> }[];
    const ready = steps.findIndex((s) => s.type === 'SERVICE_READY');
    const starting = steps.findIndex((s) => s.type === 'SERVICE_STARTING');
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(starting).toBeGreaterThan(ready);
    expect(steps[starting]).toMatchObject({ actor: 'api:service', data: { service: 'Lobby-1', group: 'Lobby', node: 'local' } });
    expect(steps[ready]!.actor).toBe('system');
    expect(Date.parse(steps[ready]!.timestamp)).toBeGreaterThanOrEqual(Date.parse(steps[starting]!.timestamp));
    expect((await readJson(await c.api('/api/services/Lobby-1/timeline?limit=1'))).steps).toHaveLength(1);
    expect((await readJson(await c.api('/api/services/Lobby-1/timeline?limit=0'))).steps).toHaveLength(1);
    expect((await c.api('/api/services/Lobby-1/timeline?limit=abc')).status).toBe(400);
    const missing = await c.api('/api/services/Nope-1/timeline');
    expect(missing.status).toBe(404);
    expect((await expectErrorBody(missing)).error).toBe('SERVICE_NOT_FOUND');
  });

  test('the maximum is enforced with 409', async () => {
    expect((await c.api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
    const refused = await c.api('/api/services/Lobby/start', { method: 'POST' });
    expect(refused.status).toBe(409);
    expect((await expectErrorBody(refused)).message).toContain('maximum of 2');
    await waitFor(async () => (await state('Lobby-2')) === 'READY', { what: 'Lobby-2 READY' });
  });

  test('stop: STOPPING → `stop` on stdin → STOPPED, unregistered, work dir deleted, port released', async () => {
    const view = await readJson(await c.api('/api/services/Lobby-2'));
    const workDirs = c.controller.kernel.services.get('Lobby-2')!.workDir;
    const res = await c.api('/api/services/Lobby-2/stop', { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await c.api('/api/services/Lobby-2')).status).toBe(404);
    expect(existsSync(workDirs)).toBe(false);
    expect(ofType('SERVICE_STOPPING', 'Lobby-2')).toHaveLength(1);
    expect(ofType('SERVICE_STOPPED', 'Lobby-2')).toHaveLength(1);
    await expect(pingServer('127.0.0.1', view.port, { timeoutMs: 500 })).rejects.toThrow();
  });

  test('a server that ignores stop is killed after the timeout', async () => {
    await c.api('/api/services/Hangs/start', { method: 'POST' });
    await waitFor(async () => (await state('Hangs-1')) === 'READY', { what: 'Hangs-1 READY' });
    const res = await c.api('/api/services/Hangs-1/stop', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(ofType('SERVICE_STOPPED', 'Hangs-1')).toHaveLength(1);
    expect(c.logs.join('')).toContain('killing it');
  }, 15_000);

  test('crash: CRASHED with exit code and diagnosis, restarted with backoff up to maxRestarts', async () => {
    await c.api('/api/services/Crashy/start', { method: 'POST' });
    await waitFor(() => ofType('SERVICE_CRASHED').filter((e) => e.data.service!.startsWith('Crashy-')).length >= 3, { what: 'three crashes', timeoutMs: 15_000 });
    const crashes = ofType('SERVICE_CRASHED').filter((e) => e.data.service!.startsWith('Crashy-'));
    expect(crashes.map((e) => [e.data.exitCode, e.data.restartAttempt])).toEqual([['3', '0'], ['3', '1'], ['3', '2']]);
    // maxRestarts 2: no fourth start.
    await waitFor(async () => (await readJson(await c.api('/api/services?group=Crashy'))).services.every((s: { state: string }) => s.state === 'CRASHED'), { what: 'all crashed' });
    const crashed = (await readJson(await c.api('/api/services?group=Crashy'))).services[0];
    expect(crashed.restartCount).toBe(2);
    expect(crashed.diagnosis).toContain('code 3');
  });

  test('restart replaces the instance; unknown names are SERVICE_NOT_FOUND', async () => {
    const res = await c.api('/api/services/Lobby-1/restart', { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await readJson(res)).service.name).toBe('Lobby-1');
    await waitFor(async () => (await state('Lobby-1')) === 'READY', { what: 'Lobby-1 READY again' });
    for (const [method, path] of [['GET', '/api/services/Nope-9'], ['POST', '/api/services/Nope-9/stop'], ['POST', '/api/services/Nope-9/exec'], ['GET', '/api/services/Nope-9/logs']] as const) {
      const r = await c.api(path, { method, json: method === 'POST' ? { command: 'x' } : undefined });
      expect(r.status).toBe(404);
      expect((await expectErrorBody(r)).error).toBe('SERVICE_NOT_FOUND');
    }
    const unknownGroup = await c.api('/api/services/NoGroup/start', { method: 'POST' });
    expect((await expectErrorBody(unknownGroup)).error).toBe('GROUP_NOT_FOUND');
  });

  test('a missing jar fails the start with SERVICE_START_FAILED and a diagnosis', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: { name: 'NoJar', software: 'PAPER', version: '1.21.1', minInstances: 0 } })).status).toBe(201);
    const res = await c.api('/api/services/NoJar/start', { method: 'POST' });
    expect(res.status).toBe(409);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('SERVICE_START_FAILED');
    expect(body.message).toContain('server.jar');
  });

  test('the template reaches the work dir with the EULA and port patches', async () => {
    mkdirSync(join(c.dir, 'templates/Templated'), { recursive: true });
    writeFileSync(join(c.dir, 'templates/Templated/server.properties'), '# mine\nmotd=Hello\nserver-port=1\n');
    expect((await c.api('/api/groups', { method: 'POST', json: fakeGroup('Templated') })).status).toBe(201);
    const started = await readJson(await c.api('/api/services/Templated/start', { method: 'POST' }));
    const record = c.controller.kernel.services.get('Templated-1')!;
    const properties = readFileSync(join(record.workDir, 'server.properties'), 'utf8');
    expect(properties).toContain('motd=Hello');
    expect(properties).toContain(`server-port=${started.service.port}`);
    expect(readFileSync(join(record.workDir, 'eula.txt'), 'utf8')).toContain('eula=true');
    expect(readFileSync(join(c.dir, 'templates/Templated/server.properties'), 'utf8')).toContain('server-port=1');
  });

  test('controller stop stops every service; none is left running', async () => {
    const pids = c.controller.kernel.services.all().map((s) => s.pid).filter((p): p is number => p !== null);
    expect(pids.length).toBeGreaterThan(0);
    await c.controller.stop('test');
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  }, 15_000);
});
