/**
 * What the backend SDK's reports do to a service (READY without a matching line, staleness when
 * they stop), and the order in which a controller shutdown stops its services.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { shutdownWave } from '../../src/core/services/manager';
import { readJson, startController, waitFor, type TestController } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const command = (...args: string[]) => [process.execPath, FAKE_PAPER, '--port', '{port}', ...args];

let c: TestController;
const events: { type: string; data: Record<string, string> }[] = [];
const ofType = (type: string, service?: string) => events.filter((e) => e.type === type && (!service || e.data.service === service));
const view = async (name: string) => readJson(await c.api(`/api/services/${name}`));
const ready = (name: string) => waitFor(async () => (await view(name)).state === 'READY', { what: `${name} READY` });

const STALE_MS = 400;

beforeAll(async () => {
  c = await startController({
    timing: {
      stopTimeoutMs: 2000,
      staleTimeoutMs: STALE_MS,
      staleCheckMs: 25,
      restart: { baseDelayMs: 10, maxDelayMs: 50, loopThreshold: 10, loopWindowMs: 60_000, stableAfterMs: 600_000 },
    },
  });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
  const groups = [
    // Never prints Done: only the SDK can make it READY.
    { name: 'Silent', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: command('--no-done'), minInstances: 0, maxInstances: 2, restartOnCrash: false },
    { name: 'Lobby', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: command(), minInstances: 0, maxInstances: 2, restartOnCrash: false },
    { name: 'Game', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: command(), minInstances: 0, maxInstances: 1, stopOnEmpty: true },
    { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', startCommand: command(), minInstances: 0, maxInstances: 1 },
  ];
  for (const group of groups) expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
});
afterAll(() => c.stop());

describe('SDK reports', () => {
  test('a player-count report while STARTING makes the service READY, once', async () => {
    expect((await c.api('/api/services/Silent/start', { method: 'POST' })).status).toBe(201);
    expect((await view('Silent-1')).state).toBe('STARTING');
    expect((await c.api('/api/services/Silent-1/players', { method: 'PUT', json: { playerCount: 0 }, token: c.service })).status).toBe(200);
    expect((await view('Silent-1')).state).toBe('READY');
    expect((await c.api('/api/services/Silent-1/players', { method: 'PUT', json: { playerCount: 1 }, token: c.service })).status).toBe(200);
    expect(ofType('SERVICE_READY', 'Silent-1')).toHaveLength(1);
  });

  test('a TPS report while STARTING does the same; TPS alone does not arm the stale watch', async () => {
    expect((await c.api('/api/services/Silent/start', { method: 'POST' })).status).toBe(201);
    expect((await view('Silent-2')).state).toBe('STARTING');
    expect((await c.api('/api/services/Silent-2/health', { method: 'PUT', json: { tps: 20 } })).status).toBe(200);
    expect((await view('Silent-2')).state).toBe('READY');
    expect(ofType('SERVICE_READY', 'Silent-2')).toHaveLength(1);
    expect(c.controller.kernel.manager.findStale(performance.now() + 10 * STALE_MS)).not.toContain('Silent-2');
    // It queues console commands until a Done line it never prints, so `stop` would wait for the kill: kill it now.
    c.controller.kernel.manager.kill('Silent-2');
    await waitFor(() => ofType('SERVICE_CRASHED', 'Silent-2')[0], { what: 'Silent-2 ended' });
  });

  test('an SDK that falls silent past service_stale_timeout: killed, CRASHED with a stale diagnosis', async () => {
    const reported = Date.now();
    expect((await c.api('/api/services/Silent-1/players', { method: 'PUT', json: { playerCount: 0 } })).status).toBe(200);
    const crash = await waitFor(() => ofType('SERVICE_CRASHED', 'Silent-1')[0], { what: 'Silent-1 crashed as stale', timeoutMs: 5000 });
    expect(Date.now() - reported).toBeGreaterThanOrEqual(STALE_MS);
    expect(crash.data.exitCode).toBe('137');
    const crashed = await view('Silent-1');
    expect(crashed.state).toBe('CRASHED');
    expect(crashed.diagnosis).toContain('stale: no player-count report');
  });

  test('findStale: only READY services that reported, and only past the timeout', async () => {
    expect((await c.api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
    await ready('Lobby-1');
    const manager = c.controller.kernel.manager;
    const lobby = c.controller.kernel.services.get('Lobby-1')!;
    lobby.playersReportedMono = null;
    expect(manager.findStale(performance.now() + 10 * STALE_MS)).toEqual([]);
    // A whole number of ms: (t + 400) - t is exactly 400 only when t is (a fractional t may come out 399.99…).
    lobby.playersReportedMono = Math.floor(performance.now());
    expect(manager.findStale(lobby.playersReportedMono + STALE_MS / 2)).toEqual([]);
    expect(manager.findStale(lobby.playersReportedMono + STALE_MS)).toEqual(['Lobby-1']);
    lobby.playersReportedMono = null; // keep it alive for the shutdown test
  });
});

describe('shutdown order', () => {
  test('waves: dedicated, stop-on-empty groups, other backends, proxies', () => {
    expect(shutdownWave({ isDedicated: true, isProxy: false }, undefined)).toBe(0);
    expect(shutdownWave({ isDedicated: false, isProxy: false }, { stopOnEmpty: true })).toBe(1);
    expect(shutdownWave({ isDedicated: false, isProxy: false }, { stopOnEmpty: false })).toBe(2);
    expect(shutdownWave({ isDedicated: false, isProxy: false }, undefined)).toBe(2);
    expect(shutdownWave({ isDedicated: false, isProxy: true }, { stopOnEmpty: true })).toBe(3);
  });

  test('a controller stop: the stop-on-empty game first, then the lobby, the proxy last; every one stops cleanly', async () => {
    for (const group of ['Game', 'Proxy']) expect((await c.api(`/api/services/${group}/start`, { method: 'POST' })).status).toBe(201);
    for (const name of ['Game-1', 'Proxy-1', 'Lobby-1']) await ready(name);
    const pids = ['Game-1', 'Proxy-1', 'Lobby-1'].map((name) => c.controller.kernel.services.get(name)!.pid!);
    events.length = 0;
    await c.stop();
    const order = events.filter((e) => e.type === 'SERVICE_STOPPING' || e.type === 'SERVICE_STOPPED').map((e) => `${e.type === 'SERVICE_STOPPING' ? '>' : '<'}${e.data.service}`);
    expect(order).toEqual(['>Game-1', '<Game-1', '>Lobby-1', '<Lobby-1', '>Proxy-1', '<Proxy-1']);
    expect(c.logs.join('')).not.toContain('killing it'); // the proxy answered `end`
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  }, 15_000);
});
