import { afterAll, beforeAll, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, type RunningAgent } from '../../src/agent/run';
import { CLUSTER_TOKEN, expectErrorBody, readJson, startController, tempDir, waitFor, type TestController } from '../support/controller';

/**
 * An agent's services are supervised by the controller like local ones: a group pinned to a
 * node that crash-loops there trips the same breaker, its restarts stop, and a start on that
 * node is refused until an operator lifts the quarantine.
 */
let c: TestController;
let agent: RunningAgent;
const cleanups: (() => void)[] = [];
const events: { type: string; data: Record<string, string> }[] = [];

beforeAll(async () => {
  c = await startController({
    clusterToml: 'enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"',
    timing: { stopTimeoutMs: 3000, restart: { baseDelayMs: 10, maxDelayMs: 50, loopThreshold: 3, loopWindowMs: 60_000, stableAfterMs: 600_000 } },
    cluster: { heartbeatIntervalMs: 200, nodeTimeoutMs: 1500, reconciliationDelayMs: 1500 },
  });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
  const { dir, remove } = tempDir('svc-agent-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'agent.toml'), `[agent]\ncontroller = "${c.url}"\ntoken = "${CLUSTER_TOKEN}"\nnode_name = "node-q"\npublic_host = "127.0.0.1"\nbackend_port_start = 43000\n[services]\nisolation = "none"\n`);
  agent = await startAgent({ dir, configPath: join(dir, 'agent.toml'), env: {}, timing: { backoffMs: 100, maxBackoffMs: 500 } });
  await waitFor(() => agent.connection.connected, { what: 'agent connected' });
}, 30_000);
afterAll(async () => {
  await agent?.stop({ stopServices: true });
  await c.stop();
  for (const f of cleanups) f();
});

test('a crash loop on an agent is quarantined by the controller; nothing more is launched there until it is lifted', async () => {
  const group = { name: 'Far', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: ['sh', '-c', 'exit 3'], minInstances: 0, maxInstances: 1, restartOnCrash: true, maxRestarts: 50, placementNode: 'node-q', placementFallback: 'fail' };
  expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  const started = await readJson(await c.api('/api/services/Far/start', { method: 'POST' }));
  expect(started.service.nodeId).toBe('node-q');
  await waitFor(() => events.some((e) => e.type === 'GROUP_QUARANTINED' && e.data.group === 'Far'), { what: 'Far quarantined', timeoutMs: 20_000 });
  const crashes = events.filter((e) => e.type === 'SERVICE_CRASHED' && e.data.service?.startsWith('Far-'));
  expect(crashes).toHaveLength(3);
  expect(events.filter((e) => e.type === 'SERVICE_STARTING' && e.data.group === 'Far')).toHaveLength(3);
  const { manager, services } = c.controller.kernel;
  expect(manager.pendingRestartsOf('Far')).toBe(0);
  expect(services.get('Far-1')).toMatchObject({ state: 'CRASHED', nodeId: 'node-q' });

  const refused = await c.api('/api/services/Far/start', { method: 'POST' });
  expect(refused.status).toBe(409);
  expect((await expectErrorBody(refused)).error).toBe('GROUP_QUARANTINED');
  expect(agent.services.count).toBe(0);

  expect((await readJson(await c.api('/api/groups/Far/quarantine', { method: 'DELETE' }))).lifted).toBe(true);
  const again = await readJson(await c.api('/api/services/Far/start', { method: 'POST' }));
  expect(again.service).toMatchObject({ name: 'Far-1', nodeId: 'node-q' });
}, 40_000);
