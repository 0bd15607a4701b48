/**
 * The pack routes through a real controller: the list and one pack in the shape the dashboard
 * reads (P), registering a URL pack and what is refused, uploading a zip the controller hosts
 * (and what is refused: not a zip, over `max_upload_bytes`, bad query), deleting a pack with its
 * assignments and file. Who registered or deleted a pack comes from the credential, in the
 * record, the events and the audit log. A refusal stores nothing: no row, no file, no event.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcEvent } from '../../../src/events/catalogue';
import { BUILTIN_MODULES } from '../../../src/modules/builtin';
import type { PackView } from '../../../src/modules/resourcepacks/model';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';
import { loginAs, testPlayer } from '../../support/dashboard-login';
import { buildZip, packMcmeta, sha1Hex } from './zip-fixture';

/** A small upload limit, so "over the limit" is a 2 KiB body. */
const LIMIT = 1024;
const TOML = `[resourcepacks]\nmax_upload_bytes = ${LIMIT}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const P_KEYS = ['fileSize', 'force', 'id', 'name', 'packUuid', 'promptMessage', 'sha1Hash', 'source', 'uploadedAt', 'uploadedBy', 'url'];

let c: TestController;
const events: SvcEvent[] = [];
/** A dashboard session allowed to manage packs, and the name its actor carries. */
const manager = testPlayer(41, 'PackManager');
let managerSession: string;

beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES, toml: TOML });
  c.controller.kernel.bus.subscribe((e) => events.push(e));
  managerSession = await loginAs(c, manager, ['svc.dashboard.resourcepacks.view', 'svc.dashboard.resourcepacks.manage']);
});
afterAll(() => c.stop());

const packsDir = () => join(c.dir, 'data', 'resourcepacks');
const filesOnDisk = () => readdirSync(packsDir()).sort();
const eventsOf = (type: SvcEvent['type'], since = 0) => events.slice(since).filter((e) => e.type === type);

let n = 0;
/** A fresh, valid URL pack body: a unique name, URL and hash per call. */
function urlPack(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  n += 1;
  return { name: `Pack ${n}`, url: `https://cdn.example.com/packs/${n}.zip`, sha1Hash: sha1Hex(new TextEncoder().encode(`pack ${n}`)), ...overrides };
}

async function created(json: Record<string, unknown>, token?: string): Promise<PackView> {
  const res = await c.api('/api/resourcepacks', { method: 'POST', json, token });
  const body = await readJson(res);
  expect({ status: res.status, body }).toEqual({ status: 201, body: expect.objectContaining({ id: expect.any(Number) }) });
  return body as PackView;
}

async function refusal(res: Response, status: number, error?: string): Promise<string> {
  const body = await expectErrorBody(res);
  expect({ status: res.status, error: error === undefined ? status : body.error }).toEqual({ status, error: error ?? status });
  return body.message;
}

const upload = (query: string, body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>, token?: string) =>
  c.api(`/api/resourcepacks/upload${query === '' ? '' : `?${query}`}`, { method: 'POST', body, token, headers: { 'content-type': 'application/octet-stream' } });

async function uploaded(query: string, zip: Uint8Array<ArrayBuffer>, token?: string): Promise<PackView> {
  const res = await upload(query, zip, token);
  const body = await readJson(res);
  expect({ status: res.status, body }).toEqual({ status: 201, body: expect.objectContaining({ source: 'LOCAL' }) });
  return body as PackView;
}

async function listed(): Promise<{ packs: PackView[]; total: number }> {
  const res = await c.api('/api/resourcepacks');
  expect(res.status).toBe(200);
  return (await readJson(res)) as { packs: PackView[]; total: number };
}

interface AuditEntry {
  timestamp: string;
  actor: string;
  action: string;
  target: string;
  details: string;
}

async function auditOf(action: string): Promise<AuditEntry[]> {
  const res = await c.api(`/api/audit?action=${action}&limit=500`);
  expect(res.status).toBe(200);
  return ((await readJson(res)) as { entries: AuditEntry[] }).entries;
}

/** Runs `act` and asserts it left no pack row, no file and no RESOURCE_PACK_CREATED behind. */
async function storesNothing(act: () => Promise<void>): Promise<void> {
  const before = { total: (await listed()).total, files: filesOnDisk() };
  const since = events.length;
  await act();
  expect({ total: (await listed()).total, files: filesOnDisk(), created: eventsOf('RESOURCE_PACK_CREATED', since) }).toEqual({ ...before, created: [] });
}

describe('POST /api/resourcepacks registers a URL pack', () => {
  test('201 with every field of P: the hash lower-cased, prompt and force defaulted, the caller as uploader', async () => {
    const sha1 = 'ABCDEF0123456789ABCDEF0123456789ABCDEF01';
    const before = Date.now();
    const pack = await created({ name: 'Lobby Pack', url: 'https://cdn.example.com/lobby.zip', sha1Hash: sha1 });
    expect(Object.keys(pack).sort()).toEqual(P_KEYS);
    expect(pack).toEqual({
      id: expect.any(Number),
      packUuid: expect.stringMatching(UUID),
      name: 'Lobby Pack',
      source: 'URL',
      url: 'https://cdn.example.com/lobby.zip',
      sha1Hash: sha1.toLowerCase(),
      promptMessage: '',
      force: false,
      fileSize: 0,
      uploadedAt: expect.any(String),
      uploadedBy: 'api:admin',
    });
    const at = Date.parse(pack.uploadedAt);
    expect(new Date(at).toISOString()).toBe(pack.uploadedAt);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    const one = await c.api(`/api/resourcepacks/${pack.id}`);
    expect({ status: one.status, body: await readJson(one) }).toEqual({ status: 200, body: pack });
  });

  test('promptMessage and force are kept as given', async () => {
    const pack = await created(urlPack({ promptMessage: 'Our textures, please', force: true }));
    expect({ promptMessage: pack.promptMessage, force: pack.force }).toEqual({ promptMessage: 'Our textures, please', force: true });
  });

  test('a name of exactly 64 characters is accepted; surrounding blanks are trimmed', async () => {
    expect((await created(urlPack({ name: 'n'.repeat(64) }))).name).toBe('n'.repeat(64));
    expect((await created(urlPack({ name: '  Spaced  ' }))).name).toBe('Spaced');
  });

  test('the uploader, the CREATED event and its audit entry name the caller: service token and dashboard session', async () => {
    const since = events.length;
    const byService = await created(urlPack(), c.service);
    const bySession = await created(urlPack(), managerSession);
    expect(byService.uploadedBy).toBe('api:service');
    expect(bySession.uploadedBy).toBe(`dashboard:${manager.name}`);
    expect(eventsOf('RESOURCE_PACK_CREATED', since).map((e) => ({ actor: e.actor, data: e.data }))).toEqual([
      { actor: 'api:service', data: { id: String(byService.id), name: byService.name, source: 'URL', moduleId: 'resourcepacks' } },
      { actor: `dashboard:${manager.name}`, data: { id: String(bySession.id), name: bySession.name, source: 'URL', moduleId: 'resourcepacks' } },
    ]);
    const audit = await auditOf('RESOURCE_PACK_CREATED');
    for (const [pack, actor] of [
      [byService, 'api:service'],
      [bySession, `dashboard:${manager.name}`],
    ] as const) {
      expect(audit.filter((entry) => entry.details.split(', ').includes(`id=${pack.id}`))).toEqual([{ actor, action: 'RESOURCE_PACK_CREATED', target: pack.name, details: expect.stringContaining('source=URL'), timestamp: expect.any(String) }]);
    }
  });

  const refusals: [string, string, Record<string, unknown>][] = [
    ['a blank name', 'VALIDATION_FAILED', { name: '   ' }],
    ['an empty name', 'VALIDATION_FAILED', { name: '' }],
    ['a name of 65 characters', 'VALIDATION_FAILED', { name: 'n'.repeat(65) }],
    ['a name over two lines', 'VALIDATION_FAILED', { name: 'one\ntwo' }],
    ['a hash of 39 hex characters', 'VALIDATION_FAILED', { sha1Hash: 'a'.repeat(39) }],
    ['a hash of 41 hex characters', 'VALIDATION_FAILED', { sha1Hash: 'a'.repeat(41) }],
    ['a hash with a non-hex character', 'VALIDATION_FAILED', { sha1Hash: `${'a'.repeat(39)}g` }],
    ['no hash', 'VALIDATION_FAILED', { sha1Hash: undefined }],
    ['a relative url', 'RESOURCE_PACK_INVALID_URL', { url: '/packs/lobby.zip' }],
    ['a url with a newline', 'RESOURCE_PACK_INVALID_URL', { url: 'https://cdn.example.com/a\nb.zip' }],
    ['a url with a tab', 'RESOURCE_PACK_INVALID_URL', { url: 'https://cdn.example.com/a\tb.zip' }],
    ['an ftp: url', 'RESOURCE_PACK_INVALID_URL', { url: 'ftp://files.example.com/lobby.zip' }],
    ['a javascript: url', 'RESOURCE_PACK_INVALID_URL', { url: 'javascript:alert(1)' }],
    ['a file: url', 'RESOURCE_PACK_INVALID_URL', { url: 'file:///etc/passwd' }],
    ['a url without a host', 'RESOURCE_PACK_INVALID_URL', { url: 'http://' }],
    ['a url of a scheme only', 'RESOURCE_PACK_INVALID_URL', { url: 'https:' }],
    ['an unknown key', 'VALIDATION_FAILED', { colour: 'red' }],
    ['force as a string', 'VALIDATION_FAILED', { force: 'yes' }],
  ];
  test.each(refusals)('%s → 400 %s, nothing stored', async (_what, error, overrides) => {
    await storesNothing(async () => {
      const body = JSON.parse(JSON.stringify(urlPack(overrides))) as Record<string, unknown>;
      await refusal(await c.api('/api/resourcepacks', { method: 'POST', json: body }), 400, error);
    });
  });

  test('a session with only the view node may not register a pack', async () => {
    const viewer = await loginAs(c, testPlayer(42, 'PackViewer'), ['svc.dashboard.resourcepacks.view']);
    await storesNothing(async () => {
      const message = await refusal(await c.api('/api/resourcepacks', { method: 'POST', json: urlPack(), token: viewer }), 403);
      expect(message).toContain('svc.dashboard.resourcepacks.manage');
    });
  });
});

describe('GET /api/resourcepacks and /api/resourcepacks/{id}', () => {
  test('{packs, total}: newest first, every pack in the P shape, total the count', async () => {
    const a = await created(urlPack());
    const b = await created(urlPack());
    const d = await created(urlPack());
    const { packs, total } = await listed();
    expect(total).toBe(packs.length);
    const ours = packs.filter((p) => [a.id, b.id, d.id].includes(p.id));
    expect(ours).toEqual([d, b, a]);
    for (const p of packs) expect(Object.keys(p).sort()).toEqual(P_KEYS);
    // The whole list is ordered: later upload first, and the later id first within one millisecond.
    const order = packs.map((p) => [Date.parse(p.uploadedAt), p.id] as const);
    const sorted = [...order].sort((x, y) => y[0] - x[0] || y[1] - x[1]);
    expect(order).toEqual(sorted);
  });

  test('one pack by id; an unknown id is 404 RESOURCE_PACK_NOT_FOUND; a non-number or 0 is 400', async () => {
    const pack = await created(urlPack());
    const one = await c.api(`/api/resourcepacks/${pack.id}`, { token: c.service });
    expect({ status: one.status, body: await readJson(one) }).toEqual({ status: 200, body: pack });
    await refusal(await c.api('/api/resourcepacks/999999'), 404, 'RESOURCE_PACK_NOT_FOUND');
    await refusal(await c.api('/api/resourcepacks/abc'), 400, 'VALIDATION_FAILED');
    await refusal(await c.api('/api/resourcepacks/0'), 400, 'VALIDATION_FAILED');
  });

  test('without a token the list is 401', async () => {
    await refusal(await c.api('/api/resourcepacks', { token: null }), 401);
  });
});

describe('POST /api/resourcepacks/upload hosts a zip', () => {
  test('201 LOCAL pack: its url under /files, size and SHA-1 of the bytes, the file stored byte for byte', async () => {
    const zip = buildZip([
      { name: 'pack.mcmeta', content: packMcmeta('uploaded') },
      { name: 'assets/minecraft/lang/en_us.json', content: '{"menu.singleplayer":"Solo"}' },
    ]);
    const since = events.length;
    const pack = await uploaded(`name=${encodeURIComponent('Hosted Pack')}&force=true&prompt=${encodeURIComponent('Please accept')}`, zip);
    expect(Object.keys(pack).sort()).toEqual(P_KEYS);
    expect(pack).toEqual({
      id: expect.any(Number),
      packUuid: expect.stringMatching(UUID),
      name: 'Hosted Pack',
      source: 'LOCAL',
      url: `/api/resourcepacks/files/${pack.packUuid}.zip`,
      sha1Hash: new Bun.CryptoHasher('sha1').update(zip).digest('hex'),
      promptMessage: 'Please accept',
      force: true,
      fileSize: zip.length,
      uploadedAt: expect.any(String),
      uploadedBy: 'api:admin',
    });
    const file = join(packsDir(), `${pack.packUuid}.zip`);
    expect(new Uint8Array(readFileSync(file))).toEqual(zip);
    expect(filesOnDisk().filter((f) => f.endsWith('.part'))).toEqual([]);
    expect(eventsOf('RESOURCE_PACK_CREATED', since).map((e) => ({ actor: e.actor, data: e.data }))).toEqual([
      { actor: 'api:admin', data: { id: String(pack.id), name: 'Hosted Pack', source: 'LOCAL', moduleId: 'resourcepacks' } },
    ]);
    const audit = await auditOf('RESOURCE_PACK_CREATED');
    expect(audit.filter((entry) => entry.details.split(', ').includes(`id=${pack.id}`))).toEqual([
      { actor: 'api:admin', action: 'RESOURCE_PACK_CREATED', target: 'Hosted Pack', details: expect.stringContaining('source=LOCAL'), timestamp: expect.any(String) },
    ]);
    const one = await c.api(`/api/resourcepacks/${pack.id}`);
    expect(await readJson(one)).toEqual(pack);
  });

  test('force and prompt default to false and empty; a service token is the uploader api:service', async () => {
    const pack = await uploaded('name=Plain', buildZip(), c.service);
    expect({ force: pack.force, promptMessage: pack.promptMessage, uploadedBy: pack.uploadedBy }).toEqual({ force: false, promptMessage: '', uploadedBy: 'api:service' });
  });

  test('a zip of exactly max_upload_bytes is accepted (the limit is inclusive)', async () => {
    const bare = buildZip();
    const zip = buildZip(undefined, 'c'.repeat(LIMIT - bare.length));
    expect(zip.length).toBe(LIMIT);
    const pack = await uploaded('name=Exact', zip);
    expect(pack.fileSize).toBe(LIMIT);
    expect(existsSync(join(packsDir(), `${pack.packUuid}.zip`))).toBe(true);
  });

  const notZips: [string, Uint8Array<ArrayBuffer>][] = [
    ['plain text', new TextEncoder().encode('this is not a zip at all')],
    ['an empty body', new Uint8Array(0)],
    ['a zip cut off before its central directory', buildZip().subarray(0, 40)],
    ['a zip whose first bytes are not a local header', Uint8Array.from([0x00, ...buildZip()])],
  ];
  test.each(notZips)('%s → 422 RESOURCE_PACK_UPLOAD_FAILED, nothing stored', async (_what, body) => {
    await storesNothing(async () => {
      const message = await refusal(await upload('name=Broken', body), 422, 'RESOURCE_PACK_UPLOAD_FAILED');
      expect(message).toContain('not a zip');
    });
  });

  test('a body over max_upload_bytes → 413 PAYLOAD_TOO_LARGE, nothing stored', async () => {
    const big = buildZip(undefined, 'c'.repeat(LIMIT * 2));
    await storesNothing(async () => {
      await refusal(await upload('name=Huge', big), 413, 'PAYLOAD_TOO_LARGE');
    });
  });

  test('a streamed body (no Content-Length) that grows over the limit → 413 PAYLOAD_TOO_LARGE, nothing stored', async () => {
    const big = buildZip(undefined, 'c'.repeat(LIMIT * 2));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < big.length; at += 256) controller.enqueue(big.slice(at, at + 256));
        controller.close();
      },
    });
    await storesNothing(async () => {
      await refusal(await upload('name=Streamed', stream), 413, 'PAYLOAD_TOO_LARGE');
    });
  });

  const badQueries: [string, string, string][] = [
    ['no name', 'VALIDATION_FAILED', 'force=true'],
    ['an empty name', 'VALIDATION_FAILED', 'name='],
    ['a blank name', 'VALIDATION_FAILED', 'name=%20%20%20'],
    ['a name of 65 characters', 'VALIDATION_FAILED', `name=${'n'.repeat(65)}`],
    ['a name over two lines', 'VALIDATION_FAILED', 'name=one%0Atwo'],
    ['force=maybe', 'VALIDATION_FAILED', 'name=Maybe&force=maybe'],
    ['a prompt of 257 characters', 'VALIDATION_FAILED', `name=Long&prompt=${'p'.repeat(257)}`],
  ];
  test.each(badQueries)('%s → 400 %s, nothing stored', async (_what, error, query) => {
    await storesNothing(async () => {
      await refusal(await upload(query, buildZip()), 400, error);
    });
  });

  test('a session with only the view node may not upload', async () => {
    const viewer = await loginAs(c, testPlayer(43, 'UploadViewer'), ['svc.dashboard.resourcepacks.view']);
    await storesNothing(async () => {
      await refusal(await upload('name=Nope', buildZip(), viewer), 403);
    });
  });
});

describe('DELETE /api/resourcepacks/{id}', () => {
  test('a LOCAL pack: its assignments and file go, UNASSIGNED per assignment, then DELETED; audited with the caller', async () => {
    const pack = await uploaded('name=Doomed', buildZip());
    const file = join(packsDir(), `${pack.packUuid}.zip`);
    const assigned = [];
    for (const json of [{ scope: 'GLOBAL' }, { scope: 'GROUP', target: 'Lobby', priority: 2 }]) {
      const res = await c.api(`/api/resourcepacks/${pack.id}/assignments`, { method: 'POST', json });
      expect(res.status).toBe(201);
      assigned.push((await readJson(res)) as { packId: number; scope: string; target: string });
    }
    expect(existsSync(file)).toBe(true);

    const since = events.length;
    const res = await c.api(`/api/resourcepacks/${pack.id}`, { method: 'DELETE', token: managerSession });
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 200, body: { success: true, message: "Pack 'Doomed' deleted" } });

    await refusal(await c.api(`/api/resourcepacks/${pack.id}`), 404, 'RESOURCE_PACK_NOT_FOUND');
    const left = await c.api(`/api/resourcepacks/assignments?packId=${pack.id}`);
    expect(await readJson(left)).toEqual([]);
    expect(existsSync(file)).toBe(false);
    expect((await listed()).packs.map((p) => p.id)).not.toContain(pack.id);

    const actor = `dashboard:${manager.name}`;
    const fired = events.slice(since).filter((e) => e.type === 'RESOURCE_PACK_UNASSIGNED' || e.type === 'RESOURCE_PACK_DELETED');
    expect(fired.map((e) => ({ type: e.type as string, actor: e.actor as string, data: e.data }))).toEqual([
      ...assigned.map((a) => ({ type: 'RESOURCE_PACK_UNASSIGNED', actor, data: { packId: String(pack.id), scope: a.scope, target: a.target, moduleId: 'resourcepacks' } })),
      { type: 'RESOURCE_PACK_DELETED', actor, data: { id: String(pack.id), name: 'Doomed', moduleId: 'resourcepacks' } },
    ]);
    const audit = await auditOf('RESOURCE_PACK_DELETED');
    expect(audit.filter((entry) => entry.details.split(', ').includes(`id=${pack.id}`))).toEqual([{ actor, action: 'RESOURCE_PACK_DELETED', target: 'Doomed', details: expect.any(String), timestamp: expect.any(String) }]);
  });

  test('a URL pack without assignments: only DELETED; deleting it again is 404', async () => {
    const pack = await created(urlPack());
    const since = events.length;
    const res = await c.api(`/api/resourcepacks/${pack.id}`, { method: 'DELETE', token: c.service });
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 200, body: { success: true, message: `Pack '${pack.name}' deleted` } });
    expect(events.slice(since).filter((e) => e.type.startsWith('RESOURCE_PACK_')).map((e) => [e.type, e.actor])).toEqual([['RESOURCE_PACK_DELETED', 'api:service']]);
    await refusal(await c.api(`/api/resourcepacks/${pack.id}`, { method: 'DELETE' }), 404, 'RESOURCE_PACK_NOT_FOUND');
  });

  test('an unknown id is 404 RESOURCE_PACK_NOT_FOUND and publishes nothing', async () => {
    const since = events.length;
    await refusal(await c.api('/api/resourcepacks/987654', { method: 'DELETE' }), 404, 'RESOURCE_PACK_NOT_FOUND');
    expect(events.slice(since).filter((e) => e.type.startsWith('RESOURCE_PACK_'))).toEqual([]);
  });

  test('a session with only the view node may not delete', async () => {
    const pack = await created(urlPack());
    const viewer = await loginAs(c, testPlayer(44, 'DeleteViewer'), ['svc.dashboard.resourcepacks.view']);
    await refusal(await c.api(`/api/resourcepacks/${pack.id}`, { method: 'DELETE', token: viewer }), 403);
    expect((await c.api(`/api/resourcepacks/${pack.id}`)).status).toBe(200);
  });
});
