import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIdentity } from '../../src/agent/identity';
import { startAgent, type RunningAgent } from '../../src/agent/run';
import { secretDigest } from '../../src/cluster/identity/secret';
import type { SvcEvent } from '../../src/events/catalogue';
import { CLUSTER_TOKEN, startController, tempDir, waitFor } from '../support/controller';

const cleanups: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const f of cleanups.reverse()) await f();
});

function dataDir(): string {
  const { dir, remove } = tempDir('svc-identity-');
  cleanups.push(remove);
  return join(dir, 'data');
}

const SECRET = `svcn_${'A'.repeat(43)}`;

describe('the agent keeps its node secret', () => {
  test('before enrolment: no secret, the login carries the cluster token', () => {
    const identity = new NodeIdentity(join(dataDir(), 'node.json'), 'node-a');
    expect(identity.secret()).toBeNull();
    expect(identity.loginToken('cluster-token')).toBe('cluster-token');
  });

  test('a secret handed out is saved owner-only and atomically, and read back by a new process', () => {
    const file = join(dataDir(), 'node.json');
    const identity = new NodeIdentity(file, 'node-a');
    expect(identity.save(SECRET, new Date('2026-01-02T00:00:00Z'))).toBe(true);
    expect(identity.secret()).toBe(SECRET);
    expect(identity.loginToken('cluster-token')).toBe(SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, nodeId: 'node-a', secret: SECRET, enrolledAt: '2026-01-02T00:00:00.000Z' });
    expect(new NodeIdentity(file, 'node-a').secret()).toBe(SECRET);
  });

  test('the file is read again: deleting it makes the next login an enrolment', () => {
    const file = join(dataDir(), 'node.json');
    const identity = new NodeIdentity(file, 'node-a');
    identity.save(SECRET);
    rmSync(file);
    identity.reload();
    expect(identity.loginToken('cluster-token')).toBe('cluster-token');
  });

  test("another node's secret, a broken file: not used, said so", () => {
    const file = join(dataDir(), 'node.json');
    const said: string[] = [];
    const log = { warn: (m: string) => said.push(`warn ${m}`), error: (m: string) => said.push(`error ${m}`) };
    new NodeIdentity(file, 'node-a').save(SECRET);
    expect(new NodeIdentity(file, 'node-b', log).secret()).toBeNull();
    expect(said.pop()).toContain('holds the secret of node node-a, but node_name is node-b');
    writeFileSync(file, '{not json');
    expect(new NodeIdentity(file, 'node-a', log).secret()).toBeNull();
    expect(said.pop()).toStartWith('error ');
  });

  test('a secret that cannot be saved serves this session only; the next login enrols again', () => {
    const dir = dataDir();
    const file = join(dir, 'node.json');
    const said: string[] = [];
    const identity = new NodeIdentity(file, 'node-a', { warn: (m) => said.push(m), error: (m) => said.push(m) });
    // A folder where the file goes: the write fails.
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
    expect(identity.save(SECRET)).toBe(false);
    expect(identity.secret()).toBe(SECRET);
    expect(identity.persisted).toBe(false);
    expect(said[0]).toContain('could not be saved');
    rmSync(file, { recursive: true });
    identity.reload();
    expect(identity.secret()).toBeNull();
  });

  test('a malformed secret from the controller is refused', () => {
    const identity = new NodeIdentity(join(dataDir(), 'node.json'), 'node-a');
    expect(() => identity.save('../../etc/passwd')).toThrow('unexpected form');
  });
});

describe('an agent process enrols, logs in with its secret, and accepts a revocation', () => {
  test('enrol on first connect, secret on the next, no fallback to the cluster token once revoked', async () => {
    const c = await startController({ clusterToml: 'enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"', cluster: { heartbeatIntervalMs: 200, nodeTimeoutMs: 1500, reconciliationDelayMs: 1500 } });
    cleanups.push(() => c.stop());
    const events: SvcEvent[] = [];
    c.controller.kernel.bus.subscribe((e) => events.push(e));
    const cluster = c.controller.kernel.cluster!.cluster;
    const { dir, remove } = tempDir('svc-agent-identity-');
    cleanups.push(remove);
    writeFileSync(join(dir, 'agent.toml'), `[agent]\ncontroller = "${c.url}"\ntoken = "${CLUSTER_TOKEN}"\nnode_name = "enroller"\npublic_host = "127.0.0.1"\n[services]\nisolation = "none"\n`);
    const start = () => startAgent({ dir, configPath: join(dir, 'agent.toml'), env: {}, timing: { backoffMs: 50, maxBackoffMs: 200 } });

    let agent: RunningAgent = await start();
    await waitFor(() => agent.connection.connected, { what: 'the agent connected' });
    const secret = agent.identity.secret()!;
    expect(secret).toMatch(/^svcn_/);
    const file = join(dir, 'data', 'node.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(cluster.identities.get('enroller')).toMatchObject({ secretSha256: secretDigest(secret), confirmed: false });
    await agent.stop();
    await waitFor(() => !cluster.isConnected('enroller'), { what: 'the agent gone' });

    // A restarted agent (a self-update's new binary too) logs in with its secret: the enrolment is confirmed.
    agent = await start();
    await waitFor(() => agent.connection.connected, { what: 'the agent back' });
    expect(agent.identity.secret()).toBe(secret);
    expect(cluster.identities.get('enroller')!.confirmed).toBe(true);
    expect(events.filter((e) => e.type === 'NODE_ENROLLED')).toHaveLength(1);

    // Revoked: the agent says what the operator must do and never sends the cluster token instead.
    expect((await c.api('/api/nodes/enroller/revoke', { method: 'POST' })).status).toBe(200);
    await waitFor(() => agent.connection.refusal === 'revoked', { what: 'the refusal seen by the agent', timeoutMs: 5000 });
    expect(agent.connection.connected).toBe(false);
    expect(agent.connection.lastRefusal).toContain('was revoked by the operator');
    expect(readFileSync(join(dir, 'logs', 'svc.log'), 'utf8')).toContain('This agent does not fall back to the cluster token');
    expect(cluster.identities.get('enroller')!.revokedAt).not.toBeNull();
    expect(events.filter((e) => e.type === 'NODE_ENROLLED')).toHaveLength(1);
    expect(existsSync(file)).toBe(true);
    await agent.stop();
  });
});
