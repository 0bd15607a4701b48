/**
 * Node timeouts on a fake monotonic clock while the wall clock jumps: a node that heartbeats is
 * never failed by a step forward, and one that falls silent is failed after node_timeout of
 * monotonic time, whatever the wall clock says.
 */
import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { Cluster } from '../../src/cluster/cluster';
import type { NodeRegistry } from '../../src/cluster/identity/registry';
import type { AuthRequestMessage, ControllerMessage, HeartbeatResponseMessage } from '../../src/cluster/protocol';
import type { ServiceRegistry } from '../../src/core/services/registry';
import type { Config } from '../../src/config/schema';
import { waitFor } from '../support/controller';

const NODE_TIMEOUT_MS = 15_000;
const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };
let cluster: Cluster | undefined;
afterEach(() => cluster?.close());

function login(nodeName: string): AuthRequestMessage {
  return { type: 'AUTH_REQUEST', protocolVersion: 1, token: 't', nodeName, agentVersion: '1.0.0', maxMemory: 1024, maxServices: 2, currentServices: 0, os: 'linux', arch: 'x64', hostname: 'h', osVersion: '', cpuModel: '', availableProcessors: 1, systemMemoryTotalMb: 1024, publicHost: '10.0.0.2', runningServices: [] } as AuthRequestMessage;
}
const beat: HeartbeatResponseMessage = { type: 'HEARTBEAT_RESPONSE', cpuUsage: 0.1, memoryUsedMb: 100, memoryTotalMb: 1024, services: [] } as unknown as HeartbeatResponseMessage;

describe('Cluster node timeouts', () => {
  test('a wall-clock step of +10 min fails no node; monotonic silence past node_timeout does', async () => {
    let mono = 1_000;
    const published: string[] = [];
    cluster = new Cluster({
      config: { heartbeat_interval: 5, node_timeout: NODE_TIMEOUT_MS, reconciliation_delay: 0 } as Config['cluster'],
      bus: { publish: (type: string) => void published.push(type), subscribe: () => () => {} } as never,
      log: quiet as never,
      registry: { get: () => undefined, all: () => [] } as unknown as ServiceRegistry,
      localLimits: () => ({ maxMemoryMb: 0, maxServices: 0 }) as never,
      identities: { get: () => undefined, seen: () => {}, list: () => [] } as unknown as NodeRegistry,
      monotonic: () => mono,
    });
    const sent: ControllerMessage[] = [];
    const closed: number[] = [];
    const requests = () => sent.filter((m) => m.type === 'HEARTBEAT_REQUEST').length;
    cluster.connected(login('steady'), '10.0.0.2', { send: (m) => sent.push(m) }, (code) => closed.push(code));

    const wall = spyOn(Date, 'now').mockReturnValue(Date.now() + 10 * 60_000);
    try {
      // The watchdog runs every 5 ms; each round here moves the monotonic clock on by less than node_timeout and answers.
      for (let round = 0; round < 4; round++) {
        const before = requests();
        mono += NODE_TIMEOUT_MS - 1;
        cluster.heartbeat('steady', beat);
        await waitFor(() => requests() > before, { what: 'a heartbeat request' });
      }
      expect(closed).toEqual([]);
      expect(cluster.isConnected('steady')).toBe(true);
      expect(published).not.toContain('NODE_DISCONNECTED');

      // Silent now: a step back of the wall clock does not save it either.
      wall.mockReturnValue(Date.now() - 3_600_000);
      mono += NODE_TIMEOUT_MS + 1;
      await waitFor(() => closed.length > 0, { what: 'the silent node closed' });
      expect(closed).toEqual([4002]);
      expect(cluster.isConnected('steady')).toBe(false);
    } finally {
      wall.mockRestore();
    }
  });
});
