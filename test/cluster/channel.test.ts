import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { CLUSTER_TOKEN, readJson, startController, waitFor, type TestController } from '../support/controller';
import { OPCODE, RawWebSocket } from '../support/raw-ws';
import { CLUSTER_MAX_QUEUE } from '../../src/cluster/server';
import { parseExposition } from '../core/metrics/exposition';

/**
 * The agent channel against a real controller: authentication order and refusals, frame
 * validation, heartbeats and node timeouts, events, and GET /api/nodes.
 */
let c: TestController;
let bootstrap: { wsUrl: string; certPem: string; fingerprint: string };
const events: { type: string; data: Record<string, string> }[] = [];

beforeAll(async () => {
  c = await startController({
    clusterToml: 'enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"',
    cluster: { heartbeatIntervalMs: 100, nodeTimeoutMs: 600, reconciliationDelayMs: 600 },
  });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
  bootstrap = await readJson(await c.api('/api/cluster/bootstrap', { token: c.cluster }));
});
afterAll(() => c.stop());

const authFrame = (extra: Record<string, unknown> = {}) => ({
  type: 'AUTH_REQUEST',
  protocolVersion: 1,
  token: CLUSTER_TOKEN,
  nodeName: 'probe',
  agentVersion: '9.9.9',
  maxMemory: 4096,
  maxServices: 3,
  currentServices: 0,
  os: 'linux',
  arch: 'x64',
  hostname: 'probe-host',
  osVersion: '6.1',
  cpuModel: 'Test CPU',
  availableProcessors: 4,
  systemMemoryTotalMb: 16000,
  publicHost: '10.1.2.3',
  runningServices: [],
  ...extra,
});

interface Probe {
  socket: WebSocket;
  frames: Record<string, unknown>[];
  closed: { code: number; reason: string } | null;
}

async function connect(): Promise<Probe> {
  const socket = new WebSocket(bootstrap.wsUrl, { tls: { ca: bootstrap.certPem } } as unknown as ConstructorParameters<typeof WebSocket>[1]);
  const probe: Probe = { socket, frames: [], closed: null };
  socket.addEventListener('message', (m) => probe.frames.push(JSON.parse(String(m.data))));
  socket.addEventListener('close', (e) => (probe.closed = { code: e.code, reason: e.reason }));
  await waitFor(() => socket.readyState === WebSocket.OPEN || probe.closed, { what: 'socket open' });
  return probe;
}

describe('the agent channel', () => {
  test('bootstrap: the fingerprint is the SHA-256 of the served certificate, the URL is wss', async () => {
    const der = Buffer.from(bootstrap.certPem.replace(/-----[^-]+-----|\s+/g, ''), 'base64');
    const hex = new Bun.CryptoHasher('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':');
    expect(bootstrap.fingerprint).toBe(hex);
    expect(bootstrap.wsUrl).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/cluster$/);
    const full = await readJson(await c.api('/api/cluster/bootstrap', { token: c.cluster }));
    expect(full.sans).toEqual(expect.arrayContaining(['localhost', '127.0.0.1']));
    expect(Date.parse(full.validUntil)).toBeGreaterThan(Date.now() + 365 * 24 * 3600 * 1000);
  });

  test('bootstrap auth: none 401, derived service token 403', async () => {
    expect((await c.api('/api/cluster/bootstrap', { token: null })).status).toBe(401);
    expect((await c.api('/api/cluster/bootstrap', { token: c.service })).status).toBe(403);
  });

  test('the protocol version is checked before the token', async () => {
    const probe = await connect();
    probe.socket.send(JSON.stringify(authFrame({ protocolVersion: 7, token: 'wrong' })));
    await waitFor(() => probe.closed, { what: 'close' });
    expect(probe.frames[0]).toMatchObject({ type: 'AUTH_RESPONSE', accepted: false });
    expect(String(probe.frames[0]!.reason)).toContain('protocol version 7 is not supported');
    expect(probe.closed!.code).toBe(1008);
  });

  test('a wrong token is refused, saying so', async () => {
    const probe = await connect();
    probe.socket.send(JSON.stringify(authFrame({ token: 'wrong' })));
    await waitFor(() => probe.closed, { what: 'close' });
    expect(probe.frames[0]).toMatchObject({ accepted: false, reason: 'the cluster token is not valid' });
  });

  test('the first frame must be AUTH_REQUEST', async () => {
    const probe = await connect();
    probe.socket.send(JSON.stringify({ type: 'LOG_MESSAGE', level: 'info', message: 'hi' }));
    await waitFor(() => probe.closed, { what: 'close' });
    expect(String(probe.frames[0]!.reason)).toContain('the first frame must be AUTH_REQUEST');
  });

  test('an invalid frame costs the agent its connection, never the controller anything', async () => {
    for (const bad of ['not json', JSON.stringify({ type: 'HEARTBEAT_RESPONSE', cpuUsage: 'lots' }), JSON.stringify({ type: 'NO_SUCH_TYPE' })]) {
      const probe = await connect();
      probe.socket.send(JSON.stringify(authFrame({ nodeName: 'bad-frames' })));
      await waitFor(() => probe.frames.length > 0, { what: 'auth response' });
      expect(probe.frames[0]).toMatchObject({ accepted: true });
      probe.socket.send(bad);
      await waitFor(() => probe.closed, { what: 'close after a bad frame' });
      expect(probe.closed!.code).toBe(1008);
    }
    expect((await c.api('/api/health', { token: null })).status).toBe(200);
  });

  test('a frame over the size limit closes the connection', async () => {
    const probe = await connect();
    probe.socket.send('x'.repeat(1024 * 1024 + 10));
    await waitFor(() => probe.closed, { what: 'close' });
    expect(probe.closed!.code).not.toBe(1000);
  });

  test('a node: connected, heartbeating, listed with its system facts; silent → disconnected', async () => {
    events.length = 0;
    const probe = await connect();
    probe.socket.send(JSON.stringify(authFrame({ nodeName: 'node-x' })));
    await waitFor(() => events.some((e) => e.type === 'NODE_CONNECTED' && e.data.nodeId === 'node-x'), { what: 'NODE_CONNECTED' });
    expect(events.find((e) => e.type === 'NODE_CONNECTED')!.data).toEqual({ nodeId: 'node-x', host: '10.1.2.3' });
    // The controller asks; the node answers.
    await waitFor(() => probe.frames.some((f) => f.type === 'HEARTBEAT_REQUEST'), { what: 'HEARTBEAT_REQUEST' });
    probe.socket.send(JSON.stringify({ type: 'HEARTBEAT_RESPONSE', timestamp: Date.now(), cpuUsage: 0.25, memoryUsedMb: 2048, memoryTotalMb: 16000, services: [] }));
    await waitFor(() => events.some((e) => e.type === 'NODE_HEARTBEAT'), { what: 'NODE_HEARTBEAT' });
    expect(events.find((e) => e.type === 'NODE_HEARTBEAT')!.data).toEqual({ nodeId: 'node-x', cpuUsage: '0.25', services: '0' });
    const nodes = await readJson(await c.api('/api/nodes'));
    expect(nodes.total).toBeGreaterThanOrEqual(1);
    expect(nodes.nodes.find((n: { nodeId: string }) => n.nodeId === 'node-x')).toMatchObject({
      host: '10.1.2.3',
      // The dashboard prints "budget ${maxMemory}": svc.toml's form, the MB figure beside it.
      maxMemory: '4G',
      maxMemoryMb: 4096,
      maxServices: 3,
      isConnected: true,
      agentVersion: '9.9.9',
      cpuUsage: 0.25,
      memoryUsedMb: 2048,
      services: [],
      // No bunVersion in its AUTH_REQUEST (an older agent): never its own version passed off as Bun's.
      system: { hostname: 'probe-host', osName: 'linux', osArch: 'x64', cpuModel: 'Test CPU', availableProcessors: 4, systemMemoryTotalMb: 16000, runtimeVersion: 'Bun (version not reported)', runtimeVendor: 'Oven' },
    });
    // The dashboard's names for the runtime, and -1 for the process load an agent does not report.
    const listed = nodes.nodes.find((n: { nodeId: string }) => n.nodeId === 'node-x');
    expect(listed.system).toMatchObject({ processCpuLoad: -1, javaVersion: listed.system.runtimeVersion, javaVendor: 'Oven' });
    const metrics = parseExposition(await (await c.api('/api/metrics')).text());
    expect(metrics.families.get('svc_cluster_nodes')!.samples.find((s) => s.labels.state === 'connected')!.value).toBeGreaterThanOrEqual(1);
    expect(metrics.families.get('svc_node_memory_used_mb')!.samples.find((s) => s.labels.node === 'node-x')!.value).toBe(2048);
    expect(metrics.families.get('svc_node_memory_used_bytes')!.samples.find((s) => s.labels.node === 'node-x')!.value).toBe(2048 * 1048576);
    expect(metrics.families.get('svc_node_services')!.samples.find((s) => s.labels.node === 'node-x')!.value).toBe(0);
    // No more answers: after node_timeout the controller drops it.
    await waitFor(() => probe.closed, { what: 'the silent node disconnected', timeoutMs: 5000 });
    expect(probe.closed!.code).toBe(4002);
    await waitFor(() => events.some((e) => e.type === 'NODE_DISCONNECTED' && e.data.nodeId === 'node-x'), { what: 'NODE_DISCONNECTED' });
  });

  test("a node's runtime is the Bun version its agent reports, not the agent's version", async () => {
    const probe = await connect();
    probe.socket.send(JSON.stringify(authFrame({ nodeName: 'node-bun', agentVersion: '9.9.9', bunVersion: '1.2.3' })));
    await waitFor(() => probe.frames.length > 0, { what: 'auth response' });
    expect(probe.frames[0]).toMatchObject({ accepted: true });
    const nodes = await readJson(await c.api('/api/nodes'));
    const node = nodes.nodes.find((n: { nodeId: string }) => n.nodeId === 'node-bun');
    expect(node.agentVersion).toBe('9.9.9');
    expect(node.system.runtimeVersion).toBe('Bun 1.2.3');
    probe.socket.close();
  });

  test('GET /api/nodes is admin-only', async () => {
    expect((await c.api('/api/nodes', { token: c.service })).status).toBe(403);
    expect((await c.api('/api/nodes', { token: null })).status).toBe(401);
  });
});

describe('a stalled agent', () => {
  test('an agent that stops reading is disconnected once its queue passes the limit', async () => {
    const plain = await startController({ clusterToml: 'enabled = true\nagent_port = 0\ntls_enabled = false\npublic_host = "127.0.0.1"' });
    try {
      const runtime = plain.controller.kernel.cluster!;
      const raw = await RawWebSocket.connect(runtime.bootstrap().wsUrl);
      raw.send(OPCODE.text, Buffer.from(JSON.stringify(authFrame({ nodeName: 'stalled' }))));
      await waitFor(() => runtime.cluster.isConnected('stalled'), { what: 'stalled node connected' });
      raw.stopReading();
      // Large frames until the controller's queue for it overflows (the kernel's socket buffers fill first).
      const env = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`K${i}`, 'x'.repeat(4000)]));
      const starts: Promise<unknown>[] = [];
      const frames = Math.ceil((CLUSTER_MAX_QUEUE * 3) / (15 * 4000));
      for (let i = 0; i < frames && runtime.cluster.isConnected('stalled'); i++) {
        starts.push(
          runtime.cluster
            .launch('stalled', { serviceName: `S-${i}`, groupName: 'S', isStatic: false, software: 'CUSTOM', version: '1.21.1', memory: '1G', jvmArgs: [], jvmOptimize: false, jarName: '', javaPath: '', startCommand: [], templates: [], forwarding: { mode: 'modern', secret: '' }, pullState: false, syncExcludes: [], env })
            .catch((error: Error) => error.message),
        );
      }
      await waitFor(() => !runtime.cluster.isConnected('stalled'), { what: 'the stalled node dropped', timeoutMs: 10_000 });
      expect(plain.logs.some((l) => l.includes('it is stalled, disconnecting it'))).toBe(true);
      // Every start waiting on it fails with a reason instead of hanging.
      const outcomes = await Promise.all(starts);
      expect(outcomes.every((o) => typeof o === 'string' && o.includes('disconnected during the start'))).toBe(true);
      expect((await plain.api('/api/health', { token: null })).status).toBe(200);
    } finally {
      await plain.stop();
    }
  });
});

describe('cluster routes without the cluster', () => {
  test('bootstrap, nodes and migrate answer CLUSTER_NOT_ENABLED', async () => {
    const plain = await startController();
    try {
      for (const [path, method, token] of [['/api/cluster/bootstrap', 'GET', plain.cluster], ['/api/nodes', 'GET', plain.master], ['/api/services/Nope-1/migrate', 'POST', plain.master]] as const) {
        const res = await plain.api(path, { method, token, json: method === 'POST' ? {} : undefined });
        expect(res.status).toBe(404);
        expect((await readJson(res)).error).toBe('CLUSTER_NOT_ENABLED');
      }
    } finally {
      await plain.stop();
    }
  });

  test('a cluster without a token: the bootstrap says CLUSTER_TOKEN_MISSING', async () => {
    const tokenless = await startController({ clusterToml: 'enabled = true\nagent_port = 0', clusterToken: '' });
    try {
      // Only the master token gets this far: a blank cluster token matches nothing.
      const res = await tokenless.api('/api/cluster/bootstrap');
      expect(res.status).toBe(409);
      const body = await readJson(res);
      expect(body.error).toBe('CLUSTER_TOKEN_MISSING');
      expect(body.message).toContain('SVC_CLUSTER_TOKEN');
      expect(tokenless.logs.some((l) => l.includes('[cluster] token is blank'))).toBe(true);
    } finally {
      await tokenless.stop();
    }
  });
});
