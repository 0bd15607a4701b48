/**
 * The dashboard's modpack dialogs (groups/page.tsx, dedicated/page.tsx, lib/api.ts apiUpload
 * and the chunked upload) against local fakes of Modrinth and CurseForge: every request
 * replayed as the dashboard builds it, and the fields it reads checked with their JSON types.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expectErrorBody, OFFLINE_UPSTREAM, readJson, startController, waitFor, type TestController } from '../support/controller';
import { hex, mrpackOf, zipOf } from '../fixtures/modpack-zip';
import { FakePackHosts } from '../fixtures/upstream/modpacks-hosts';

const KEY = 'test-curseforge-key-dashboard-0123';
const hosts = new FakePackHosts(KEY);
let c: TestController;

const bytesOf = (label: string, size = 5_000) => {
  const out = new Uint8Array(size);
  const seed = new TextEncoder().encode(label);
  for (let i = 0; i < size; i++) out[i] = (seed[i % seed.length]! * 17 + i) & 0xff;
  return out;
};

function indexFile(path: string, name: string, server: 'required' | 'unsupported') {
  const hosted = hosts.hostModrinthFile(name, bytesOf(name));
  return { path, hashes: { sha1: hosted.sha1, sha512: hosted.sha512 }, env: { client: 'required', server }, downloads: [hosted.url], fileSize: hosted.size };
}
const files = [indexFile('mods/server-a.jar', 'server-a.jar', 'required'), indexFile('mods/server-b.jar', 'server-b.jar', 'required'), indexFile('mods/client.jar', 'client.jar', 'unsupported')];
const packOf = (versionId: string) =>
  mrpackOf({ formatVersion: 1, game: 'minecraft', versionId, name: 'Dash Pack', files, dependencies: { minecraft: '1.20.1', 'fabric-loader': '0.15.11' } }, { 'overrides/config/a.toml': 'a' });
const pack = packOf('2.0.0');

hosts.addModrinthProject({
  id: 'DaSh0001',
  slug: 'dash-pack',
  title: 'Dash Pack',
  versions: [
    { id: 'dashv002', versionNumber: '2.0.0', gameVersions: ['1.20.1'], loaders: ['fabric'], published: '2025-02-01T00:00:00Z', mrpack: pack },
    { id: 'dashv001', versionNumber: '1.0.0', gameVersions: ['1.20.1'], loaders: ['fabric'], published: '2025-01-01T00:00:00Z', mrpack: packOf('1.0.0') },
  ],
});
hosts.addModrinthProject({
  id: 'Bad00002',
  slug: 'bad-hash-pack',
  title: 'Bad Hash',
  versions: [{ id: 'badv0001', versionNumber: '1.0', gameVersions: ['1.20.1'], loaders: ['fabric'], published: '2025-01-01T00:00:00Z', mrpack: pack, badHash: true }],
});
hosts.addModrinthProject({ id: 'Empty001', slug: 'empty-pack', title: 'Empty Pack', versions: [] });

// CurseForge: a pack whose manifest lists a server mod, a client-only one and a disabled one.
hosts.addCurseForgeMod({ id: 3001, name: 'Lib', slug: 'lib', classId: 6, files: [{ id: 8001, fileName: 'lib-1.0.jar', bytes: bytesOf('lib'), gameVersions: ['1.20.1', 'Forge', 'Server'] }] });
hosts.addCurseForgeMod({ id: 3002, name: 'Map', slug: 'map', classId: 6, files: [{ id: 8002, fileName: 'map-1.0.jar', bytes: bytesOf('map'), gameVersions: ['1.20.1', 'Forge', 'Client'] }] });
const cfPack = zipOf({
  'manifest.json': JSON.stringify({
    minecraft: { version: '1.20.1', modLoaders: [{ id: 'forge-47.2.0', primary: true }] },
    manifestType: 'minecraftModpack',
    manifestVersion: 1,
    name: 'CF Dash',
    version: '3.1',
    files: [
      { projectID: 3001, fileID: 8001, required: true },
      { projectID: 3002, fileID: 8002, required: true },
      { projectID: 3002, fileID: 8002, required: false },
    ],
    overrides: 'overrides',
  }),
  'overrides/config/forge.toml': 'forge',
});
hosts.addCurseForgeMod({ id: 4001, name: 'CF Dash', slug: 'cf-dash', classId: 4471, files: [{ id: 9001, fileName: 'CF Dash-3.1.zip', bytes: cfPack, gameVersions: ['1.20.1', 'Forge'] }] });

/** What apiFetch sends: JSON content type, the token (added by c.api). */
const apiFetch = (path: string, body?: unknown) =>
  c.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
/** What apiUpload sends: the raw file with application/octet-stream. */
const apiUpload = (path: string, file: Uint8Array) => c.api(path, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: file });

async function expectError(res: Response, status: number, code: string): Promise<string> {
  expect(res.status).toBe(status);
  const body = await expectErrorBody(res);
  expect(body.error).toBe(code);
  return body.message;
}

/** The fields ModpackImportResponse declares, with their JSON types. */
function expectImportAnswer(body: Record<string, unknown>, name: string): void {
  expect(body).toMatchObject({ success: true, groupName: name, filesFailed: 0 });
  expect(typeof body.message).toBe('string');
  expect(Number.isInteger(body.filesDownloaded)).toBe(true);
  expect(Number.isInteger(body.filesFailed)).toBe(true);
}

const workDir = () => join(c.dir, 'data', 'modpacks', 'work');

beforeAll(async () => {
  const offline = ['papermc_url', 'purpur_url', 'fabric_url', 'forge_url', 'forge_promotions_url', 'neoforge_url', 'mojang_url', 'hangar_url'].map((k) => `${k} = "${OFFLINE_UPSTREAM}"`);
  c = await startController({ toml: ['[software]', `modrinth_url = "${hosts.modrinth.url}"`, `curseforge_url = "${hosts.curseforge.url}"`, ...offline, `[packhost]\napi_key = "${KEY}"`].join('\n') });
});
afterAll(async () => {
  await c.stop();
  hosts.close();
});

describe('POST /api/modpacks/resolve {source}', () => {
  test('a Modrinth slug: the ModpackInfo fields, read from the pack itself', async () => {
    const res = await apiFetch('/api/modpacks/resolve', { source: 'dash-pack' });
    expect(res.status).toBe(200);
    const info = await readJson(res);
    expect(info).toMatchObject({
      name: 'Dash Pack',
      version: '2.0.0',
      mcVersion: '1.20.1',
      modloader: 'FABRIC',
      modloaderVersion: '0.15.11',
      totalFiles: 3,
      serverFiles: 2,
      source: 'MODRINTH',
      host: 'modrinth',
      inspected: true,
    });
    for (const key of ['name', 'version', 'mcVersion', 'modloader', 'modloaderVersion', 'source']) expect(typeof info[key]).toBe('string');
    for (const key of ['totalFiles', 'serverFiles']) expect(Number.isInteger(info[key])).toBe(true);
    expect(info.note).toBeUndefined();
    expect(readdirSync(workDir())).toEqual([]);
  });

  test('page URLs, with and without the version, and modrinth:<slug>', async () => {
    const cases: [string, string][] = [
      ['https://modrinth.com/modpack/dash-pack', '2.0.0'],
      ['modrinth.com/modpack/dash-pack/version/dashv001', '1.0.0'],
      ['  modrinth:dash-pack  ', '2.0.0'],
      ['DaSh0001', '2.0.0'],
    ];
    for (const [source, version] of cases) {
      const info = await readJson(await apiFetch('/api/modpacks/resolve', { source }));
      expect({ source, name: info.name, version: info.version }).toEqual({ source, name: 'Dash Pack', version });
    }
  });

  test('CurseForge: curseforge:<slug>, a page URL, a project id, and a bare slug Modrinth does not know', async () => {
    for (const source of ['curseforge:cf-dash', 'https://www.curseforge.com/minecraft/modpacks/cf-dash', '4001', 'cf-dash']) {
      const res = await apiFetch('/api/modpacks/resolve', { source });
      expect({ source, status: res.status }).toEqual({ source, status: 200 });
      expect(await readJson(res)).toMatchObject({
        name: 'CF Dash',
        version: '3.1',
        mcVersion: '1.20.1',
        modloader: 'FORGE',
        modloaderVersion: '47.2.0',
        totalFiles: 3,
        serverFiles: 2,
        source: 'CURSEFORGE_API',
        host: 'curseforge',
        projectId: '4001',
      });
    }
  });

  test('a pack file not read within the budget: the listing answers, counts null, a note says why', async () => {
    const release = hosts.holdDownloads();
    c.controller.kernel.modpacks.tuning.resolveWithinMs = 300;
    try {
      const res = await apiFetch('/api/modpacks/resolve', { source: 'dash-pack' });
      expect(res.status).toBe(200);
      const info = await readJson(res);
      expect(info).toMatchObject({ name: 'Dash Pack', version: 'Dash Pack 2.0.0', mcVersion: '1.20.1', modloader: 'FABRIC', modloaderVersion: '', totalFiles: null, serverFiles: null, source: 'MODRINTH', inspected: false });
      expect(info.note).toContain('not read within');
    } finally {
      c.controller.kernel.modpacks.tuning.resolveWithinMs = 7000;
      release();
    }
    await waitFor(() => readdirSync(workDir()).length === 0, { what: 'the look-up scratch folder to be removed' });
  });

  test('a pack with no version answers from the listing; a bad pack is MODPACK_INVALID; unknown is MODPACK_NOT_FOUND', async () => {
    const empty = await readJson(await apiFetch('/api/modpacks/resolve', { source: 'empty-pack' }));
    expect(empty).toMatchObject({ name: 'Empty Pack', version: '', mcVersion: '', modloader: '', totalFiles: null, inspected: false });
    expect(await expectError(await apiFetch('/api/modpacks/resolve', { source: 'bad-hash-pack' }), 400, 'MODPACK_INVALID')).toContain('mismatch');
    const message = await expectError(await apiFetch('/api/modpacks/resolve', { source: 'nowhere-pack' }), 404, 'MODPACK_NOT_FOUND');
    expect(message).toContain('neither Modrinth nor CurseForge');
    await expectError(await apiFetch('/api/modpacks/resolve', { source: 'curseforge:nowhere-pack' }), 404, 'MODPACK_NOT_FOUND');
  });

  test('validation: 400 VALIDATION_FAILED naming "source"', async () => {
    for (const body of [{ source: 'All the Mods 10' }, { source: '' }, { source: '   ' }, { source: 42 }, { source: 'https://example.com/pack' }, { source: 'a'.repeat(3000) }, { source: 'x?y' }, { source: 'modrinth' }, { id: 'x', source: 'free text' }]) {
      const res = await apiFetch('/api/modpacks/resolve', body);
      const message = await expectError(res, 400, 'VALIDATION_FAILED');
      expect({ body: JSON.stringify(body).slice(0, 60), names: /"(source|url|id)"/.test(message) }).toEqual({ body: JSON.stringify(body).slice(0, 60), names: true });
    }
  });
});

describe('POST /api/modpacks/import {source, groupName, type, memory, minInstances, maxInstances}', () => {
  test('by slug: the group is made; the answer has message, groupName, filesDownloaded, filesFailed', async () => {
    const res = await apiFetch('/api/modpacks/import', { source: 'dash-pack', groupName: 'DashGroup', type: 'STATIC', memory: '4G', minInstances: 0, maxInstances: 1 });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expectImportAnswer(body, 'DashGroup');
    expect(body.filesDownloaded).toBe(2);
    expect(body.group).toMatchObject({ name: 'DashGroup', type: 'STATIC', software: 'FABRIC', memory: '4G', minInstances: 0, maxInstances: 1 });
    expect(existsSync(join(c.dir, 'templates', 'DashGroup', 'mods', 'server-a.jar'))).toBe(true);
  });

  test('by page URL with a version, and curseforge:<slug>', async () => {
    const url = await apiFetch('/api/modpacks/import', { source: 'https://modrinth.com/modpack/dash-pack/version/dashv001', groupName: 'DashOld', type: 'DYNAMIC', memory: '4G', minInstances: 0, maxInstances: 1 });
    expect(url.status).toBe(201);
    expect((await readJson(url)).pack).toMatchObject({ source: 'modrinth', version: '1.0.0' });
    const cf = await apiFetch('/api/modpacks/import', { source: 'curseforge:cf-dash', groupName: 'DashForge', type: 'STATIC', memory: '4G', minInstances: 0, maxInstances: 1 });
    expect(cf.status).toBe(201);
    const body = await readJson(cf);
    expectImportAnswer(body, 'DashForge');
    expect(body.group).toMatchObject({ software: 'FORGE', modloaderVersion: '47.2.0' });
    expect(readdirSync(join(c.dir, 'templates', 'DashForge', 'mods'))).toEqual(['lib-1.0.jar']);
  });

  test('refusals: free text with projectId, an unusable source, unknown pack, a taken name, bad fields', async () => {
    const base = { groupName: 'DashNope', type: 'STATIC', memory: '4G', minInstances: 0, maxInstances: 1 };
    expect(await expectError(await apiFetch('/api/modpacks/import', { ...base, source: 'dash-pack', projectId: 'x' }), 400, 'VALIDATION_FAILED')).toContain('"projectId"');
    expect(await expectError(await apiFetch('/api/modpacks/import', { ...base, source: 'no spaces allowed' }), 400, 'VALIDATION_FAILED')).toContain('"source"');
    expect(await expectError(await apiFetch('/api/modpacks/import', { ...base, source: 'modrinth' }), 400, 'VALIDATION_FAILED')).toContain('"projectId"');
    expect(await expectError(await apiFetch('/api/modpacks/import', { ...base, source: 7 }), 400, 'VALIDATION_FAILED')).toContain('"source"');
    expect(await expectError(await apiFetch('/api/modpacks/import', { ...base, memory: 'lots', source: 'dash-pack' }), 400, 'VALIDATION_FAILED')).toContain('"memory"');
    await expectError(await apiFetch('/api/modpacks/import', { ...base, source: 'nowhere-pack' }), 404, 'MODPACK_NOT_FOUND');
    await expectError(await apiFetch('/api/modpacks/import', { ...base, groupName: 'DashGroup', source: 'dash-pack' }), 409, 'GROUP_ALREADY_EXISTS');
    expect(existsSync(join(c.dir, 'templates', 'DashNope'))).toBe(false);
  });
});

describe('POST /api/dedicated/modpack/import {source, name, port, memory, proxyEnabled}', () => {
  test('creates a new dedicated service from the pack', async () => {
    const res = await apiFetch('/api/dedicated/modpack/import', { source: 'dash-pack', name: 'DashSolo', port: 25_981, memory: '4G', proxyEnabled: true });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expectImportAnswer(body, 'DashSolo');
    expect(body.dedicated).toMatchObject({ name: 'DashSolo', port: 25_981, software: 'FABRIC', version: '1.20.1', memory: '4G', proxyEnabled: true });
    expect(existsSync(join(c.dir, 'dedicated', 'DashSolo', 'mods', 'server-b.jar'))).toBe(true);
    expect((await c.api('/api/dedicated/DashSolo')).status).toBe(200);
  });

  test('also our form (source modrinth with slug), and proxyEnabled false', async () => {
    const res = await apiFetch('/api/dedicated/modpack/import', { source: 'modrinth', slug: 'dash-pack', versionId: 'dashv001', name: 'DashSolo2', port: 25_982, proxyEnabled: false });
    expect(res.status).toBe(201);
    expect((await readJson(res)).dedicated).toMatchObject({ name: 'DashSolo2', proxyEnabled: false, memory: '4G' });
  });

  test('refusals: validation naming the field, a taken port or name, unknown pack, auth', async () => {
    const base = { source: 'dash-pack', name: 'DashBad', port: 25_983, memory: '4G', proxyEnabled: true };
    for (const [body, field] of [
      [{ ...base, port: undefined }, 'port'],
      [{ ...base, port: 'x' }, 'port'],
      [{ ...base, port: 70_000 }, 'port'],
      [{ ...base, name: 'bad name' }, 'name'],
      [{ ...base, proxyEnabled: 'yes' }, 'proxyEnabled'],
      [{ ...base, memory: '4 GB' }, 'memory'],
      [{ ...base, source: undefined }, 'source'],
    ] as const) {
      expect(await expectError(await apiFetch('/api/dedicated/modpack/import', body), 400, 'VALIDATION_FAILED')).toContain(`"${field}"`);
    }
    await expectError(await apiFetch('/api/dedicated/modpack/import', { ...base, port: 25_981 }), 409, 'DEDICATED_PORT_IN_USE');
    await expectError(await apiFetch('/api/dedicated/modpack/import', { ...base, name: 'DashSolo' }), 409, 'DEDICATED_ALREADY_EXISTS');
    await expectError(await apiFetch('/api/dedicated/modpack/import', { ...base, source: 'nowhere-pack' }), 404, 'MODPACK_NOT_FOUND');
    await expectError(await c.api('/api/dedicated/modpack/import', { method: 'POST', json: base, token: null }), 401, 'UNAUTHORIZED');
    await expectError(await c.api('/api/dedicated/modpack/import', { method: 'POST', json: base, token: c.service }), 403, 'FORBIDDEN');
    expect(existsSync(join(c.dir, 'dedicated', 'DashBad'))).toBe(false);
  });
});

describe('one-shot uploads with fileName (apiUpload)', () => {
  test('groups: groupName, type, memory, minInstances, maxInstances, fileName', async () => {
    const params = new URLSearchParams({ groupName: 'DashUp', type: 'STATIC', memory: '4G', minInstances: '0', maxInstances: '1', fileName: 'Dash Pack 2.0.0.mrpack' });
    const res = await apiUpload(`/api/modpacks/upload?${params}`, pack);
    expect(res.status).toBe(201);
    expectImportAnswer(await readJson(res), 'DashUp');
  });

  test('dedicated: name, port, memory, proxyEnabled, fileName', async () => {
    const params = new URLSearchParams({ name: 'DashUpSolo', port: '25984', memory: '4G', proxyEnabled: 'true', fileName: 'pack.mrpack' });
    const res = await apiUpload(`/api/dedicated/modpack/upload?${params}`, pack);
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expectImportAnswer(body, 'DashUpSolo');
    expect(body.dedicated).toMatchObject({ name: 'DashUpSolo', port: 25_984, proxyEnabled: true });
  });

  test('neither filename nor fileName, or an empty one: 400 naming it, before the body is read', async () => {
    expect(await expectError(await apiUpload('/api/modpacks/upload?groupName=DashNoFile', pack), 400, 'VALIDATION_FAILED')).toContain('"filename"');
    expect(await expectError(await apiUpload('/api/dedicated/modpack/upload?name=DashNoFile&port=25985', pack), 400, 'VALIDATION_FAILED')).toContain('"filename"');
    expect(await expectError(await apiUpload('/api/modpacks/upload?groupName=DashNoFile&fileName=', pack), 400, 'VALIDATION_FAILED')).toContain('"fileName"');
    expect(existsSync(join(c.dir, 'templates', 'DashNoFile'))).toBe(false);
  });
});

describe('chunked uploads as the dashboard sends them (HTTPS dashboard, HTTP controller)', () => {
  /** apiChunkedUpload: init with fileName and totalChunks, chunks in order, finalize with the original query plus uploadId, no body. */
  async function chunked(path: string, file: Uint8Array, chunks = 2): Promise<Response> {
    const [, queryString] = path.split('?');
    const original = new URLSearchParams(queryString);
    const init = await apiFetch(`/api/modpacks/upload/init?${new URLSearchParams({ fileName: original.get('fileName') ?? 'upload.zip', totalChunks: String(chunks) })}`);
    expect(init.status).toBe(201);
    const { uploadId } = await readJson(init);
    expect(typeof uploadId).toBe('string');
    const size = Math.ceil(file.length / chunks);
    for (let i = 0; i < chunks; i++) {
      const res = await apiUpload(`/api/modpacks/upload/chunk?${new URLSearchParams({ uploadId, index: String(i) })}`, file.slice(i * size, (i + 1) * size));
      expect(res.status).toBe(200);
    }
    original.set('uploadId', uploadId);
    return apiFetch(`/api/modpacks/upload/finalize?${original}`);
  }

  test('the groups page: finalize with the group parameters in the query', async () => {
    const res = await chunked(`/api/modpacks/upload?${new URLSearchParams({ groupName: 'DashChunk', type: 'STATIC', memory: '4G', minInstances: '0', maxInstances: '1', fileName: 'p.mrpack' })}`, pack);
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expectImportAnswer(body, 'DashChunk');
    expect(body.group).toMatchObject({ name: 'DashChunk', type: 'STATIC' });
  });

  test('the dedicated page: finalize at the group route with the dedicated parameters goes to a new dedicated service', async () => {
    const res = await chunked(`/api/dedicated/modpack/upload?${new URLSearchParams({ name: 'DashChunkSolo', port: '25986', memory: '4G', proxyEnabled: 'false', fileName: 'p.mrpack' })}`, pack, 3);
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expectImportAnswer(body, 'DashChunkSolo');
    expect(body.dedicated).toMatchObject({ name: 'DashChunkSolo', port: 25_986, proxyEnabled: false });
    expect(body.group).toBeUndefined();
  });

  test('totalChunks is held to; refused finalizes keep the upload', async () => {
    const { uploadId } = await readJson(await apiFetch('/api/modpacks/upload/init?fileName=p.mrpack&totalChunks=2'));
    const half = Math.ceil(pack.length / 2);
    expect((await apiUpload(`/api/modpacks/upload/chunk?uploadId=${uploadId}&index=0`, pack.slice(0, half))).status).toBe(200);
    const finalize = (query: string) => apiFetch(`/api/modpacks/upload/finalize?uploadId=${uploadId}&${query}`);
    expect(await expectError(await finalize('groupName=DashEarly&minInstances=0'), 400, 'CHUNKED_UPLOAD_INVALID')).toContain('1 of the 2 chunk(s)');
    expect((await apiUpload(`/api/modpacks/upload/chunk?uploadId=${uploadId}&index=1`, pack.slice(half))).status).toBe(200);
    expect(await expectError(await apiUpload(`/api/modpacks/upload/chunk?uploadId=${uploadId}&index=2`, new Uint8Array(3)), 400, 'CHUNKED_UPLOAD_INVALID')).toContain('past the 2 chunk(s)');
    // Query validation, each naming its parameter; the upload stays.
    for (const [query, field] of [
      ['groupName=DashX&name=DashY&port=25987', 'name'],
      ['name=DashY', 'port'],
      ['name=DashY&port=abc', 'port'],
      ['groupName=DashX&port=25987', 'port'],
      ['name=DashY&port=25987&minInstances=1', 'minInstances'],
      ['memory=4G', 'groupName'],
      ['groupName=Dash%20X', 'groupName'],
      ['name=DashY&port=25987&proxyEnabled=maybe', 'proxyEnabled'],
    ] as const) {
      expect({ query, message: (await expectError(await finalize(query), 400, 'VALIDATION_FAILED')).includes(`"${field}"`) }).toEqual({ query, message: true });
    }
    expect(await expectError(await apiFetch('/api/modpacks/upload/finalize?groupName=DashX'), 400, 'VALIDATION_FAILED')).toContain('"uploadId"');
    await expectError(await apiFetch(`/api/modpacks/upload/finalize?groupName=DashX&uploadId=${'0'.repeat(32)}`), 404, 'CHUNKED_UPLOAD_NOT_FOUND');
    expect((await finalize('groupName=DashLate&minInstances=0&maxInstances=1')).status).toBe(201);
  });

  test('an upload started for a target keeps it: the other finalize is refused, by query or body', async () => {
    const { uploadId } = await readJson(await apiFetch('/api/modpacks/upload/init?target=group&fileName=p.mrpack'));
    expect((await apiUpload(`/api/modpacks/upload/chunk?uploadId=${uploadId}&index=0`, pack)).status).toBe(200);
    expect(await expectError(await apiFetch(`/api/modpacks/upload/finalize?uploadId=${uploadId}&name=DashWrong&port=25988`), 400, 'CHUNKED_UPLOAD_INVALID')).toContain('"group"');
    expect(await expectError(await apiFetch('/api/modpacks/upload/finalize', { uploadId, name: 'DashWrong', port: 25_988 }), 400, 'CHUNKED_UPLOAD_INVALID')).toContain('"group"');
    // A JSON body wins over the query.
    const res = await apiFetch(`/api/modpacks/upload/finalize?name=Ignored&port=1`, { uploadId, groupName: 'DashBody', minInstances: 0 });
    expect(res.status).toBe(201);
    expect((await readJson(res)).group.name).toBe('DashBody');
  });
});

test('the OpenAPI document lists the new route and the finalize query', async () => {
  const doc = await readJson(await c.api('/api/openapi.json'));
  expect(doc.paths['/api/dedicated/modpack/import'].post.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['source', 'name', 'port']));
  const finalize = doc.paths['/api/modpacks/upload/finalize'].post;
  expect(finalize.requestBody.required).toBe(false);
  expect(finalize.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['uploadId', 'groupName', 'name', 'port', 'proxyEnabled', 'fileName']));
  expect(doc.paths['/api/modpacks/upload'].post.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['filename', 'fileName']));
  const resolved = doc.paths['/api/modpacks/resolve'].post.responses['200'].content['application/json'].schema;
  expect(Object.keys(resolved.properties)).toEqual(expect.arrayContaining(['name', 'version', 'mcVersion', 'modloader', 'modloaderVersion', 'totalFiles', 'serverFiles', 'source']));
});
