/**
 * A controller that sends names which would be paths outside the agent's folders: the agent
 * answers FAILED naming the field, and nothing appears on its disk. A real controller and an
 * in-process agent over the TLS channel; the START_SERVICE frames are sent through the
 * controller's own Cluster, as a compromised or impersonated controller would send them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, type RunningAgent } from '../../src/agent/run';
import type { StartServiceMessage } from '../../src/cluster/protocol';
import { CLUSTER_TOKEN, startController, tempDir, waitFor, type TestController } from '../support/controller';

let c: TestController;
let agent: RunningAgent;
let agentDir: string;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  c = await startController({
    clusterToml: 'enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"',
    cluster: { heartbeatIntervalMs: 200, nodeTimeoutMs: 1500, reconciliationDelayMs: 1500 },
  });
  const { dir, remove } = tempDir('svc-agent-names-');
  cleanups.push(remove);
  agentDir = dir;
  writeFileSync(join(dir, 'agent.toml'), `[agent]\ncontroller = "${c.url}"\ntoken = "${CLUSTER_TOKEN}"\nnode_name = "node-n"\npublic_host = "127.0.0.1"\nbackend_port_start = 43000\n[services]\nisolation = "none"\n`);
  agent = await startAgent({ dir, configPath: join(dir, 'agent.toml'), env: {}, timing: { backoffMs: 100, maxBackoffMs: 500 } });
  await waitFor(() => agent.connection.connected, { what: 'agent connected', timeoutMs: 10_000 });
});
afterAll(async () => {
  await agent?.stop({ stopServices: true });
  await c?.stop();
  for (const f of cleanups) f();
});

const HASH = 'b'.repeat(64);
const start: Omit<StartServiceMessage, 'type' | 'requestId'> = {
  serviceName: 'Evil-1',
  groupName: 'Evil',
  isStatic: true,
  software: 'CUSTOM',
  version: '1.21.1',
  memory: '512M',
  jvmArgs: [],
  jvmOptimize: false,
  jarName: 'server.jar',
  javaPath: '',
  startCommand: ['true'],
  templates: [{ name: 'Evil', hash: HASH }],
  forwarding: { mode: 'modern', secret: 's' },
  pullState: false,
  syncExcludes: [],
  env: {},
};

const SERVICE_FOLDERS = () => ['static', 'temp'].flatMap((sub) => (existsSync(join(agentDir, 'services', sub)) ? readdirSync(join(agentDir, 'services', sub)) : []));
const CACHED = () => (existsSync(join(agentDir, 'cache', 'templates')) ? readdirSync(join(agentDir, 'cache', 'templates')) : []);

describe('names from the controller on the agent', () => {
  const cases: [string, Partial<typeof start>, RegExp][] = [
    ['serviceName that climbs out of services/static', { serviceName: '../../../tmp/owned-1', groupName: 'Evil' }, /refused: serviceName "\.\.\/\.\.\/\.\.\/tmp\/owned-1"/],
    ['groupName with a separator', { serviceName: 'a/b-1', groupName: 'a/b' }, /refused: groupName "a\/b"/],
    ['template name that climbs out of the cache', { templates: [{ name: '../../services/static/Evil-1', hash: HASH }] }, /refused: templates\[0\] name/],
    ['template hash with a separator', { templates: [{ name: 'Evil', hash: '../x' }] }, /refused: templates\[0\] hash/],
    ['serviceName of another group', { serviceName: 'Lobby-1' }, /refused: serviceName "Lobby-1" is not an instance of groupName "Evil"/],
  ];
  for (const [what, change, reason] of cases) {
    test(`${what}: FAILED naming the field, nothing created`, async () => {
      const launch = c.controller.kernel.cluster!.cluster.launch('node-n', { ...start, ...change });
      await expect(launch).rejects.toThrow(reason);
      expect(SERVICE_FOLDERS()).toEqual([]);
      expect(CACHED()).toEqual([]);
      expect(agent.services.count).toBe(0);
      // The agent stays connected: a refused start is an answer, not a broken channel.
      expect(agent.connection.connected).toBe(true);
    });
  }
});
