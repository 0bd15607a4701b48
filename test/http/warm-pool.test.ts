import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { pidAlive } from '../../src/core/supervisor/process/pid-probe';
import { readJson, startController, waitFor, type TestController } from '../support/controller';

/**
 * The warm pool with real fake-paper processes: instances booted ahead of need (PREPARED,
 * not routable), a start served by one of them without a new process, the pool refilled,
 * drained when its group changes or goes, and backing off when its instances cannot boot.
 */
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const pooled = (name: string, extra: Record<string, unknown> = {}, args: string[] = []) => ({
  name,
  software: 'CUSTOM',
  version: '1.21.1',
  jarName: 'server.jar',
  // A boot that takes a while, as a real server's does: the pool's reason to exist.
  startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', '--done-delay-ms', '300', ...args],
  minInstances: 0,
  maxInstances: 3,
  warmPoolSize: 1,
  ...extra,
});

let c: TestController;
const events: { type: string; data: Record<string, string>; at: number }[] = [];
const ofType = (type: string, prefix: string) => events.filter((e) => e.type === type && (e.data.group === prefix || e.data.service?.startsWith(`${prefix}-`)));
const record = (name: string) => c.controller.kernel.services.get(name);

beforeAll(async () => {
  c = await startController({
    timing: { stopTimeoutMs: 2000 },
    scaling: { tickMs: 60_000, warmPool: { intervalMs: 100, backoffMs: 400, maxBackoffMs: 400 } },
  });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data, at: Date.now() }));
});
afterAll(() => c.stop());

describe('warm pool (real processes)', () => {
  test('an instance is booted ahead of need: PREPARED, not routable, counted toward the machine', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: pooled('Pool') })).status).toBe(201);
    await waitFor(() => record('Pool-1')?.state === 'PREPARED', { what: 'Pool-1 PREPARED', timeoutMs: 10_000 });
    expect(ofType('SERVICE_PREPARED', 'Pool')[0]!.data).toEqual({ service: 'Pool-1', group: 'Pool' });
    await waitFor(() => ofType('WARM_POOL_REPLENISHED', 'Pool').length > 0, { what: 'WARM_POOL_REPLENISHED' });
    expect(ofType('WARM_POOL_REPLENISHED', 'Pool')[0]!.data).toEqual({ group: 'Pool', poolSize: '1' });
    // Booted, yet no SERVICE_STARTING/READY: nothing routes players to it.
    expect(ofType('SERVICE_STARTING', 'Pool')).toHaveLength(0);
    expect(ofType('SERVICE_READY', 'Pool')).toHaveLength(0);
    const list = await readJson(await c.api('/api/services?group=Pool'));
    expect(list.services).toEqual([expect.objectContaining({ name: 'Pool-1', state: 'PREPARED' })]);
    const metrics = await (await c.api('/api/metrics')).text();
    expect(metrics).toContain('svc_warmpool_size{group="Pool"} 1');
    expect(metrics).toContain('svc_warmpool_target{group="Pool"} 1');
    // The pool is not "running": the group's active count still reads 0 instances in use.
    expect(c.controller.kernel.services.runningInstances('Pool')).toBe(0);
  });

  test('a start takes the booted instance: READY at once, same process; the pool refills', async () => {
    const pid = record('Pool-1')!.pid!;
    const res = await c.api('/api/services/Pool/start', { method: 'POST', token: c.service });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    // Served from the pool: already READY in the answer, no new process.
    expect(body.service).toMatchObject({ name: 'Pool-1', state: 'READY', pid });
    expect(ofType('SERVICE_STARTING', 'Pool').map((e) => e.data.service)).toEqual(['Pool-1']);
    expect(ofType('SERVICE_READY', 'Pool').map((e) => e.data.service)).toEqual(['Pool-1']);
    await waitFor(() => record('Pool-2')?.state === 'PREPARED', { what: 'the pool refilled', timeoutMs: 10_000 });
    // A cold start (no pool) answers STARTING: it still has to boot.
    await c.api('/api/groups', { method: 'POST', json: pooled('Cold', { warmPoolSize: 0 }) });
    const cold = await readJson(await c.api('/api/services/Cold/start', { method: 'POST' }));
    expect(cold.service.state).toBe('STARTING');
  });

  test('the pool never takes running + pooled past maxInstances', async () => {
    await c.api('/api/services/Pool/start', { method: 'POST' }); // takes Pool-2
    await waitFor(() => record('Pool-3')?.state === 'PREPARED', { what: 'Pool-3', timeoutMs: 10_000 });
    await c.api('/api/services/Pool/start', { method: 'POST' }); // takes Pool-3: 3 running, max 3
    await c.controller.kernel.warmPool.replenish();
    expect(c.controller.kernel.services.poolOf('Pool')).toHaveLength(0);
    expect(c.controller.kernel.warmPool.targetOf(c.controller.kernel.groups.require('Pool'))).toBe(0);
  });

  test('a changed launch setting drains the stale pool and boots a fresh one; deleting the group drains it', async () => {
    for (const name of ['Pool-1', 'Pool-2', 'Pool-3']) await c.api(`/api/services/${name}/stop`, { method: 'POST', json: { force: true } });
    await waitFor(() => record('Pool-1')?.state === 'PREPARED', { what: 'pool back', timeoutMs: 10_000 });
    const stalePid = record('Pool-1')!.pid!;
    expect((await c.api('/api/groups/Pool', { method: 'PUT', json: pooled('Pool', { memory: '2G' }) })).status).toBe(200);
    await waitFor(() => !pidAlive(stalePid), { what: 'the stale instance stopped' });
    await waitFor(() => c.controller.kernel.services.poolOf('Pool').some((s) => s.state === 'PREPARED' && s.pid !== stalePid), { what: 'a fresh pool', timeoutMs: 10_000 });
    const freshPid = c.controller.kernel.services.poolOf('Pool')[0]!.pid!;
    // The pool is not a running instance: deleting the group is allowed and takes the pool with it.
    expect((await c.api('/api/groups/Pool', { method: 'DELETE' })).status).toBe(200);
    expect(pidAlive(freshPid)).toBe(false);
    expect(c.controller.kernel.services.ofGroup('Pool').filter((s) => s.state === 'PREPARED' || s.state === 'PREPARING')).toHaveLength(0);
  });

  test('instances that cannot boot back the pool off instead of looping', async () => {
    await c.api('/api/groups', { method: 'POST', json: pooled('Broken', {}, ['--exit-immediately', '1']) });
    await waitFor(() => ofType('SERVICE_CRASHED', 'Broken').length >= 1, { what: 'the first failed boot' });
    await waitFor(() => c.logs.some((l) => l.includes('warm pool: an instance did not boot')), { what: 'the backoff log line' });
    await waitFor(() => ofType('SERVICE_CRASHED', 'Broken').length >= 2, { what: 'a second try after the backoff' });
    // Passes run every 100 ms; the second try waited out the 400 ms backoff instead.
    const [first, second] = ofType('SERVICE_CRASHED', 'Broken');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(350);
  });
});
