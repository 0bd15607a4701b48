/**
 * The node routes (GET /api/nodes with enrolments, revoke, forget, host) and the `nodes`
 * console command: happy paths, validation, auth and not-found, on a real controller with
 * nodes that log in over a real socket.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { CLUSTER_TOKEN, expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';

let c: TestController;

beforeAll(async () => {
  c = await startController({ clusterToml: 'enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"', cluster: { heartbeatIntervalMs: 100, nodeTimeoutMs: 1500, reconciliationDelayMs: 1500 } });
});
afterAll(() => c.stop());

const cluster = () => c.controller.kernel.cluster!.cluster;

/** A node logged in over the channel; close() ends its session. */
async function node(nodeName: string, token = CLUSTER_TOKEN): Promise<{ secret: string | undefined; close(): Promise<void> }> {
  const { wsUrl, certPem } = c.controller.kernel.cluster!.bootstrap();
  const socket = new WebSocket(wsUrl, { tls: { ca: certPem } } as unknown as ConstructorParameters<typeof WebSocket>[1]);
  const frames: Record<string, unknown>[] = [];
  socket.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data))));
  socket.addEventListener('open', () =>
    socket.send(JSON.stringify({ type: 'AUTH_REQUEST', protocolVersion: 1, token, nodeName, agentVersion: '0.13.0', maxMemory: 2048, maxServices: 2, currentServices: 0, os: 'linux', arch: 'x64', hostname: 'h', osVersion: '', cpuModel: '', availableProcessors: 1, systemMemoryTotalMb: 1, publicHost: `${nodeName}.example`, runningServices: [] })),
  );
  const response = await waitFor(() => frames.find((f) => f.type === 'AUTH_RESPONSE'), { what: 'AUTH_RESPONSE' });
  expect(response.accepted).toBe(true);
  return {
    secret: response.nodeSecret as string | undefined,
    close: async () => {
      socket.close();
      await waitFor(() => !cluster().isConnected(nodeName), { what: `${nodeName} gone` });
    },
  };
}

async function command(name: string, args: string[], token?: string | null) {
  const res = await c.api(`/api/commands/${name}/execute`, { method: 'POST', json: { args }, token });
  const body = await readJson(res);
  return { status: res.status, body, lines: (body.lines ?? []) as { type: string; text: string }[] };
}

describe('GET /api/nodes', () => {
  test('connected and enrolled nodes with their enrolment state', async () => {
    const live = await node('listed');
    const nodes = (await readJson(await c.api('/api/nodes'))).nodes as Record<string, unknown>[];
    expect(nodes.find((n) => n.nodeId === 'listed')).toMatchObject({ isConnected: true, host: 'listed.example', enrolment: 'unconfirmed', maxMemory: '2G', revokedAt: null, enrolledAt: expect.any(String), lastSeen: expect.any(String) });
    await live.close();
    const again = await node('listed', live.secret);
    const confirmed = (await readJson(await c.api('/api/nodes'))).nodes.find((n: { nodeId: string }) => n.nodeId === 'listed');
    expect(confirmed.enrolment).toBe('confirmed');
    await again.close();
  });
});

describe('POST /api/nodes/{nodeId}/revoke', () => {
  test('happy path, not found, validation, auth', async () => {
    const live = await node('revokee');
    const res = await c.api('/api/nodes/revokee/revoke', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ success: true, message: 'node revokee revoked; 0 service(s) on it are treated as failed', nodeId: 'revokee' });
    await waitFor(() => !cluster().isConnected('revokee'), { what: 'revokee closed' });
    expect(live.secret).toBeDefined();

    const missing = await c.api('/api/nodes/nobody/revoke', { method: 'POST' });
    expect(missing.status).toBe(404);
    expect((await expectErrorBody(missing)).error).toBe('NODE_NOT_FOUND');
    const invalid = await c.api('/api/nodes/bad%20id!/revoke', { method: 'POST' });
    expect(invalid.status).toBe(400);
    expect((await expectErrorBody(invalid)).error).toBe('VALIDATION_FAILED');
    expect((await c.api('/api/nodes/revokee/revoke', { method: 'POST', token: null })).status).toBe(401);
    expect((await c.api('/api/nodes/revokee/revoke', { method: 'POST', token: c.service })).status).toBe(403);
    // The cluster token and a node's own secret are for agents, not for this.
    expect((await c.api('/api/nodes/revokee/revoke', { method: 'POST', token: CLUSTER_TOKEN })).status).toBe(403);
    const other = await node('bystander');
    expect((await c.api('/api/nodes/bystander/revoke', { method: 'POST', token: other.secret })).status).toBe(403);
    expect(cluster().identities.get('bystander')!.revokedAt).toBeNull();
    await other.close();
  });
});

describe('DELETE /api/nodes/{nodeId}', () => {
  test('happy path (offline, then revoked), 409 while connected, not found, validation, auth', async () => {
    const live = await node('forgettable');
    const online = await c.api('/api/nodes/forgettable', { method: 'DELETE' });
    expect(online.status).toBe(409);
    const body = await expectErrorBody(online);
    expect(body.error).toBe('NODE_ONLINE');
    expect(body.message).toContain('revoke it first');
    await live.close();
    // Away, but not yet failed (its services would still count as running): also refused.
    expect((await c.api('/api/nodes/forgettable', { method: 'DELETE' })).status).toBe(409);
    await waitFor(async () => (await c.api('/api/nodes/forgettable', { method: 'DELETE' })).status === 200, { what: 'forgotten once failed', timeoutMs: 5000, intervalMs: 100 });
    expect(cluster().identities.get('forgettable')).toBeUndefined();
    expect((await readJson(await c.api('/api/nodes'))).nodes.some((n: { nodeId: string }) => n.nodeId === 'forgettable')).toBe(false);

    // A revoked one is forgotten at once.
    await node('revoked-then-forgotten');
    expect((await c.api('/api/nodes/revoked-then-forgotten/revoke', { method: 'POST' })).status).toBe(200);
    const forgotten = await c.api('/api/nodes/revoked-then-forgotten', { method: 'DELETE' });
    expect(forgotten.status).toBe(200);
    expect((await readJson(forgotten)).message).toContain('may enrol again');

    expect((await c.api('/api/nodes/nobody', { method: 'DELETE' })).status).toBe(404);
    expect((await c.api('/api/nodes/..%2Fx', { method: 'DELETE' })).status).toBe(400);
    expect((await c.api('/api/nodes/nobody', { method: 'DELETE', token: null })).status).toBe(401);
    expect((await c.api('/api/nodes/nobody', { method: 'DELETE', token: c.service })).status).toBe(403);
  });
});

describe('PUT /api/nodes/{nodeId}/host', () => {
  test('happy path, validation, not found, auth', async () => {
    const live = await node('moved');
    const res = await c.api('/api/nodes/moved/host', { method: 'PUT', json: { host: '192.0.2.7' } });
    expect(res.status).toBe(200);
    expect(cluster().hostOf('moved')).toBe('192.0.2.7');
    expect(cluster().identities.get('moved')!.host).toBe('192.0.2.7');
    const audit = c.controller.kernel.audit.list({ limit: 5, offset: 0, action: 'NODE_HOST_CHANGED' }).entries;
    expect(audit[0]).toMatchObject({ actor: 'api:admin', target: 'moved' });
    expect(audit[0]!.details).toContain('previous=moved.example');
    for (const bad of [{ host: '' }, { host: 'a b' }, { host: 'x'.repeat(300) }, {}, { host: 7 }]) {
      const invalid = await c.api('/api/nodes/moved/host', { method: 'PUT', json: bad });
      expect(invalid.status).toBe(400);
      expect((await expectErrorBody(invalid)).error).toBe('VALIDATION_FAILED');
    }
    expect((await c.api('/api/nodes/nobody/host', { method: 'PUT', json: { host: 'h' } })).status).toBe(404);
    expect((await c.api('/api/nodes/moved/host', { method: 'PUT', json: { host: 'h' }, token: null })).status).toBe(401);
    expect((await c.api('/api/nodes/moved/host', { method: 'PUT', json: { host: 'h' }, token: c.service })).status).toBe(403);
    await live.close();
  });
});

describe('the nodes command', () => {
  test('list, revoke, forget, host; admin only; usage errors', async () => {
    const live = await node('console-node');
    const listed = await command('nodes', []);
    expect(listed.status).toBe(200);
    expect(listed.lines.find((l) => l.type === 'header')!.text).toMatch(/^\d+ node\(s\), \d+ online$/);
    expect(listed.lines.find((l) => l.text.startsWith('console-node'))!.text).toContain('online');
    expect(listed.lines.some((l) => l.text.startsWith('unconfirmed:') && l.text.includes('console-node'))).toBe(true);

    expect((await command('nodes', ['host', 'console-node', '198.51.100.4'])).status).toBe(200);
    expect(cluster().hostOf('console-node')).toBe('198.51.100.4');
    const revoked = await command('nodes', ['revoke', 'console-node']);
    expect(revoked.status).toBe(200);
    expect(revoked.lines.map((l) => l.text)).toContain('node console-node revoked: its secret opens nothing from now on');
    await waitFor(() => !cluster().isConnected('console-node'), { what: 'console-node closed' });
    expect((await command('nodes', ['forget', 'console-node'])).status).toBe(200);
    expect(cluster().identities.get('console-node')).toBeUndefined();
    expect(live.secret).toBeDefined();

    expect((await command('nodes', ['revoke', 'nobody'])).body).toMatchObject({ error: 'COMMAND_EXECUTION_FAILED', message: expect.stringContaining('node "nobody" is not known') });
    expect((await command('nodes', ['revoke'])).body.message).toContain('usage: nodes revoke <node>');
    expect((await command('nodes', ['sideways'])).body.message).toStartWith('unknown subcommand "sideways"; usage: nodes');
    expect((await command('nodes', ['host', 'x', 'bad host!'])).status).toBe(422);
    expect((await command('nodes', [], c.service)).status).toBe(403);
  });

  test('without the cluster: the command says so', async () => {
    const plain = await startController();
    try {
      const res = await plain.api('/api/commands/nodes/execute', { method: 'POST', json: { args: [] } });
      expect(res.status).toBe(422);
      expect((await readJson(res)).message).toContain('the cluster is not enabled');
      for (const [path, method] of [['/api/nodes/x/revoke', 'POST'], ['/api/nodes/x', 'DELETE']] as const) {
        const r = await plain.api(path, { method });
        expect(r.status).toBe(404);
        expect((await readJson(r)).error).toBe('CLUSTER_NOT_ENABLED');
      }
    } finally {
      await plain.stop();
    }
  });
});
