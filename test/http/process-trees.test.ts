/**
 * Issue 38 through the API of an in-process controller with real processes: a server that forks
 * leaves nothing behind after its stop, its crash, a restart or a kill (finding 3); a stop of a
 * crashed service calls off the restart waiting out its backoff; a start command that cannot
 * run (exit 127, 126) is "program not found", not a crash to retry.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJson, startController, waitFor, type TestController } from '../support/controller';
import { forkingServerArgv, groupOf, killSleepers, sleepersOf, uniqueTag } from '../support/process-tree';

let c: TestController;
const events: { type: string; data: Record<string, string> }[] = [];
const tags: string[] = [];
/** The backoff of a second restart in a row: long enough for a stop to land inside it. */
const BACKOFF_MS = 3_000;

beforeAll(async () => {
  c = await startController({
    toml: '[services]\nisolation = "none"\n',
    timing: { stopTimeoutMs: 1_000, killTimeoutMs: 2_000, drainPollMs: 20, restart: { baseDelayMs: BACKOFF_MS, maxDelayMs: BACKOFF_MS, loopThreshold: 50, loopWindowMs: 60_000, stableAfterMs: 600_000 } },
  });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
});
afterAll(() => c.stop());
afterEach(() => tags.splice(0).forEach(killSleepers));

const ofType = (type: string, service: string) => events.filter((e) => e.type === type && e.data.service === service);
const view = async (name: string) => readJson(await c.api(`/api/services/${name}`));

/** A group running the forking server with a fresh tag; started, READY, its three sleepers up. */
async function forkingGroup(name: string, modes: ('hang' | 'escape')[] = [], extra: Record<string, unknown> = {}) {
  const tag = uniqueTag();
  tags.push(tag);
  const group = { name, software: 'CUSTOM', version: '1.21.1', startCommand: forkingServerArgv(tag, ...modes), minInstances: 0, maxInstances: 1, drainTimeout: 0, ...extra };
  expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  expect((await c.api(`/api/services/${name}/start`, { method: 'POST' })).status).toBe(201);
  const service = `${name}-1`;
  await waitFor(async () => (await view(service)).state === 'READY', { what: `${service} READY` });
  await waitFor(() => sleepersOf(tag).length === 3, { what: 'the sleepers' });
  return { tag, service };
}

/** The sleepers of `tag` are exactly three, all in the group of the service's current wrapper. */
function onlyTheCurrentGroup(tag: string, service: string): boolean {
  const handle = c.controller.kernel.manager.handleOf(service);
  const sleepers = sleepersOf(tag);
  return handle !== null && sleepers.length === 3 && sleepers.every((pid) => groupOf(pid) === handle.wrapperPid);
}

describe('a server that forks leaves nothing behind', () => {
  test('stop', async () => {
    const { tag, service } = await forkingGroup('ForkStop');
    expect((await c.api(`/api/services/${service}/stop`, { method: 'POST' })).status).toBe(200);
    expect(sleepersOf(tag)).toEqual([]);
  });

  test('a stop that needs the kill', async () => {
    const { tag, service } = await forkingGroup('ForkHang', ['hang']);
    expect((await c.api(`/api/services/${service}/stop`, { method: 'POST' })).status).toBe(200);
    expect(c.logs.join('')).toContain('killing it');
    expect(sleepersOf(tag)).toEqual([]);
  });

  test('crash and the restart after it: the crashed server\'s children die with it', async () => {
    const { tag, service } = await forkingGroup('ForkCrash');
    const before = c.controller.kernel.manager.handleOf(service)!.wrapperPid;
    expect((await c.api(`/api/services/${service}/exec`, { method: 'POST', json: { command: 'crash' } })).status).toBe(200);
    await waitFor(() => ofType('SERVICE_CRASHED', service).length === 1, { what: 'the crash' });
    await waitFor(async () => (await view(service)).state === 'READY' && c.controller.kernel.manager.handleOf(service)?.wrapperPid !== before, { what: 'the restarted server' });
    await waitFor(() => onlyTheCurrentGroup(tag, service), { what: 'only the new server\'s children' });
    expect(sleepersOf(tag).some((pid) => groupOf(pid) === before)).toBe(false);
    expect((await c.api(`/api/services/${service}/stop`, { method: 'POST' })).status).toBe(200);
    expect(sleepersOf(tag)).toEqual([]);
  });

  test('restart through the API', async () => {
    const { tag, service } = await forkingGroup('ForkRestart');
    const before = c.controller.kernel.manager.handleOf(service)!.wrapperPid;
    expect((await c.api(`/api/services/${service}/restart`, { method: 'POST' })).status).toBe(200);
    await waitFor(() => onlyTheCurrentGroup(tag, service), { what: 'only the new server\'s children' });
    expect(c.controller.kernel.manager.handleOf(service)!.wrapperPid).not.toBe(before);
    expect((await c.api(`/api/services/${service}/stop`, { method: 'POST' })).status).toBe(200);
    expect(sleepersOf(tag)).toEqual([]);
  });

  test('kill (the ready timeout\'s and the stale watch\'s way out)', async () => {
    const { tag, service } = await forkingGroup('ForkKill', [], { restartOnCrash: false });
    c.controller.kernel.manager.kill(service);
    await waitFor(async () => (await view(service)).state === 'CRASHED', { what: 'CRASHED after the kill' });
    expect(sleepersOf(tag)).toEqual([]);
  });
});

describe('stop cancels a pending restart', () => {
  test('a stop while the restart after a crash waits out its backoff: the service stays stopped', async () => {
    const { tag, service } = await forkingGroup('ForkBackoff');
    // The first restart is immediate; the second waits BACKOFF_MS.
    for (let crash = 1; crash <= 2; crash++) {
      await waitFor(async () => (await view(service)).state === 'READY', { what: `READY before crash ${crash}` });
      expect((await c.api(`/api/services/${service}/exec`, { method: 'POST', json: { command: 'crash' } })).status).toBe(200);
      await waitFor(() => ofType('SERVICE_CRASHED', service).length === crash, { what: `crash ${crash}` });
    }
    const crashedAt = performance.now();
    expect(c.controller.kernel.manager.pendingRestartsOf('ForkBackoff')).toBe(1);
    const stop = await c.api(`/api/services/${service}/stop`, { method: 'POST' });
    expect(stop.status).toBe(200);
    expect(performance.now() - crashedAt).toBeLessThan(BACKOFF_MS); // it did land inside the backoff
    expect(c.controller.kernel.manager.pendingRestartsOf('ForkBackoff')).toBe(0);
    expect(c.logs.join('')).toContain('the restart scheduled after its crash is called off');
    const starts = ofType('SERVICE_STARTING', service).length;
    // Past the moment the restart was due: nothing started.
    await waitFor(() => performance.now() - crashedAt > BACKOFF_MS + 500, { what: 'the backoff to pass', timeoutMs: BACKOFF_MS + 2_000 });
    expect(ofType('SERVICE_STARTING', service).length).toBe(starts);
    expect((await c.api(`/api/services/${service}`)).status).toBe(404);
    expect(sleepersOf(tag)).toEqual([]);
  }, 20_000);
});

describe('a start command that cannot run', () => {
  test.each([
    ['127: not found', 'NotFound', () => ['/nonexistent/server-bin', '--nogui'], '"/nonexistent/server-bin"', 'exit 127'],
    [
      '126: not executable',
      'NotExec',
      () => {
        const script = join(c.dir, 'not-executable.sh');
        writeFileSync(script, '#!/bin/sh\necho never\n');
        chmodSync(script, 0o644);
        return [script];
      },
      'not-executable.sh"',
      'exit 126',
    ],
  ])('%s: CRASHED with a diagnosis naming the program, and not restarted', async (_label, name, argv, named, code) => {
    const group = { name, software: 'CUSTOM', version: '1.21.1', startCommand: argv(), minInstances: 0, maxInstances: 1, restartOnCrash: true, maxRestarts: 5 };
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
    expect((await c.api(`/api/services/${name}/start`, { method: 'POST' })).status).toBe(201);
    const service = `${name}-1`;
    await waitFor(() => c.logs.some((line) => line.includes(`service=${service}`) && line.includes('not restarted: program')), { what: 'the refusal to restart' });
    const crashed = await view(service);
    expect(crashed.state).toBe('CRASHED');
    expect(crashed.restartCount).toBe(0);
    expect(crashed.diagnosis).toContain(named);
    expect(crashed.diagnosis).toContain(code);
    expect(ofType('SERVICE_CRASHED', service)).toHaveLength(1);
    expect(ofType('SERVICE_STARTING', service)).toHaveLength(1);
    expect(c.controller.kernel.manager.pendingRestartsOf(name)).toBe(0);
  });
});
