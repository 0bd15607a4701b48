/**
 * The data path rides the pinned TLS identity (issue 37, findings 2, 3 and 7): templates and
 * state are served on the cluster server's TLS port (port 0, the controller's own certificate)
 * through the API's dispatch, to a node's own secret and never to the cluster token; a node
 * syncs only the instances it runs or last ran, each push audited under it; the manifest is
 * capped and counted against the quota; a node's concurrent pushes are limited.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { openChannel, type Channel } from '../../src/agent/trust';
import { isAgentDataPath, serveDataPath } from '../../src/cluster/data-path';
import { pushState } from '../../src/cluster/state-sync/client';
import { MAX_MANIFEST_BYTES } from '../../src/cluster/state-sync/manifest';
import { MAX_PUSHES_PER_NODE } from '../../src/cluster/state-sync/store';
import { templateDigest } from '../../src/cluster/template-archive';
import { newRecord } from '../../src/core/services/registry';
import { FakeAgent } from '../support/fake-agent';
import { CLUSTER_TOKEN, expectErrorBody, readJson, startController, tempDir, waitFor, type TestController } from '../support/controller';

let c: TestController;
let channel: Channel;
let secret: string;
let otherSecret: string;
const agents: FakeAgent[] = [];
const scratch = tempDir('svc-data-path-');
const QUOTA = 256 * 1024;

/** Enrols a node id with the cluster token over the channel; its own secret comes back in AUTH_RESPONSE. */
async function enrol(nodeName: string, bootstrap: { wsUrl: string; certPem: string }): Promise<string> {
  const agent = new FakeAgent(bootstrap.wsUrl, bootstrap.certPem, { token: CLUSTER_TOKEN, nodeName });
  agents.push(agent);
  const answer = await agent.authResponse();
  expect(answer).toMatchObject({ accepted: true, nodeId: nodeName });
  return answer.nodeSecret as string;
}

beforeAll(async () => {
  c = await startController({ clusterToml: `enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"\nsync_disk_quota_bytes = ${QUOTA}` });
  const bootstrap = await readJson(await c.api('/api/cluster/bootstrap', { token: c.cluster }));
  channel = openChannel({ ...bootstrap, pinnedAt: '' }, { fingerprint: bootstrap.fingerprint, allowInsecure: false });
  secret = await enrol('node-d', bootstrap);
  otherSecret = await enrol('node-e', bootstrap);
  const templates = c.controller.kernel.paths.templates;
  mkdirSync(join(templates, 'lobby'), { recursive: true });
  writeFileSync(join(templates, 'lobby', 'server.properties'), 'motd=over the pin\n');
  for (const json of [{ name: 'Keep', type: 'STATIC', software: 'PAPER', version: '1.21.1', minInstances: 0, maxInstances: 20, syncEnabled: true }]) {
    expect((await c.api('/api/groups', { method: 'POST', json })).status).toBe(201);
  }
  // Instances as the registry would hold them: Keep-1..6 on node-d, Keep-9 on node-e, Keep-10 here.
  const place = (name: string, nodeId: string) => {
    const record = newRecord({ name, group: 'Keep', port: 0, workDir: '', isStatic: true, isProxy: false, memoryMaxMb: 1024, restartCount: 0 });
    record.nodeId = nodeId;
    c.controller.kernel.services.add(record);
  };
  for (let i = 1; i <= 6; i++) place(`Keep-${i}`, 'node-d');
  place('Keep-9', 'node-e');
  place('Keep-10', 'local');
});
afterAll(async () => {
  for (const agent of agents) agent.close();
  await c.stop();
  scratch.remove();
});

/** A request on the cluster's TLS port through the pinned channel (the pinned certificate only). */
const tlsApi = (path: string, token: string | null, init: RequestInit = {}) =>
  channel.fetch(`${channel.dataOrigin}${path}`, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string> | undefined) } });
const auditOf = (action: string) => c.controller.kernel.audit.list({ limit: 100, offset: 0, action }).entries;

describe('templates on the cluster TLS port', () => {
  test('a node secret gets the ZIP and its digest; the cluster token, a service token and no token do not', async () => {
    expect(channel.dataOrigin).toBe(`https://127.0.0.1:${c.controller.kernel.cluster!.port}`);
    const res = await tlsApi('/api/templates/lobby/download?software=CUSTOM', secret);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-template-hash')).toBe(await templateDigest(c.controller.kernel.paths.templates, 'lobby', 'CUSTOM'));
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(new TextDecoder().decode(files['server.properties'])).toBe('motd=over the pin\n');
    expect((await tlsApi('/api/templates/lobby/hash?software=CUSTOM', secret)).status).toBe(200);
    const cluster = await tlsApi('/api/templates/lobby/download', c.cluster);
    expect(cluster.status).toBe(403);
    expect((await expectErrorBody(cluster)).message).toContain('the cluster token only enrols a node');
    expect((await tlsApi(`/api/templates/lobby/hash?token=${encodeURIComponent(c.cluster)}`, null)).status).toBe(403);
    expect((await tlsApi('/api/templates/lobby/hash', c.service)).status).toBe(403);
    expect((await tlsApi('/api/templates/lobby/hash', null)).status).toBe(401);
    // The API port gives the cluster token the same answer.
    expect((await c.api('/api/templates/lobby/hash', { token: c.cluster })).status).toBe(403);
  });

  test('names that leave the templates folder, and unknown templates, answer as on the API port', async () => {
    const traversal = await tlsApi('/api/templates/..%2Fetc/hash', secret);
    expect(traversal.status).toBe(400);
    await expectErrorBody(traversal);
    const missing = await tlsApi('/api/templates/nope/download', secret);
    expect(missing.status).toBe(404);
    expect((await readJson(missing)).error).toBe('TEMPLATE_NOT_FOUND');
  });

  test('only the data routes are there: every other path stays a 404, even for the master token', async () => {
    for (const path of ['/api/groups', '/api/cluster/bootstrap', '/api/services', '/api/services/Keep-1/migrate']) {
      const res = await tlsApi(path, c.master);
      expect(res.status).toBe(404);
      await expectErrorBody(res);
    }
    expect(isAgentDataPath('/api/services/Keep-1/state/file/world/level.dat')).toBe(true);
    expect(isAgentDataPath('/api/services/Keep-1/state')).toBe(false);
    const early = await serveDataPath(new Request('https://x/api/templates/a/hash'), undefined, undefined);
    expect(early.status).toBe(503);
    expect((await readJson(early)).error).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('state on the cluster TLS port', () => {
  test('a node pushes and pulls its own instance, audited under its name; the cluster token is refused', async () => {
    const dir = join(scratch.dir, 'keep-1');
    mkdirSync(join(dir, 'world'), { recursive: true });
    writeFileSync(join(dir, 'world', 'level.dat'), 'pushed over the pin');
    const pushed = await pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: secret, service: 'Keep-1', dir });
    expect(pushed.filesReceived).toBe(1);
    const audited = auditOf('SYNC_COMPLETED');
    expect(audited).toContainEqual(expect.objectContaining({ actor: 'api:node:node-d', target: 'Keep-1' }));
    const manifest = await tlsApi('/api/services/Keep-1/state/manifest', secret);
    expect(Object.keys((await readJson(manifest)).files)).toEqual(['world/level.dat']);
    expect(await (await tlsApi('/api/services/Keep-1/state/file/world/level.dat', secret)).text()).toBe('pushed over the pin');
    const byToken = await tlsApi('/api/services/Keep-1/state/manifest', c.cluster);
    expect(byToken.status).toBe(403);
    expect((await expectErrorBody(byToken)).error).toBe('FORBIDDEN');
    await expect(pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: c.cluster, service: 'Keep-1', dir })).rejects.toThrow(/403/);
    // Traversal is refused here as on the API port.
    const escape = await tlsApi('/api/services/Keep-1/state/file/..%2F..%2Fsecret', secret);
    expect(escape.status).toBe(400);
    expect((await readJson(escape)).error).toBe('PATH_TRAVERSAL');
  });

  test("another node's instance, this machine's, and a name that is no instance are refused; the refused pushes are audited", async () => {
    const dir = join(scratch.dir, 'intruder');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'start.sh'), '#!/bin/sh\necho owned\n');
    for (const [service, status, code] of [
      ['Keep-9', 403, 'FORBIDDEN'],
      ['Keep-10', 403, 'FORBIDDEN'],
      ['Keep-17', 404, 'SERVICE_NOT_FOUND'],
    ] as const) {
      // The client stops at the manifest; an intruder posts the push itself.
      const error = await pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: secret, service, dir }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: status, code });
      const posted = await tlsApi(`/api/services/${service}/state/sync`, secret, { method: 'POST', body: '--b--\r\n', headers: { 'content-type': 'multipart/form-data; boundary=b' } });
      expect(posted.status).toBe(status);
      expect((await expectErrorBody(posted)).error).toBe(code);
      const read = await tlsApi(`/api/services/${service}/state/manifest`, secret);
      expect(read.status).toBe(status);
      expect((await expectErrorBody(read)).error).toBe(code);
      expect(auditOf('SYNC_FAILED')).toContainEqual(expect.objectContaining({ actor: 'api:node:node-d', target: service }));
    }
    expect((await readJson(await c.api('/api/services/Keep-9/state/manifest'))).files).toEqual({});
    expect((await readJson(await c.api('/api/services/Keep-10/state/manifest'))).files).toEqual({});
    // The owner pushes its own; operators (the master token) reach every instance.
    writeFileSync(join(dir, 'server.properties'), 'motd=nine');
    await pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: otherSecret, service: 'Keep-9', dir });
    await pushState({ baseUrl: c.url, token: c.master, service: 'Keep-17', dir });
    expect(auditOf('SYNC_COMPLETED')).toContainEqual(expect.objectContaining({ actor: 'api:node:node-e', target: 'Keep-9' }));
  });

  test('the node an instance last ran on keeps it once the registry forgot it; no other node does', async () => {
    const dir = join(scratch.dir, 'keep-2');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a.txt'), 'before');
    await pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: secret, service: 'Keep-2', dir });
    c.controller.kernel.services.remove('Keep-2');
    writeFileSync(join(dir, 'a.txt'), 'after it ended');
    await pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: secret, service: 'Keep-2', dir });
    const refused = await pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: otherSecret, service: 'Keep-2', dir }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403 });
    expect((refused as Error).message).toContain('last ran on node node-d');
  });
});

/** A push body the test holds open: the manifest part, then nothing until `release`. */
function heldPush(service: string, token: string): { response: Promise<Response>; release(): void } {
  const boundary = 'held-push-boundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="manifest"\r\n\r\n{"files":{}}\r\n`;
  let finish!: () => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(head));
      finish = () => {
        controller.enqueue(new TextEncoder().encode(`--${boundary}--\r\n`));
        controller.close();
      };
    },
  });
  const response = tlsApi(`/api/services/${service}/state/sync`, token, { method: 'POST', body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  return { response, release: () => finish() };
}

describe('bounds', () => {
  test(`a node has at most ${MAX_PUSHES_PER_NODE} pushes in flight: the next is 429 with Retry-After, others' are not held up`, async () => {
    const names = Array.from({ length: MAX_PUSHES_PER_NODE }, (_, i) => `Keep-${i + 3}`);
    const held = names.map((name) => heldPush(name, secret));
    const stateSync = c.controller.kernel.stateSync;
    await waitFor(() => names.every((name) => stateSync.isPushing(name)), { what: 'the held pushes in flight' });
    const dir = join(scratch.dir, 'one-more');
    mkdirSync(dir, { recursive: true });
    const extra = await tlsApi('/api/services/Keep-1/state/sync', secret, { method: 'POST', body: '--b--\r\n', headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    expect(extra.status).toBe(429);
    expect(extra.headers.get('retry-after')).toBe('1');
    expect((await expectErrorBody(extra)).message).toContain(`the most one node may have at once (${MAX_PUSHES_PER_NODE})`);
    // Another node is not held up by node-d's pushes.
    await pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: otherSecret, service: 'Keep-9', dir });
    // The client waits its turn: a push started now completes once the held ones end.
    const waiting = pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: secret, service: 'Keep-1', dir });
    const turnedAway = () => auditOf('SYNC_FAILED').filter((e) => e.target === 'Keep-1' && e.details.includes('pushes in flight')).length;
    await waitFor(() => turnedAway() >= 2, { what: 'the waiting push turned away once' });
    for (const h of held) h.release();
    for (const h of held) expect((await h.response).status).toBe(200);
    expect((await waiting).success).toBe(true);
  });

  test('a manifest part past 32 MiB is refused as it arrives (413), before it is parsed', async () => {
    const boundary = 'big-manifest';
    const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="manifest"\r\n\r\n{"files":{"`));
      },
      pull(controller) {
        if (sent > MAX_MANIFEST_BYTES + 4 * chunk.byteLength) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await tlsApi('/api/services/Keep-1/state/sync', secret, { method: 'POST', body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    expect(res.status).toBe(413);
    expect((await expectErrorBody(res)).message).toContain(`larger than ${MAX_MANIFEST_BYTES} bytes`);
  });

  test('the manifest counts against the quota: many empty files still reach it (507)', async () => {
    const dir = join(scratch.dir, 'many-empty');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 3000; i++) writeFileSync(join(dir, `empty-${String(i).padStart(5, '0')}-with-a-long-enough-name.txt`), '');
    const error = await pushState({ baseUrl: channel.dataOrigin, fetch: channel.fetch, token: secret, service: 'Keep-6', dir }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 507 });
    expect((error as Error).message).toContain(`sync_disk_quota_bytes = ${QUOTA}`);
  });
});
