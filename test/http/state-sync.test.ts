/**
 * State sync over real HTTP: the state routes (manifest, file, push) as an operator (the master
 * token, as the controller's own local sync calls them; agents use their node secret on the
 * cluster port, see test/cluster/data-path.test.ts), the agent client
 * (pushState / pullState) against them, the service view's sync facts, the metrics, and the
 * refusals (auth, not a syncing service, 409 while a push is in flight, 507 over the quota,
 * hash mismatch, traversal), each leaving the canonical copy as it was.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pullState, pushState, StateSyncError } from '../../src/cluster/state-sync/client';
import { listFiles } from '../../src/cluster/state-sync/manifest';
import { excludeMatcher } from '../../src/core/templates/deploy-excludes';
import { newRecord } from '../../src/core/services/registry';
import type { SvcEvent } from '../../src/events/catalogue';
import { parseExposition } from '../core/metrics/exposition';
import { expectErrorBody, readJson, startController, tempDir, waitFor, type TestController } from '../support/controller';

let c: TestController;
const events: SvcEvent[] = [];
const scratch = tempDir('svc-state-sync-');

const SERVICE = 'Survival-1';
const EXCLUDES = ['logs', '*.tmp'];

beforeAll(async () => {
  c = await startController();
  c.controller.kernel.bus.subscribe((event) => {
    if (event.type.startsWith('SYNC_')) events.push(event);
  });
  const base = { software: 'PAPER', version: '1.21.1', minInstances: 0, maxInstances: 4 };
  for (const json of [
    { ...base, name: 'Survival', type: 'STATIC', syncEnabled: true, syncExcludes: EXCLUDES },
    { ...base, name: 'Plain', type: 'STATIC' },
    { ...base, name: 'Lobby', type: 'DYNAMIC', syncEnabled: true },
    { ...base, name: 'Quota', type: 'STATIC', syncEnabled: true },
    { ...base, name: 'Busy', type: 'STATIC', syncEnabled: true },
  ]) {
    const res = await c.api('/api/groups', { method: 'POST', json });
    expect(res.status).toBe(201);
  }
});
afterAll(async () => {
  await c.stop();
  scratch.remove();
});

const stateRoot = () => join(c.dir, 'services', 'state');
const canonical = (service: string) => join(stateRoot(), service);
const cluster = (path: string, init: RequestInit & { token?: string | null } = {}) => c.api(path, { token: c.master, ...init });
const connection = (dir: string, service = SERVICE) => ({ baseUrl: c.url, token: c.master, service, dir, excludes: EXCLUDES });
const ofType = (type: string, service: string) => events.filter((e) => e.type === type && e.data.service === service);

/** Every regular file under `dir` (excludes applied) with its bytes. */
async function snapshot(dir: string, excludes: readonly string[] = EXCLUDES): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of await listFiles(dir, excludeMatcher(excludes))) out[rel] = readFileSync(join(dir, rel)).toString('base64');
  return out;
}

function writeTree(dir: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
}

const sha256 = (data: string | Uint8Array) => new Bun.CryptoHasher('sha256').update(data).digest('hex');
const encoder = new TextEncoder();

/** A multipart body by hand (to send what the client never would). */
function multipart(parts: { name: string; body: string | Uint8Array }[], boundary = 'svc-test-boundary'): { body: Uint8Array; contentType: string } {
  const chunks: Uint8Array[] = [];
  for (const p of parts) {
    chunks.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="x"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    chunks.push(typeof p.body === 'string' ? encoder.encode(p.body) : p.body);
    chunks.push(encoder.encode('\r\n'));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return { body: new Uint8Array(Buffer.concat(chunks)), contentType: `multipart/form-data; boundary=${boundary}` };
}

const manifestOf = (files: Record<string, string>) => JSON.stringify({ files: Object.fromEntries(Object.entries(files).map(([rel, text]) => [rel, { sha256: sha256(text), size: encoder.encode(text).length }])) });

function pushRaw(service: string, parts: { name: string; body: string | Uint8Array }[]) {
  const { body, contentType } = multipart(parts);
  return cluster(`/api/services/${service}/state/sync`, { method: 'POST', body, headers: { 'content-type': contentType } });
}

describe('manifest and auth', () => {
  test('a service without a push yet has an empty manifest', async () => {
    const res = await cluster(`/api/services/${SERVICE}/state/manifest`);
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ files: {} });
  });

  test('no token 401, a wrong token 401, the derived service token 403, the cluster token 403 (it only enrols)', async () => {
    const path = `/api/services/${SERVICE}/state/manifest`;
    const none = await c.api(path, { token: null });
    expect(none.status).toBe(401);
    expect((await expectErrorBody(none)).error).toBe('UNAUTHORIZED');
    const wrong = await c.api(path, { token: 'not-the-cluster-token' });
    expect(wrong.status).toBe(401);
    expect((await expectErrorBody(wrong)).error).toBe('AUTH_FAILED');
    const service = await c.api(path, { token: c.service });
    expect(service.status).toBe(403);
    expect((await expectErrorBody(service)).error).toBe('FORBIDDEN');
    const wrongQuery = await c.api(`${path}?token=nope`, { token: null });
    expect(wrongQuery.status).toBe(401);
    for (const res of [await c.api(path, { token: c.cluster }), await c.api(`${path}?token=${encodeURIComponent(c.cluster)}`, { token: null })]) {
      expect(res.status).toBe(403);
      expect((await expectErrorBody(res)).message).toContain('the cluster token only enrols a node');
    }
  });

  test('the master token works in the header and in the legacy ?token=', async () => {
    const path = `/api/services/${SERVICE}/state/manifest`;
    expect((await c.api(path, { token: c.master })).status).toBe(200);
    expect((await c.api(`${path}?token=${encodeURIComponent(c.master)}`, { token: null })).status).toBe(200);
    const file = await c.api(`/api/services/${SERVICE}/state/file/nothing.txt?token=${encodeURIComponent(c.master)}`, { token: null });
    expect(file.status).toBe(404);
    const push = await c.api(`/api/services/${SERVICE}/state/sync?token=${encodeURIComponent(c.master)}`, { token: null, method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(push.status).toBe(400);
    expect((await expectErrorBody(push)).message).toContain('multipart/form-data');
  });

  test.each([
    ['Lobby-1', 'DYNAMIC'],
    ['Plain-1', 'sync.enabled = false'],
    ['Nope-1', 'no group Nope'],
  ])('%s is SERVICE_NOT_FOUND saying why (%s), on every route', async (service, fragment) => {
    for (const [path, method] of [
      [`/api/services/${service}/state/manifest`, 'GET'],
      [`/api/services/${service}/state/file/a.txt`, 'GET'],
      [`/api/services/${service}/state/sync`, 'POST'],
    ] as const) {
      const res = await cluster(path, method === 'POST' ? { method, ...multipart([{ name: 'manifest', body: '{"files":{}}' }]), headers: { 'content-type': multipart([]).contentType } } : { method });
      expect(res.status).toBe(404);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('SERVICE_NOT_FOUND');
      expect(body.message).toContain(fragment);
    }
    expect(existsSync(canonical(service))).toBe(false);
  });

  test('a name that is not <Group>-<N> is a validation failure', async () => {
    const res = await cluster('/api/services/Survival/state/manifest');
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).error).toBe('VALIDATION_FAILED');
  });
});

describe('push and pull with the client', () => {
  const source = join(scratch.dir, 'source');
  const copy = join(scratch.dir, 'copy');
  const binary = new Uint8Array(300_000).map((_, i) => (i * 7919) % 251);
  const initial: Record<string, string | Uint8Array> = {
    'server.properties': 'server-port=30000\nmotd=hello\n',
    'world/level.dat': binary,
    'world/region/r.0.0.mca': binary.slice(0, 70_000),
    'plugins/Essentials/config.yml': 'spawn: true\n',
    'plugins/Essentials/userdata/ünïcødé "quoted" name.yml': 'x: 1\n',
    'empty.txt': '',
    'logs/latest.log': 'excluded\n',
    'world/session.tmp': 'excluded too\n',
  };

  test('first push uploads every file but the excluded ones; SYNC_COMPLETED', async () => {
    writeTree(source, initial);
    const result = await pushState(connection(source));
    expect(result).toMatchObject({ success: true, filesReceived: 6, filesInManifest: 6, requests: 1, skipped: [] });
    const synced = Object.entries(initial).filter(([rel]) => !rel.startsWith('logs/') && !rel.endsWith('.tmp'));
    expect(result.bytesReceived).toBe(synced.reduce((total, [, content]) => total + (typeof content === 'string' ? encoder.encode(content).length : content.length), 0));
    expect(result.uploaded).not.toContain('logs/latest.log');
    expect(await snapshot(canonical(SERVICE))).toEqual(await snapshot(source));
    expect(existsSync(join(canonical(SERVICE), 'logs'))).toBe(false);
    const completed = ofType('SYNC_COMPLETED', SERVICE);
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data).toMatchObject({ service: SERVICE, filesInManifest: '6', filesReceived: '6', bytesReceived: String(result.bytesReceived), durationMs: expect.stringMatching(/^\d+$/) });
    expect(readdirSync(stateRoot()).filter((name) => name.includes('.incoming') || name.includes('.old-'))).toEqual([]);
  });

  test('the manifest lists the files sorted with their hashes; a file comes back byte for byte', async () => {
    const manifest = await readJson(await cluster(`/api/services/${SERVICE}/state/manifest`));
    const paths = Object.keys(manifest.files);
    expect(paths).toEqual([...paths].sort());
    expect(paths).toContain('plugins/Essentials/userdata/ünïcødé "quoted" name.yml');
    expect(manifest.files['world/level.dat']).toEqual({ sha256: sha256(binary), size: binary.length });
    expect(manifest.files['empty.txt']).toEqual({ sha256: sha256(''), size: 0 });
    const res = await cluster(`/api/services/${SERVICE}/state/file/world/level.dat`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(binary);
    const odd = await cluster(`/api/services/${SERVICE}/state/file/plugins/Essentials/userdata/${encodeURIComponent('ünïcødé "quoted" name.yml')}`);
    expect(await odd.text()).toBe('x: 1\n');
  });

  test('pull into an empty dir gives the same files', async () => {
    const result = await pullState(connection(copy));
    expect(result.downloaded).toHaveLength(6);
    expect(result.deleted).toEqual([]);
    expect(await snapshot(copy, [])).toEqual(await snapshot(source));
  });

  test('a change and a deletion: only the changed file is uploaded, the deleted one disappears', async () => {
    writeFileSync(join(source, 'plugins/Essentials/config.yml'), 'spawn: false\n');
    rmSync(join(source, 'world/region/r.0.0.mca'));
    const before = ofType('SYNC_COMPLETED', SERVICE).length;
    const result = await pushState(connection(source));
    expect(result).toMatchObject({ filesReceived: 1, bytesReceived: 13, filesInManifest: 5, uploaded: ['plugins/Essentials/config.yml'] });
    expect(existsSync(join(canonical(SERVICE), 'world/region/r.0.0.mca'))).toBe(false);
    expect(await snapshot(canonical(SERVICE))).toEqual(await snapshot(source));
    expect(ofType('SYNC_COMPLETED', SERVICE)).toHaveLength(before + 1);

    // Pulling into the earlier copy fetches the one change and deletes the extra (and its emptied folder).
    const pulled = await pullState(connection(copy));
    expect(pulled.downloaded).toEqual(['plugins/Essentials/config.yml']);
    expect(pulled.deleted).toEqual(['world/region/r.0.0.mca']);
    expect(existsSync(join(copy, 'world/region'))).toBe(false);
    expect(await snapshot(copy, [])).toEqual(await snapshot(source));
  });

  test('an unchanged dir uploads nothing', async () => {
    const result = await pushState(connection(source));
    expect(result).toMatchObject({ filesReceived: 0, bytesReceived: 0, filesInManifest: 5, uploaded: [] });
  });

  test('a large change is split over several committed pushes', async () => {
    const dir = join(scratch.dir, 'batched');
    writeTree(dir, { 'a.bin': binary, 'b.bin': binary.slice(1), 'c.bin': binary.slice(2), 'd.txt': 'small' });
    const result = await pushState({ ...connection(dir, 'Survival-7'), maxRequestBytes: binary.length + 10 });
    expect(result.requests).toBe(3);
    expect(result.filesReceived).toBe(4);
    expect(result.filesInManifest).toBe(4);
    expect(await snapshot(canonical('Survival-7'))).toEqual(await snapshot(dir));
  });

  test('pull leaves excluded local files alone and replaces a folder standing where a file belongs', async () => {
    const dir = join(scratch.dir, 'pull-over');
    writeTree(dir, { 'logs/latest.log': 'mine', 'empty.txt/inner': 'folder in the way', 'stale.yml': 'old' });
    const result = await pullState(connection(dir));
    expect(result.deleted.sort()).toEqual(['empty.txt/inner', 'stale.yml']);
    expect(readFileSync(join(dir, 'logs/latest.log'), 'utf8')).toBe('mine');
    expect(await snapshot(dir)).toEqual(await snapshot(source));
  });

  test('the service view carries the sync facts for a syncing group only', async () => {
    for (const [name, group] of [
      [SERVICE, 'Survival'],
      ['Plain-1', 'Plain'],
    ]) {
      const record = newRecord({ name: name!, group: group!, port: 0, workDir: `/nonexistent/${name}`, isStatic: true, isProxy: false, memoryMaxMb: 1024, restartCount: 0 });
      record.state = 'STOPPED';
      c.controller.kernel.services.add(record);
    }
    try {
      const list = await readJson(await c.api('/api/services'));
      const survival = list.services.find((s: { name: string }) => s.name === SERVICE);
      const size = Object.values((await readJson(await cluster(`/api/services/${SERVICE}/state/manifest`))).files as Record<string, { size: number }>).reduce((a, e) => a + e.size, 0);
      expect(survival.sync).toEqual({ lastPushAt: expect.any(String), lastPushBytes: 0, lastPushFiles: 0, canonicalSizeBytes: size });
      expect(Date.now() - Date.parse(survival.sync.lastPushAt)).toBeLessThan(60_000);
      expect(list.services.find((s: { name: string }) => s.name === 'Plain-1').sync).toBeUndefined();
      expect((await readJson(await c.api(`/api/services/${SERVICE}`))).sync).toEqual(survival.sync);
      // The facts survive a restart: they are in a file next to the copies.
      const stats = JSON.parse(readFileSync(join(stateRoot(), '.sync-stats.json'), 'utf8'));
      expect(stats.services[SERVICE]).toEqual({ lastPushAt: survival.sync.lastPushAt, lastPushBytes: 0, lastPushFiles: 0 });
    } finally {
      c.controller.kernel.services.remove(SERVICE);
      c.controller.kernel.services.remove('Plain-1');
    }
  });

  test('the client waits out a 429 on downloads (Retry-After)', async () => {
    let refused = 0;
    const limited = async (input: string | URL | Request, init?: RequestInit) => {
      if (refused < 2 && String(input).includes('/state/file/')) {
        refused++;
        return new Response(JSON.stringify({ success: false, message: 'slow down', error: 'RATE_LIMITED' }), { status: 429, headers: { 'retry-after': '0.01' } });
      }
      return fetch(input, init);
    };
    const dir = join(scratch.dir, 'rate-limited');
    const result = await pullState({ ...connection(dir), fetch: limited });
    expect(refused).toBe(2);
    expect(result.downloaded.length).toBeGreaterThan(0);
    expect(await snapshot(dir)).toEqual(await snapshot(source));
  });

  test('the client explains a refusal', async () => {
    const error = await pushState({ ...connection(source), token: c.service }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateSyncError);
    expect((error as StateSyncError).status).toBe(403);
    expect((error as StateSyncError).message).toContain('service tokens cannot sync state');
    const missing = await pullState(connection(join(scratch.dir, 'x'), 'Plain-1')).catch((e: unknown) => e);
    expect((missing as StateSyncError).message).toContain('sync.enabled = false');
    const away = await pullState({ ...connection(join(scratch.dir, 'x')), baseUrl: 'http://127.0.0.1:1' }).catch((e: unknown) => e);
    expect((away as StateSyncError).message).toContain('could not reach the controller');
  });
});

describe('refusals leave the canonical copy as it was', () => {
  const service = 'Survival-2';
  const good = { 'a.txt': 'alpha', 'dir/b.txt': 'bravo' };

  beforeAll(async () => {
    const res = await pushRaw(service, [
      { name: 'manifest', body: manifestOf(good) },
      { name: 'file:a.txt', body: good['a.txt'] },
      { name: 'file:dir/b.txt', body: good['dir/b.txt'] },
    ]);
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ success: true, filesReceived: 2, bytesReceived: 10, filesInManifest: 2 });
  });

  async function expectRefused(res: Response, status: number, code: string, fragment: string): Promise<void> {
    expect(res.status).toBe(status);
    const body = await expectErrorBody(res);
    expect(body.error).toBe(code);
    expect(body.message).toContain(fragment);
    expect(await snapshot(canonical(service))).toEqual({ 'a.txt': btoa('alpha'), 'dir/b.txt': btoa('bravo') });
    expect(existsSync(`${canonical(service)}.incoming`)).toBe(false);
    expect(ofType('SYNC_FAILED', service).at(-1)!.data.reason).toContain(fragment);
  }

  test('a hash mismatch names the file; SYNC_FAILED', async () => {
    const manifest = manifestOf({ 'a.txt': 'alpha', 'dir/b.txt': 'changed' });
    await expectRefused(await pushRaw(service, [{ name: 'manifest', body: manifest }, { name: 'file:dir/b.txt', body: 'CHANGED' }]), 400, 'VALIDATION_FAILED', 'file dir/b.txt: SHA-256 mismatch');
  });

  test('more bytes than the manifest says', async () => {
    const manifest = manifestOf({ 'a.txt': 'alpha', 'dir/b.txt': 'bravo', 'c.txt': 'c' });
    await expectRefused(await pushRaw(service, [{ name: 'manifest', body: manifest }, { name: 'file:c.txt', body: 'ccc' }]), 400, 'VALIDATION_FAILED', "file c.txt: more bytes than the manifest's size of 1");
  });

  test('a missing part', async () => {
    await expectRefused(await pushRaw(service, [{ name: 'manifest', body: manifestOf({ 'a.txt': 'alpha', 'new.txt': 'n' }) }]), 400, 'VALIDATION_FAILED', 'missing part "file:new.txt"');
  });

  test('a part not in the manifest', async () => {
    await expectRefused(await pushRaw(service, [{ name: 'manifest', body: manifestOf(good) }, { name: 'file:other.txt', body: 'x' }]), 400, 'VALIDATION_FAILED', 'part "file:other.txt" is not in the manifest');
  });

  test.each([
    ['../escape.txt', '".." segment'],
    ['/etc/passwd', 'absolute'],
    ['a\\b', 'backslash'],
    ['a//b', 'segment'],
  ])('a manifest path %j', async (rel, fragment) => {
    await expectRefused(await pushRaw(service, [{ name: 'manifest', body: manifestOf({ [rel]: 'x' }) }, { name: `file:${rel}`, body: 'x' }]), 400, 'VALIDATION_FAILED', fragment);
    expect(existsSync(join(stateRoot(), 'escape.txt'))).toBe(false);
  });

  test('bad manifests', async () => {
    await expectRefused(await pushRaw(service, [{ name: 'manifest', body: '{"files":' }]), 400, 'VALIDATION_FAILED', 'not valid JSON');
    await expectRefused(await pushRaw(service, [{ name: 'manifest', body: '{"files":{"a":{"sha256":"xyz","size":1}}}' }]), 400, 'VALIDATION_FAILED', '"sha256" must be 64');
    await expectRefused(await pushRaw(service, [{ name: 'manifest', body: manifestOf({ a: '1', 'a/b': '2' }) }]), 400, 'VALIDATION_FAILED', 'other entries use it as a folder');
    await expectRefused(await pushRaw(service, [{ name: 'file:a.txt', body: 'alpha' }]), 400, 'VALIDATION_FAILED', 'the first part must be "manifest"');
  });

  test('a truncated body', async () => {
    const { body, contentType } = multipart([{ name: 'manifest', body: manifestOf({ 'a.txt': 'alpha', 'dir/b.txt': 'bravo', 'c.txt': 'cc' }) }, { name: 'file:c.txt', body: 'cc' }]);
    const res = await cluster(`/api/services/${service}/state/sync`, { method: 'POST', body: body.slice(0, body.length - 30), headers: { 'content-type': contentType } });
    await expectRefused(res, 400, 'VALIDATION_FAILED', 'the body ended');
  });

  test('a body that is not multipart', async () => {
    const res = await cluster(`/api/services/${service}/state/sync`, { method: 'POST', body: '{"files":{}}', headers: { 'content-type': 'application/json' } });
    await expectRefused(res, 400, 'VALIDATION_FAILED', 'multipart/form-data');
  });
});

describe('quota', () => {
  test('507 when the copies would outgrow sync_disk_quota_bytes; the copy stays; counted', async () => {
    const kernel = c.controller.kernel;
    const service = 'Quota-1';
    const first = { 'a.txt': 'alpha' };
    expect((await pushRaw(service, [{ name: 'manifest', body: manifestOf(first) }, { name: 'file:a.txt', body: 'alpha' }])).status).toBe(200);
    const quota = kernel.config.cluster.sync_disk_quota_bytes;
    const fits = { 'a.txt': 'alpha+++' };
    // The push being checked counts with its manifest.
    kernel.config.cluster.sync_disk_quota_bytes = kernel.stateSync.totalBytes() + 3 + encoder.encode(manifestOf(fits)).length;
    try {
      // Growing a.txt by 3 bytes fits exactly; one byte more does not.
      expect((await pushRaw(service, [{ name: 'manifest', body: manifestOf(fits) }, { name: 'file:a.txt', body: fits['a.txt'] }])).status).toBe(200);
      const over = { 'a.txt': 'alpha+++', 'b.txt': 'b' };
      const res = await pushRaw(service, [{ name: 'manifest', body: manifestOf(over) }, { name: 'file:b.txt', body: 'b' }]);
      expect(res.status).toBe(507);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('PAYLOAD_TOO_LARGE');
      expect(body.message).toContain('sync_disk_quota_bytes');
      expect(await snapshot(canonical(service))).toEqual({ 'a.txt': btoa('alpha+++') });
      expect(ofType('SYNC_FAILED', service).at(-1)!.data.reason).toContain('sync_disk_quota_bytes');
    } finally {
      kernel.config.cluster.sync_disk_quota_bytes = quota;
    }
    const metrics = parseExposition(await (await c.api('/api/metrics')).text());
    expect(metrics.families.get('svc_state_sync_bytes')!.type).toBe('gauge');
    expect(metrics.value('svc_state_sync_bytes')).toBe(kernel.stateSync.totalBytes());
    expect(metrics.families.get('svc_state_sync_pushes_total')!.type).toBe('counter');
    expect(metrics.value('svc_state_sync_pushes_total', { result: 'quota' })).toBe(1);
    expect(metrics.value('svc_state_sync_pushes_total', { result: 'success' })).toBeGreaterThanOrEqual(3);
    expect(metrics.value('svc_state_sync_pushes_total', { result: 'failed' })).toBeGreaterThanOrEqual(1);
  });
});

describe('one push at a time', () => {
  test('a second push while one is in flight is 409; the first still commits', async () => {
    const service = 'Busy-1';
    const boundary = 'held-open';
    const head = encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="manifest"\r\n\r\n${manifestOf({ 'slow.txt': 'slow but sure' })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file:slow.txt"; filename="slow.txt"\r\n\r\nslow `,
    );
    const tail = encoder.encode(`but sure\r\n--${boundary}--\r\n`);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(head);
        await released;
        controller.enqueue(tail);
        controller.close();
      },
    });
    const first = cluster(`/api/services/${service}/state/sync`, { method: 'POST', body: stream, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    await waitFor(() => c.controller.kernel.stateSync.isPushing(service), { what: 'the first push to be in flight' });

    const second = await pushRaw(service, [{ name: 'manifest', body: manifestOf({}) }]);
    expect(second.status).toBe(409);
    const body = await expectErrorBody(second);
    expect(body.error).toBe('SERVICE_NOT_READY');
    expect(body.message).toContain('already in flight');
    expect(ofType('SYNC_FAILED', service)).toHaveLength(1);

    release();
    const res = await first;
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ success: true, filesReceived: 1, bytesReceived: 13, filesInManifest: 1 });
    expect(readFileSync(join(canonical(service), 'slow.txt'), 'utf8')).toBe('slow but sure');
    expect(c.controller.kernel.stateSync.isPushing(service)).toBe(false);
    expect(ofType('SYNC_COMPLETED', service)).toHaveLength(1);
  });
});

describe('file downloads are confined to the canonical copy', () => {
  const service = 'Survival-3';
  beforeAll(async () => {
    expect((await pushRaw(service, [{ name: 'manifest', body: manifestOf({ 'in.txt': 'inside' }) }, { name: 'file:in.txt', body: 'inside' }])).status).toBe(200);
    writeFileSync(join(c.dir, 'secret.txt'), 'outside');
  });

  test.each([
    ['..%2F..%2F..%2Fsvc.toml', 'PATH_TRAVERSAL'],
    ['..%2Fsecret.txt', 'PATH_TRAVERSAL'],
    ['a%5C..%5Cb', 'PATH_TRAVERSAL'],
    ['%2Fetc%2Fpasswd', 'PATH_TRAVERSAL'],
    ['x%00y', 'PATH_TRAVERSAL'],
    ['%zz', 'VALIDATION_FAILED'],
  ])('%s is refused (%s)', async (path, code) => {
    const res = await cluster(`/api/services/${service}/state/file/${path}`);
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).error).toBe(code);
  });

  test('a link inside the copy that points out of it is refused', async () => {
    symlinkSync(join(c.dir, 'secret.txt'), join(canonical(service), 'link.txt'));
    mkdirSync(join(c.dir, 'outside-dir'), { recursive: true });
    writeFileSync(join(c.dir, 'outside-dir', 'f.txt'), 'outside');
    symlinkSync(join(c.dir, 'outside-dir'), join(canonical(service), 'linked-dir'));
    for (const path of ['link.txt', 'linked-dir/f.txt']) {
      const res = await cluster(`/api/services/${service}/state/file/${path}`);
      expect(res.status).toBe(400);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('PATH_TRAVERSAL');
      expect(body.message).toContain('is a link');
    }
    // Links are not part of the manifest either.
    expect(Object.keys((await readJson(await cluster(`/api/services/${service}/state/manifest`))).files)).toEqual(['in.txt']);
  });

  test('a missing file or a folder is PATH_NOT_FOUND', async () => {
    for (const path of ['nope.txt', 'in.txt/deeper', 'missing/dir/x']) {
      const res = await cluster(`/api/services/${service}/state/file/${path}`);
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).error).toBe('PATH_NOT_FOUND');
    }
    mkdirSync(join(canonical(service), 'folder'));
    expect((await cluster(`/api/services/${service}/state/file/folder`)).status).toBe(404);
    expect(await (await cluster(`/api/services/${service}/state/file/in.txt`)).text()).toBe('inside');
  });
});
