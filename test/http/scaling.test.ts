import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';
import { fakePaperGroup } from '../fixtures/fake-paper-group';

/**
 * The scaling engine end to end: real fake-paper processes, player counts moved by the proxy
 * bridge's events and read back with Server List Ping, decisions carried out as starts and
 * draining stops. Ticks and cooldowns are shortened; the rule itself is the real one.
 */
const fakeGroup = fakePaperGroup;

let c: TestController;
const events: { type: string; data: Record<string, string> }[] = [];
const ofType = (type: string, group?: string) => events.filter((e) => e.type === type && (!group || e.data.group === group || e.data.service?.startsWith(`${group}-`)));
const stateOf = (name: string) => c.controller.kernel.services.get(name)?.state;
const uuid = (n: number) => `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`;
const bridge = (json: Record<string, string>) => c.api('/api/proxy/events', { method: 'POST', json, token: c.service });

beforeAll(async () => {
  c = await startController({
    timing: { stopTimeoutMs: 2000, drainPollMs: 20 },
    scaling: { tickMs: 100, upCooldownMs: 300, downCooldownMs: 300, warmPool: { intervalMs: 100 } },
  });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
});
afterAll(() => c.stop());

describe('scaling (real processes)', () => {
  test('minInstances is filled, players push a scale-up, their leaving a draining scale-down', async () => {
    const created = await c.api('/api/groups', { method: 'POST', json: fakeGroup('Lobby', { minInstances: 1, maxInstances: 3, playersPerInstance: 2, scaleThreshold: 0.5, idleTimeout: 1 }) });
    expect(created.status).toBe(201);
    await waitFor(() => stateOf('Lobby-1') === 'READY', { what: 'Lobby-1 filled to minInstances', timeoutMs: 10_000 });
    expect(ofType('SCALE_UP', 'Lobby')[0]!.data).toMatchObject({ group: 'Lobby', from: '0', to: '1', reason: expect.stringContaining('below minInstances') });

    // Two players on one instance of capacity 2: fill 1.0 > 0.5.
    for (const n of [1, 2]) expect((await bridge({ type: 'PLAYER_CONNECTED', player: `P${n}`, uuid: uuid(n), service: 'Lobby-1' })).status).toBe(200);
    await waitFor(() => stateOf('Lobby-2') === 'READY', { what: 'Lobby-2 started by load', timeoutMs: 10_000 });
    const up = ofType('SCALE_UP', 'Lobby').find((e) => e.data.from === '1');
    expect(up!.data).toMatchObject({ to: '2', reason: expect.stringContaining('fill above threshold: 2 players on 1 routable') });
    // One routable with 2 players and one empty: 2 / 4 = 0.5 is not above the threshold.
    expect(ofType('SCALE_UP', 'Lobby').some((e) => e.data.from === '2')).toBe(false);

    for (const n of [1, 2]) await bridge({ type: 'PLAYER_DISCONNECTED', player: `P${n}`, uuid: uuid(n), service: 'Lobby-1' });
    // Empty for longer than idleTimeout with two fresh zero readings (Server List Ping): the last one goes.
    await waitFor(() => ofType('SCALE_DOWN', 'Lobby').length > 0, { what: 'a scale-down', timeoutMs: 10_000 });
    expect(ofType('SCALE_DOWN', 'Lobby')[0]!.data).toMatchObject({ group: 'Lobby', service: 'Lobby-2', reason: expect.stringContaining('idle for') });
    await waitFor(() => stateOf('Lobby-2') === undefined, { what: 'Lobby-2 stopped and gone' });
    // It was drained first, so the proxies stopped routing to it before it stopped.
    const order = events.filter((e) => e.data.service === 'Lobby-2').map((e) => e.type);
    expect(order.slice(order.indexOf('SCALE_DOWN'))).toEqual(['SCALE_DOWN', 'SERVICE_DRAINING', 'SERVICE_STOPPING', 'SERVICE_STOPPED']);
    // Never below minInstances.
    expect(stateOf('Lobby-1')).toBe('READY');
  });

  test('minInstances is refilled after a crash the restart policy does not replace', async () => {
    await c.api('/api/groups', { method: 'POST', json: fakeGroup('NoRestart', { minInstances: 1, maxInstances: 2, restartOnCrash: false }) });
    await waitFor(() => stateOf('NoRestart-1') === 'READY', { what: 'NoRestart-1', timeoutMs: 10_000 });
    const pid = c.controller.kernel.services.get('NoRestart-1')!.pid!;
    process.kill(pid, 'SIGKILL');
    await waitFor(() => ofType('SERVICE_CRASHED', 'NoRestart').length === 1, { what: 'the crash' });
    await waitFor(() => stateOf('NoRestart-1') === 'READY' && c.controller.kernel.services.get('NoRestart-1')!.pid !== pid, { what: 'a refill', timeoutMs: 10_000 });
    expect(ofType('SCALE_UP', 'NoRestart').at(-1)!.data.reason).toContain('below minInstances (0 of 1)');
  });

  test('stopOnEmpty stops an instance when its last player leaves, then refills it fresh', async () => {
    await c.api('/api/groups', { method: 'POST', json: fakeGroup('Duel', { minInstances: 1, maxInstances: 2, stopOnEmpty: true }) });
    await waitFor(() => stateOf('Duel-1') === 'READY', { what: 'Duel-1', timeoutMs: 10_000 });
    const firstPid = c.controller.kernel.services.get('Duel-1')!.pid;
    await bridge({ type: 'PLAYER_CONNECTED', player: 'Solo', uuid: uuid(9), service: 'Duel-1' });
    await bridge({ type: 'PLAYER_DISCONNECTED', player: 'Solo', uuid: uuid(9), service: 'Duel-1' });
    await waitFor(() => ofType('SCALE_DOWN', 'Duel').length === 1, { what: 'stop-on-empty' });
    expect(ofType('SCALE_DOWN', 'Duel')[0]!.data).toMatchObject({ service: 'Duel-1', reason: expect.stringContaining('stop-on-empty') });
    await waitFor(() => stateOf('Duel-1') === 'READY' && c.controller.kernel.services.get('Duel-1')!.pid !== firstPid, { what: 'a fresh Duel-1', timeoutMs: 10_000 });
  });

  test('a stress test pauses scaling', async () => {
    await c.api('/api/groups', { method: 'POST', json: fakeGroup('Paused', { minInstances: 0, maxInstances: 2 }) });
    const before = events.length;
    expect((await c.api('/api/stress/start', { method: 'POST', json: { players: 10, group: 'Lobby', rampSeconds: 0 } })).status).toBe(200);
    expect(events.slice(before).some((e) => e.type === 'STRESS_TEST_UPDATED')).toBe(true);
    expect((await c.api('/api/groups/Paused', { method: 'PUT', json: fakeGroup('Paused', { minInstances: 1, maxInstances: 2 }) })).status).toBe(200);
    await c.controller.kernel.scaling.tick();
    await c.controller.kernel.scaling.tick();
    expect(stateOf('Paused-1')).toBeUndefined();
    expect((await c.api('/api/stress/stop', { method: 'POST' })).status).toBe(200);
    await waitFor(() => stateOf('Paused-1') === 'READY', { what: 'Paused-1 after the stress test', timeoutMs: 10_000 });
  });
});

describe('placement limits', () => {
  let small: TestController;
  const blocked: Record<string, string>[] = [];
  beforeAll(async () => {
    small = await startController({ toml: '[controller]\nmax_services = 1', timing: { stopTimeoutMs: 2000 }, scaling: { tickMs: 100, upCooldownMs: 0 } });
    small.controller.kernel.bus.subscribe((e) => e.type === 'PLACEMENT_BLOCKED' && blocked.push(e.data));
  });
  afterAll(() => small.stop());

  test('a due start beyond max_services is PLACEMENT_BLOCKED once, an API start is refused with the reason', async () => {
    await small.api('/api/groups', { method: 'POST', json: fakeGroup('Big', { minInstances: 2, maxInstances: 3 }) });
    await waitFor(() => small.controller.kernel.services.get('Big-1')?.state === 'READY', { what: 'Big-1', timeoutMs: 10_000 });
    await waitFor(() => blocked.length > 0, { what: 'PLACEMENT_BLOCKED' });
    expect(blocked[0]).toEqual({ group: 'Big', reason: expect.stringContaining('max_services reached: 1 of 1') });
    // Further ticks do not repeat the same event.
    await small.controller.kernel.scaling.tick();
    await small.controller.kernel.scaling.tick();
    expect(blocked).toHaveLength(1);
    const res = await small.api('/api/services/Big/start', { method: 'POST' });
    expect(res.status).toBe(409);
    expect((await expectErrorBody(res)).message).toContain('[controller] max_services');
    expect(blocked).toHaveLength(2);
    const metrics = await (await small.api('/api/metrics')).text();
    expect(metrics).toContain('svc_placement_blocked_total{group="Big"} 2');
    expect(metrics).toMatch(/svc_scaling_events_total\{group="Big",direction="up"\} 1/);
    expect((await readJson(await small.api('/api/services'))).total).toBe(1);
  });
});
