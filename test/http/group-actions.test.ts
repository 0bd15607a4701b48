/**
 * Group actions against a controller with real processes (fake-paper): a dry run answers the
 * plan and changes nothing; a rolling restart of a group at its minimum replaces each instance
 * with a new one first and never has fewer than the minimum READY (every READY and every stop
 * heard on the bus); a restart above the minimum goes in place, a stagger apart; stop all; a
 * second action while one runs, and one that cannot keep the minimum, are refused in words.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { loginAs, testPlayer } from '../support/dashboard-login';

let c: TestController;
/** The group's READY instances as the bus tells it, and the fewest seen since `low` was reset. */
const readyNow = new Set<string>();
let low = Infinity;
const events: { type: string; service: string; at: number }[] = [];

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 2000, drainPollMs: 20 } });
  c.controller.kernel.bus.subscribe((e) => {
    const service = e.data.service ?? '';
    if (!service.startsWith('Lobby-')) return;
    events.push({ type: e.type, service, at: Date.parse(e.timestamp) });
    if (e.type === 'SERVICE_READY') readyNow.add(service);
    else if (['SERVICE_DRAINING', 'SERVICE_STOPPING', 'SERVICE_STOPPED', 'SERVICE_CRASHED'].includes(e.type)) readyNow.delete(service);
    low = Math.min(low, readyNow.size);
  });
  expect((await c.api('/api/groups', { method: 'POST', json: fakePaperGroup('Lobby', { minInstances: 0, maxInstances: 3 }) })).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await c.api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
  await waitFor(() => readyNow.size === 2, { what: 'two Lobby instances READY' });
  // Now its minimum: the autoscaler keeps two, and a restart may not go below.
  expect((await c.api('/api/groups/Lobby', { method: 'PUT', json: { minInstances: 2 } })).status).toBe(200);
});
afterAll(() => c.stop());

const lastRun = async () => (await readJson(await c.api('/api/groups/Lobby/actions'))).run;
const finished = () => waitFor(async () => ((await lastRun())?.status !== 'running' ? await lastRun() : undefined), { timeoutMs: 60_000, what: 'the group action to end' });

describe('group actions', () => {
  test('a dry run answers the plan and changes nothing', async () => {
    const before = [...readyNow].sort();
    const res = await c.api('/api/groups/Lobby/actions/restart', { method: 'POST', json: { dryRun: true, staggerSeconds: 3 } });
    expect(res.status).toBe(200);
    const { plan } = await readJson(res);
    expect(plan.steps).toEqual([
      { service: 'Lobby-1', does: 'surge', waitSeconds: 0 },
      { service: 'Lobby-2', does: 'surge', waitSeconds: 3 },
    ]);
    expect(plan.warnings[0]).toContain('minimum of 2 READY');
    expect(await lastRun()).toBeNull();
    expect([...readyNow].sort()).toEqual(before);
  });

  test('a rolling restart at the minimum: each replaced by a new instance first; never fewer than 2 READY', async () => {
    low = readyNow.size;
    const from = events.length;
    const res = await c.api('/api/groups/Lobby/actions/restart', { method: 'POST', json: {} });
    expect(res.status).toBe(202);
    expect((await readJson(res)).run).toMatchObject({ group: 'Lobby', action: 'restart', status: 'running', actor: 'api:admin' });
    // A second action while it runs is refused, in words.
    const second = await c.api('/api/groups/Lobby/actions/stop', { method: 'POST', json: {} });
    expect(second.status).toBe(409);
    expect((await expectErrorBody(second)).error).toBe('GROUP_ACTION_IN_PROGRESS');
    const run = await finished();
    expect(run.status).toBe('done');
    expect(run.steps.map((s: { status: string }) => s.status)).toEqual(['done', 'done']);
    expect(run.steps[0].outcome).toMatch(/^Lobby-\d+ READY, then Lobby-1 stopped$/);
    expect(low).toBeGreaterThanOrEqual(2);
    // Both old processes stopped, each after a new instance was READY (a new one may take a freed name).
    const during = events.slice(from);
    for (const old of ['Lobby-1', 'Lobby-2']) {
      const stoppedAt = during.findIndex((e) => e.type === 'SERVICE_STOPPING' && e.service === old);
      expect(stoppedAt).toBeGreaterThanOrEqual(0);
      expect(during.slice(0, stoppedAt).filter((e) => e.type === 'SERVICE_READY').length).toBeGreaterThanOrEqual(old === 'Lobby-1' ? 1 : 2);
    }
    expect(readyNow.size).toBe(2);
  });

  test('above the minimum: in place, in name order, the stagger between one READY and the next restart', async () => {
    expect((await c.api('/api/groups/Lobby', { method: 'PUT', json: { minInstances: 1 } })).status).toBe(200);
    const names = [...readyNow].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    const from = events.length;
    low = readyNow.size;
    expect((await c.api('/api/groups/Lobby/actions/restart', { method: 'POST', json: { staggerSeconds: 1 } })).status).toBe(202);
    const run = await finished();
    expect(run.status).toBe('done');
    expect(run.steps.map((s: { does: string; service: string }) => `${s.does} ${s.service}`)).toEqual(names.map((n) => `restart ${n}`));
    expect(low).toBeGreaterThanOrEqual(1);
    const after = events.slice(from);
    const firstReady = after.find((e) => e.type === 'SERVICE_READY')!;
    const secondStop = after.find((e) => e.type === 'SERVICE_STOPPING' && e.service === names[1])!;
    expect(secondStop.at - firstReady.at).toBeGreaterThanOrEqual(990);
  });

  test('refusals in words: no room to start, a restart that cannot keep the minimum; unknown group 404', async () => {
    const tooMany = await c.api('/api/groups/Lobby/actions/start', { method: 'POST', json: { count: 2 } });
    expect(tooMany.status).toBe(400);
    expect((await expectErrorBody(tooMany)).message).toBe('group Lobby runs 2 of its maximum of 3 instance(s): there is room for 1, not 2');
    expect((await c.api('/api/groups/Lobby', { method: 'PUT', json: { minInstances: 2, maxInstances: 2 } })).status).toBe(200);
    const stuck = await c.api('/api/groups/Lobby/actions/restart', { method: 'POST', json: {} });
    expect(stuck.status).toBe(400);
    expect((await expectErrorBody(stuck)).message).toContain('raise its maximum by one');
    expect((await c.api('/api/groups/Nope/actions/stop', { method: 'POST', json: {} })).status).toBe(404);
    expect((await c.api('/api/groups/Nope/actions')).status).toBe(404);
  });

  test('start N, then stop all: every instance stopped, drained first; the run says each', async () => {
    expect((await c.api('/api/groups/Lobby', { method: 'PUT', json: { minInstances: 0, maxInstances: 3 } })).status).toBe(200);
    expect((await c.api('/api/groups/Lobby/actions/start', { method: 'POST', json: { count: 1 } })).status).toBe(202);
    const started = await finished();
    expect(started.steps[0].outcome).toMatch(/^Lobby-\d+ READY$/);
    expect(readyNow.size).toBe(3);
    expect((await c.api('/api/groups/Lobby/actions/stop', { method: 'POST', json: {} })).status).toBe(202);
    const stopped = await finished();
    expect(stopped.status).toBe('done');
    expect(stopped.steps).toHaveLength(3);
    await waitFor(async () => (await readJson(await c.api('/api/services?group=Lobby'))).total === 0, { what: 'no Lobby instance left' });
  });

  test('a dashboard session needs the node of what the action does: start yes, stop no', async () => {
    const session = await loginAs(c, testPlayer(42, 'Operator'), ['svc.dashboard.services.start', 'svc.dashboard.groups.view']);
    const start = await c.api('/api/groups/Lobby/actions/start', { method: 'POST', json: { dryRun: true }, token: session });
    expect(start.status).toBe(200);
    expect((await readJson(start)).plan.steps).toEqual([{ service: null, does: 'start', waitSeconds: 0 }]);
    const stop = await c.api('/api/groups/Lobby/actions/stop', { method: 'POST', json: { dryRun: true }, token: session });
    expect(stop.status).toBe(403);
    expect((await expectErrorBody(stop)).message).toContain('svc.dashboard.services.stop');
  });
});
