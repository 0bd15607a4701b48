/** Boot: proxies up to minInstances first, waited for until READY, then the backends. */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { startController, type TestController } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
let c: TestController;
const events: { type: string; service: string | undefined }[] = [];

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 2000 } });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, service: e.data.service }));
  const command = (...args: string[]) => [process.execPath, FAKE_PAPER, '--port', '{port}', ...args];
  const groups = [
    { name: 'Lobby', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: command(), minInstances: 1, maxInstances: 1 },
    // Slow to become READY: the backends must wait for it.
    { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', startCommand: command('--done-delay-ms', '300'), minInstances: 1, maxInstances: 1 },
  ];
  for (const group of groups) expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
});
afterAll(() => c.stop());

test('the proxy is READY before any backend starts', async () => {
  await c.controller.kernel.manager.bootGroups(10_000);
  const order = events.filter((e) => e.type === 'SERVICE_STARTING' || e.type === 'SERVICE_READY').map((e) => `${e.type} ${e.service}`);
  expect(order.slice(0, 3)).toEqual(['SERVICE_STARTING Proxy-1', 'SERVICE_READY Proxy-1', 'SERVICE_STARTING Lobby-1']);
}, 15_000);
