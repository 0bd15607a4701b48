/**
 * Node identities on a real controller's cluster server, with real WebSocket clients: the
 * cluster token enrols an id once, the node logs in with its own secret afterwards, a live
 * session is never replaced, the host comes from enrolment, revocation and forgetting, the
 * reserved id, a RUNNING reply that names another service, agent log text, expiry of failed
 * nodes, and the limit on failed logins per address.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { secretDigest } from '../../../src/cluster/identity/secret';
import { LOGIN_FAILURE_LIMIT } from '../../../src/cluster/identity/login-failures';
import type { SvcEvent } from '../../../src/events/catalogue';
import { CLUSTER_TOKEN, readJson, startController, waitFor, type TestController } from '../../support/controller';

let c: TestController;
let wsUrl: string;
let certPem: string;
const events: SvcEvent[] = [];

beforeAll(async () => {
  c = await startController({
    clusterToml: 'enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"',
    cluster: { heartbeatIntervalMs: 100, nodeTimeoutMs: 600, reconciliationDelayMs: 600, deadNodeExpiryMs: 400 },
  });
  c.controller.kernel.bus.subscribe((e) => events.push(e));
  ({ wsUrl, certPem } = c.controller.kernel.cluster!.bootstrap());
});
afterAll(() => c.stop());

const cluster = () => c.controller.kernel.cluster!.cluster;

function authFrame(nodeName: string, token: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'AUTH_REQUEST',
    protocolVersion: 1,
    token,
    nodeName,
    agentVersion: '0.13.0',
    maxMemory: 4096,
    maxServices: 3,
    currentServices: 0,
    os: 'linux',
    arch: 'x64',
    hostname: `${nodeName}-host`,
    osVersion: '6.1',
    cpuModel: 'Test CPU',
    availableProcessors: 4,
    systemMemoryTotalMb: 16000,
    publicHost: '10.1.2.3',
    runningServices: [],
    ...extra,
  };
}

interface Probe {
  socket: WebSocket;
  frames: Record<string, unknown>[];
  closed: { code: number; reason: string } | null;
  send(frame: unknown): void;
}

async function connect(): Promise<Probe> {
  const socket = new WebSocket(wsUrl, { tls: { ca: certPem } } as unknown as ConstructorParameters<typeof WebSocket>[1]);
  const probe: Probe = { socket, frames: [], closed: null, send: (frame) => socket.send(JSON.stringify(frame)) };
  socket.addEventListener('message', (m) => probe.frames.push(JSON.parse(String(m.data))));
  socket.addEventListener('close', (e) => (probe.closed = { code: e.code, reason: e.reason }));
  await waitFor(() => socket.readyState === WebSocket.OPEN || probe.closed, { what: 'socket open' });
  return probe;
}

/** Logs in and returns the probe with its AUTH_RESPONSE (and, when refused, after the close). */
async function login(nodeName: string, token: string, extra: Record<string, unknown> = {}): Promise<{ probe: Probe; response: Record<string, unknown> }> {
  const probe = await connect();
  probe.send(authFrame(nodeName, token, extra));
  const response = await waitFor(() => probe.frames.find((f) => f.type === 'AUTH_RESPONSE'), { what: `AUTH_RESPONSE for ${nodeName}` });
  if (response.accepted === false) await waitFor(() => probe.closed, { what: 'refused socket closed' });
  return { probe, response };
}

/** Answers the controller's heartbeat requests, as an agent does. */
function heartbeat(probe: Probe): () => void {
  const timer = setInterval(() => {
    if (probe.socket.readyState === WebSocket.OPEN) probe.send({ type: 'HEARTBEAT_RESPONSE', timestamp: Date.now(), cpuUsage: 0, memoryUsedMb: 0, memoryTotalMb: 16000, services: [] });
  }, 50);
  return () => clearInterval(timer);
}

async function closeAndWait(probe: Probe, nodeId: string): Promise<void> {
  probe.socket.close();
  await waitFor(() => !cluster().isConnected(nodeId), { what: `${nodeId} disconnected` });
}

const registryFile = () => join(c.dir, 'data', 'cluster', 'nodes.json');

describe('enrolment', () => {
  test('the cluster token enrols a new id: a secret in AUTH_RESPONSE, only its digest on disk, an audited event', async () => {
    const { probe, response } = await login('node-a', CLUSTER_TOKEN);
    expect(response).toMatchObject({ accepted: true, nodeId: 'node-a' });
    const secret = response.nodeSecret as string;
    expect(secret).toMatch(/^svcn_[A-Za-z0-9_-]{43}$/);
    const file = readFileSync(registryFile(), 'utf8');
    expect(file).not.toContain(secret);
    expect(JSON.parse(file).nodes).toEqual([expect.objectContaining({ nodeId: 'node-a', secretSha256: secretDigest(secret), confirmed: false, host: '10.1.2.3' })]);
    const enrolled = events.find((e) => e.type === 'NODE_ENROLLED' && e.data.nodeId === 'node-a')!;
    expect(enrolled).toMatchObject({ actor: 'api:cluster', data: { nodeId: 'node-a', host: '10.1.2.3', reenrolled: 'false' } });
    const audit = c.controller.kernel.audit.list({ limit: 10, offset: 0, action: 'NODE_ENROLLED' }).entries;
    expect(audit[0]).toMatchObject({ actor: 'api:cluster', target: 'node-a' });
    // The secret opens the cluster routes (a template look-up: authorised, the template is absent).
    const viaSecret = await c.api('/api/templates/nope/hash', { token: secret });
    expect(viaSecret.status).toBe(404);
    expect((await readJson(viaSecret)).error).toBe('TEMPLATE_NOT_FOUND');
    await closeAndWait(probe, 'node-a');

    // Its next login with the secret confirms the enrolment; no new secret is handed out.
    const again = await login('node-a', secret);
    expect(again.response.accepted).toBe(true);
    expect(again.response.nodeSecret).toBeUndefined();
    expect(cluster().identities.get('node-a')!.confirmed).toBe(true);
    await closeAndWait(again.probe, 'node-a');

    // Confirmed: the cluster token no longer logs in under this id, and says how to re-enrol.
    const refused = await login('node-a', CLUSTER_TOKEN);
    expect(refused.response).toMatchObject({ accepted: false, refusal: 'enrolled' });
    expect(String(refused.response.reason)).toContain('nodes revoke node-a');
    expect(refused.probe.closed!.code).toBe(1008);
  });

  test('an agent from before enrolment (it ignores the secret) keeps working: each cluster-token login enrols it again', async () => {
    const first = await login('legacy', CLUSTER_TOKEN);
    const old = first.response.nodeSecret as string;
    await closeAndWait(first.probe, 'legacy');
    const second = await login('legacy', CLUSTER_TOKEN);
    expect(second.response.accepted).toBe(true);
    expect(second.response.nodeSecret).not.toBe(old);
    expect(events.filter((e) => e.type === 'NODE_ENROLLED' && e.data.nodeId === 'legacy').map((e) => e.data.reenrolled)).toEqual(['false', 'true']);
    await closeAndWait(second.probe, 'legacy');
    // The first secret is void.
    const stale = await login('legacy', old);
    expect(stale.response).toMatchObject({ accepted: false, refusal: 'unknown-secret' });
    expect(String(stale.response.reason)).toContain('delete data/node.json');
    expect((await c.api('/api/templates/nope/hash', { token: old })).status).toBe(401);
  });

  test('a live session is never replaced: a newcomer with the same id is refused, with the cluster token or the secret', async () => {
    const first = await login('steady', CLUSTER_TOKEN);
    const secret = first.response.nodeSecret as string;
    const stop = heartbeat(first.probe);
    try {
      const impostor = await login('steady', CLUSTER_TOKEN, { publicHost: '6.6.6.6' });
      expect(impostor.response).toMatchObject({ accepted: false, refusal: 'in-use' });
      const twin = await login('steady', secret);
      expect(twin.response).toMatchObject({ accepted: false, refusal: 'in-use' });
      // The first session is still the node's, and still carries its traffic.
      expect(first.probe.closed).toBeNull();
      const requests = first.probe.frames.filter((f) => f.type === 'HEARTBEAT_REQUEST').length;
      await waitFor(() => first.probe.frames.filter((f) => f.type === 'HEARTBEAT_REQUEST').length > requests, { what: 'more heartbeat requests on the first session' });
      expect(cluster().get('steady')!.host).toBe('10.1.2.3');
    } finally {
      stop();
    }
    // A dead link is dropped by the watchdog (node_timeout); then the node may log in again.
    await waitFor(() => first.probe.closed, { what: 'the silent session dropped', timeoutMs: 5000 });
    expect(first.probe.closed!.code).toBe(4002);
    const back = await login('steady', secret);
    expect(back.response.accepted).toBe(true);
    await closeAndWait(back.probe, 'steady');
  });

  test('the host players reach comes from enrolment: a later login reporting another is logged and ignored', async () => {
    const first = await login('hosted', CLUSTER_TOKEN, { publicHost: '10.9.9.9' });
    const secret = first.response.nodeSecret as string;
    await closeAndWait(first.probe, 'hosted');
    const later = await login('hosted', secret, { publicHost: '6.6.6.6' });
    expect(later.response.accepted).toBe(true);
    expect(cluster().hostOf('hosted')).toBe('10.9.9.9');
    expect(c.logs.some((l) => l.includes('reports public host 6.6.6.6; ignored'))).toBe(true);
    const listed = (await readJson(await c.api('/api/nodes'))).nodes.find((n: { nodeId: string }) => n.nodeId === 'hosted');
    expect(listed).toMatchObject({ host: '10.9.9.9', enrolment: 'confirmed', isConnected: true });
    await closeAndWait(later.probe, 'hosted');
  });

  test('the reserved id `local` is refused (any case); another node\'s secret is refused', async () => {
    for (const name of ['local', 'LOCAL']) {
      const { response } = await login(name, CLUSTER_TOKEN);
      expect(response).toMatchObject({ accepted: false, refusal: 'reserved-id' });
    }
    expect(cluster().get('local')).toBeUndefined();
    expect(cluster().identities.get('local')).toBeUndefined();
    const owner = await login('owner', CLUSTER_TOKEN);
    const secret = owner.response.nodeSecret as string;
    await closeAndWait(owner.probe, 'owner');
    const thief = await login('thief', secret);
    expect(thief.response).toMatchObject({ accepted: false, refusal: 'secret-of-another-node' });
    expect(cluster().identities.get('thief')).toBeUndefined();
  });
});

describe('what a node may claim', () => {
  test('a RUNNING reply counts only when it names the service its START_SERVICE asked for', async () => {
    const { probe } = await login('runner', CLUSTER_TOKEN);
    const stop = heartbeat(probe);
    try {
      const start = cluster().launch('runner', { serviceName: 'Asked-1', groupName: 'Asked', isStatic: false, software: 'CUSTOM', version: '1.21.1', memory: '1G', jvmArgs: [], jvmOptimize: false, jarName: '', javaPath: '', startCommand: [], templates: [], forwarding: { mode: 'modern', secret: '' }, pullState: false, syncExcludes: [], env: {} });
      const request = await waitFor(() => probe.frames.find((f) => f.type === 'START_SERVICE'), { what: 'START_SERVICE' });
      let settled = false;
      void start.then(() => (settled = true), () => (settled = true));
      probe.send({ type: 'SERVICE_STATE_CHANGED', serviceName: 'Other-1', state: 'RUNNING', requestId: request.requestId, pid: 4242, port: 25599, startedAt: Date.now() });
      await waitFor(() => c.logs.some((l) => l.includes('answered the start of Asked-1 with RUNNING for Other-1: refused')), { what: 'the refusal logged' });
      expect(settled).toBe(false);
      probe.send({ type: 'SERVICE_STATE_CHANGED', serviceName: 'Asked-1', state: 'RUNNING', requestId: request.requestId, pid: 4243, port: 25600, startedAt: Date.now() });
      const { handle, port } = await start;
      expect(handle.name).toBe('Asked-1');
      expect(port).toBe(25600);
      handle.end(0);
    } finally {
      stop();
      await closeAndWait(probe, 'runner');
    }
  });

  test('agent log text is cleaned and capped, and a flood is throttled with a count of what was dropped', async () => {
    const { probe } = await login('chatty', CLUSTER_TOKEN);
    probe.send({ type: 'LOG_MESSAGE', level: 'warn', message: 'first\n12:00:00 INFO  [auth] forged\x1b[2J\x1b]0;title\x07' });
    await waitFor(() => c.logs.some((l) => l.includes('agent: first 12:00:00 INFO  [auth] forged')), { what: 'the cleaned line' });
    const line = c.logs.find((l) => l.includes('agent: first'))!;
    expect(line).not.toContain('\x1b');
    expect(line).not.toContain('title');
    for (let i = 0; i < 100; i++) probe.send({ type: 'LOG_MESSAGE', level: 'info', message: `flood ${i}` });
    probe.send({ type: 'HEARTBEAT_RESPONSE', timestamp: Date.now(), cpuUsage: 0, memoryUsedMb: 0, memoryTotalMb: 1, services: [] });
    await waitFor(() => events.some((e) => e.type === 'NODE_HEARTBEAT' && e.data.nodeId === 'chatty'), { what: 'the frames after the flood handled' });
    const logged = c.logs.filter((l) => l.includes('agent: flood')).length;
    expect(logged).toBeGreaterThan(0);
    expect(logged).toBeLessThan(100);
    // SERVICE_STDOUT is the game's console: not this path, not throttled here.
    await closeAndWait(probe, 'chatty');
  });
});

describe('revocation', () => {
  test('revoking: the secret stops at once, the session closes, its services fail; no re-enrolment until forgotten', async () => {
    const first = await login('doomed', CLUSTER_TOKEN);
    const secret = first.response.nodeSecret as string;
    const stop = heartbeat(first.probe);
    const start = cluster().launch('doomed', { serviceName: 'Doomed-1', groupName: 'Doomed', isStatic: false, software: 'CUSTOM', version: '1.21.1', memory: '1G', jvmArgs: [], jvmOptimize: false, jarName: '', javaPath: '', startCommand: [], templates: [], forwarding: { mode: 'modern', secret: '' }, pullState: false, syncExcludes: [], env: {} });
    const request = await waitFor(() => first.probe.frames.find((f) => f.type === 'START_SERVICE'), { what: 'START_SERVICE' });
    first.probe.send({ type: 'SERVICE_STATE_CHANGED', serviceName: 'Doomed-1', state: 'RUNNING', requestId: request.requestId, pid: 5151, port: 25601, startedAt: Date.now() });
    const { handle } = await start;
    let exited = false;
    void handle.exited.then(() => (exited = true));
    expect((await c.api('/api/templates/nope/hash', { token: secret })).status).toBe(404);

    const res = await c.api('/api/nodes/doomed/revoke', { method: 'POST' });
    stop();
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ success: true, message: 'node doomed revoked; 1 service(s) on it are treated as failed', nodeId: 'doomed' });
    // Asked to stop what it ran, then closed.
    await waitFor(() => first.probe.closed, { what: 'the revoked session closed' });
    expect(first.probe.closed!.code).toBe(4004);
    expect(first.probe.frames.some((f) => f.type === 'STOP_SERVICE' && f.serviceName === 'Doomed-1')).toBe(true);
    await waitFor(() => exited, { what: 'the service failed' });
    expect(handle.isAlive()).toBe(false);
    expect((await c.api('/api/templates/nope/hash', { token: secret })).status).toBe(401);
    expect(events.find((e) => e.type === 'NODE_REVOKED' && e.data.nodeId === 'doomed')).toMatchObject({ actor: 'api:admin', data: { services: '1' } });
    expect(c.controller.kernel.audit.list({ limit: 5, offset: 0, action: 'NODE_REVOKED' }).entries[0]).toMatchObject({ actor: 'api:admin', target: 'doomed' });

    for (const token of [secret, CLUSTER_TOKEN]) {
      const { response } = await login('doomed', token);
      expect(response).toMatchObject({ accepted: false, refusal: 'revoked' });
      expect(String(response.reason)).toContain('nodes forget doomed');
    }
    const listed = (await readJson(await c.api('/api/nodes'))).nodes.find((n: { nodeId: string }) => n.nodeId === 'doomed');
    expect(listed).toMatchObject({ enrolment: 'revoked', isConnected: false, host: '10.1.2.3' });
    expect(listed.revokedAt).toEqual(expect.any(String));
    expect((await readJson(await c.api('/api/nodes/doomed/revoke', { method: 'POST' }))).message).toBe('node doomed was revoked already');

    // Forgotten, the id enrols afresh.
    const forgot = await c.api('/api/nodes/doomed', { method: 'DELETE' });
    expect(forgot.status).toBe(200);
    expect(events.some((e) => e.type === 'NODE_FORGOTTEN' && e.data.nodeId === 'doomed')).toBe(true);
    const fresh = await login('doomed', CLUSTER_TOKEN);
    expect(fresh.response.accepted).toBe(true);
    expect(fresh.response.nodeSecret).not.toBe(secret);
    await closeAndWait(fresh.probe, 'doomed');
  });
});

describe('failed nodes', () => {
  test('a failed node\'s entry expires; the enrolled node stays listed as offline', async () => {
    const { probe } = await login('fading', CLUSTER_TOKEN);
    await closeAndWait(probe, 'fading');
    // node_timeout (600 ms) fails it, deadNodeExpiryMs (400 ms) later its entry goes.
    await waitFor(() => cluster().get('fading') === undefined, { what: 'the entry expired', timeoutMs: 5000 });
    expect(c.logs.some((l) => l.includes('node fading failed') && l.includes('entry expired'))).toBe(true);
    const listed = (await readJson(await c.api('/api/nodes'))).nodes.find((n: { nodeId: string }) => n.nodeId === 'fading');
    expect(listed).toMatchObject({ nodeId: 'fading', isConnected: false, enrolment: 'unconfirmed', host: '10.1.2.3', services: [], lastHeartbeat: '', maxMemory: '0M' });
    expect(listed.lastSeen).toEqual(expect.any(String));
  });
});

describe('failed logins per address', () => {
  test(`after ${LOGIN_FAILURE_LIMIT} failures an address is turned away unheard, even with the right token`, async () => {
    const limited = await startController({ clusterToml: 'enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"' });
    try {
      const boot = limited.controller.kernel.cluster!.bootstrap();
      const attempt = async (token: string) => {
        const socket = new WebSocket(boot.wsUrl, { tls: { ca: boot.certPem } } as unknown as ConstructorParameters<typeof WebSocket>[1]);
        const frames: Record<string, unknown>[] = [];
        let closed: { code: number; reason: string } | null = null;
        socket.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data))));
        socket.addEventListener('close', (e) => (closed = { code: e.code, reason: e.reason }));
        socket.addEventListener('open', () => socket.send(JSON.stringify(authFrame('probe', token))));
        await waitFor(() => closed ?? frames.find((f) => f.type === 'AUTH_RESPONSE' && f.accepted === true), { what: 'an answer' });
        return { frames, closed: closed as { code: number; reason: string } | null, socket };
      };
      for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) {
        const { frames } = await attempt('wrong-token');
        expect(frames[0]).toMatchObject({ accepted: false, refusal: 'invalid-token' });
      }
      const blocked = await attempt(CLUSTER_TOKEN);
      expect(blocked.closed!.code).toBe(1008);
      expect(blocked.closed!.reason).toMatch(/^too many failed cluster logins from this address: try again in \d+ s$/);
      expect(blocked.frames.some((f) => f.accepted === true)).toBe(false);
      expect(limited.controller.kernel.cluster!.cluster.identities.get('probe')).toBeUndefined();
    } finally {
      await limited.stop();
    }
  });
});
