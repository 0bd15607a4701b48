/**
 * A stop that cannot end its process: the server's wrapper (its parent, which reaps it and
 * records the exit) is frozen with SIGSTOP, so after `stop`, SIGTERM and SIGKILL the server is a
 * zombie nobody collects and the exit is never recorded. The stop must then answer 409
 * SERVICE_STOP_FAILED naming the pid, leave the service STOPPING, and finish on its own once the
 * wrapper runs again.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
let c: TestController;
let frozen: number | null = null;

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 300, killTimeoutMs: 800 } });
});
afterAll(async () => {
  if (frozen !== null) process.kill(frozen, 'SIGCONT');
  await c.stop();
});

test('a process that outlives SIGKILL by killTimeoutMs: 409 SERVICE_STOP_FAILED, still STOPPING, finished when it ends', async () => {
  const group = { name: 'Stuck', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0, maxInstances: 1 };
  expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  const started = await c.api('/api/services/Stuck/start', { method: 'POST' });
  expect(started.status).toBe(201);
  const { service } = await readJson(started);
  await waitFor(async () => (await readJson(await c.api(`/api/services/${service.name}`))).state === 'READY', { what: 'READY', timeoutMs: 20_000 });
  const handle = c.controller.kernel.manager.handleOf(service.name)!;
  frozen = handle.wrapperPid;
  process.kill(frozen, 'SIGSTOP');

  const stop = await c.api(`/api/services/${service.name}/stop`, { method: 'POST' });
  expect(stop.status).toBe(409);
  const body = await expectErrorBody(stop);
  expect(body.error).toBe('SERVICE_STOP_FAILED');
  expect(body.message).toContain(`did not end within 1 s of SIGKILL`);
  expect(body.message).toContain(`pid ${handle.pid}`);
  expect((await readJson(await c.api(`/api/services/${service.name}`))).state).toBe('STOPPING');

  // The wrapper runs again: it reaps the server and records the exit; the stop completes by itself.
  process.kill(frozen, 'SIGCONT');
  frozen = null;
  await waitFor(async () => {
    const res = await c.api(`/api/services/${service.name}`);
    return res.status === 404 || (await readJson(res)).state === 'STOPPED';
  }, { what: 'the late stop to finish', timeoutMs: 10_000 });
}, 60_000);
