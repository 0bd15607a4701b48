/**
 * Modpacks over HTTP against local fakes of Modrinth and CurseForge (nothing leaves the
 * machine): look-ups, imports by id into groups and dedicated services, uploads one-shot and
 * chunked, and that a failure at any point leaves nothing behind.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';
import { hex, mrpackOf, zipOf } from '../fixtures/modpack-zip';
import { FakePackHosts } from '../fixtures/upstream/modpacks-hosts';

const KEY = 'test-curseforge-key-0123456789';
const OFFLINE = 'http://127.0.0.1:1';

const hosts = new FakePackHosts(KEY);
let c: TestController;

/** `[software]` pointing the two pack hosts at the fakes, and every jar upstream at a closed port. */
function packToml(apiKey: string | null): string {
  const offline = ['papermc_url', 'purpur_url', 'fabric_url', 'forge_url', 'forge_promotions_url', 'neoforge_url', 'mojang_url', 'hangar_url'].map((k) => `${k} = "${OFFLINE}"`);
  return ['[software]', `modrinth_url = "${hosts.modrinth.url}"`, `curseforge_url = "${hosts.curseforge.url}"`, ...offline, apiKey === null ? '' : `[packhost]\napi_key = "${apiKey}"`].join('\n');
}

const bytesOf = (label: string, size = 20_000) => {
  const out = new Uint8Array(size);
  const seed = new TextEncoder().encode(label);
  for (let i = 0; i < size; i++) out[i] = (seed[i % seed.length]! * 31 + i) & 0xff;
  return out;
};

const serverMod = bytesOf('server-mod');
const clientMod = bytesOf('client-mod');
const optionalMod = bytesOf('optional-mod');

function indexFile(path: string, bytes: Uint8Array, name: string, server: 'required' | 'optional' | 'unsupported', tamper = false) {
  const hosted = hosts.hostModrinthFile(name, bytes);
  return {
    path,
    hashes: { sha1: hosted.sha1, sha512: tamper ? hex('sha512', new Uint8Array([1, 2, 3])) : hosted.sha512 },
    env: { client: 'required', server },
    downloads: [hosted.url],
    fileSize: hosted.size,
  };
}

function packIndex(files: unknown[], dependencies: Record<string, string> = { minecraft: '1.20.1', 'fabric-loader': '0.15.11' }) {
  return { formatVersion: 1, game: 'minecraft', versionId: '1.0.0', name: 'Test Pack', summary: 'for tests', files, dependencies };
}

const goodPack = mrpackOf(
  packIndex([
    indexFile('mods/server-mod.jar', serverMod, 'server-mod.jar', 'required'),
    indexFile('mods/client-only.jar', clientMod, 'client-only.jar', 'unsupported'),
    indexFile('mods/optional.jar', optionalMod, 'optional.jar', 'optional'),
  ]),
  {
    'overrides/config/a.toml': 'from overrides',
    'overrides/config/b.toml': 'b stays',
    'server-overrides/config/a.toml': 'from server-overrides',
    'client-overrides/options.txt': 'clients only',
  },
);
const tamperedPack = mrpackOf(packIndex([indexFile('mods/server-mod.jar', serverMod, 'server-mod.jar', 'required', true)]), { 'overrides/config/x.toml': 'x' });

hosts.addModrinthProject({
  id: 'AbCd1234',
  slug: 'test-pack',
  title: 'Test Pack',
  versions: [
    { id: 'ver00002', versionNumber: '1.1.0', gameVersions: ['1.20.1'], loaders: ['fabric'], published: '2025-02-01T00:00:00Z', mrpack: goodPack },
    { id: 'ver00001', versionNumber: '1.0.0', gameVersions: ['1.20.1'], loaders: ['fabric'], published: '2025-01-01T00:00:00Z', mrpack: goodPack },
  ],
});
hosts.addModrinthProject({ id: 'Bad00001', slug: 'tampered-pack', title: 'Tampered', versions: [{ id: 'verbad01', versionNumber: '1.0', gameVersions: ['1.20.1'], loaders: ['fabric'], published: '2025-01-01T00:00:00Z', mrpack: tamperedPack }] });
hosts.addModrinthProject({ id: 'Mod00001', slug: 'just-a-mod', title: 'Just a mod', type: 'mod', versions: [] });

// CurseForge: a modpack (classId 4471) whose manifest lists three mod files.
const cfServerMod = bytesOf('cf-server');
const cfClientMod = bytesOf('cf-client');
const cfShader = bytesOf('cf-shader');
hosts.addCurseForgeMod({ id: 1001, name: 'Server Lib', slug: 'server-lib', classId: 6, files: [{ id: 5001, fileName: 'server-lib-1.0.jar', bytes: cfServerMod, gameVersions: ['1.20.1', 'Forge', 'Server', 'Client'], download: 'api' }] });
hosts.addCurseForgeMod({ id: 1002, name: 'Minimap', slug: 'minimap', classId: 6, files: [{ id: 5002, fileName: 'minimap-2.0.jar', bytes: cfClientMod, gameVersions: ['1.20.1', 'Forge', 'Client'] }] });
hosts.addCurseForgeMod({ id: 1003, name: 'Shaders', slug: 'shaders', classId: 6546, files: [{ id: 5003, fileName: 'shaders.zip', bytes: cfShader, gameVersions: ['1.20.1'] }] });
const cfPack = zipOf({
  'manifest.json': JSON.stringify({
    minecraft: { version: '1.20.1', modLoaders: [{ id: 'forge-47.2.0', primary: true }] },
    manifestType: 'minecraftModpack',
    manifestVersion: 1,
    name: 'CF Pack',
    version: '2.0',
    author: 'tests',
    files: [
      { projectID: 1001, fileID: 5001, required: true },
      { projectID: 1002, fileID: 5002, required: true },
      { projectID: 1003, fileID: 5003, required: true },
      { projectID: 1002, fileID: 5002, required: false },
    ],
    overrides: 'overrides',
  }),
  'overrides/config/forge.toml': 'forge config',
});
hosts.addCurseForgeMod({ id: 2001, name: 'CF Pack', slug: 'cf-pack', classId: 4471, files: [{ id: 7001, fileName: 'CF Pack-2.0.zip', bytes: cfPack, gameVersions: ['1.20.1', 'Forge'], fileDate: '2025-03-01T00:00:00Z' }] });

const post = (path: string, json?: unknown) => c.api(path, { method: 'POST', json });
const templates = () => join(c.dir, 'templates');
const leftovers = () => [
  ...readdirSync(templates()).filter((e) => e.startsWith('.')),
  ...readdirSync(join(c.dir, 'dedicated')).filter((e) => e.startsWith('.')),
  ...readdirSync(join(c.dir, 'data', 'modpacks', 'work')),
];
const scaling = { minInstances: 0, maxInstances: 2 };

beforeAll(async () => {
  c = await startController({ toml: packToml(KEY) });
});
afterAll(async () => {
  await c.stop();
  hosts.close();
});

describe('POST /api/modpacks/resolve', () => {
  test('a Modrinth pack by slug: name, versions newest first, game version and loader', async () => {
    const res = await post('/api/modpacks/resolve', { id: 'test-pack' });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ success: true, host: 'modrinth', source: 'MODRINTH', projectId: 'AbCd1234', slug: 'test-pack', name: 'Test Pack', gameVersion: '1.20.1', loader: 'fabric' });
    expect(body.versions.map((v: { id: string }) => v.id)).toEqual(['ver00002', 'ver00001']);
  });

  test('by page URL, with the version it names', async () => {
    const body = await readJson(await post('/api/modpacks/resolve', { url: 'https://modrinth.com/modpack/test-pack/version/ver00001' }));
    expect(body).toMatchObject({ host: 'modrinth', slug: 'test-pack' });
    const cf = await readJson(await post('/api/modpacks/resolve', { url: 'https://www.curseforge.com/minecraft/modpacks/cf-pack' }));
    expect(cf).toMatchObject({ host: 'curseforge', source: 'CURSEFORGE_API', projectId: '2001', name: 'CF Pack', gameVersion: '1.20.1', loader: 'forge' });
    expect(cf.versions[0].id).toBe('7001');
  });

  test('a CurseForge id (digits)', async () => {
    const body = await readJson(await post('/api/modpacks/resolve', { id: '2001' }));
    expect(body).toMatchObject({ host: 'curseforge', slug: 'cf-pack' });
  });

  test.each([
    [{ id: 'no-such-pack' }, 'no project'],
    [{ id: 'just-a-mod' }, 'not a modpack'],
    [{ id: '999999' }, 'no modpack'],
    [{ id: '1001' }, 'not a modpack'],
  ])('%j is MODPACK_NOT_FOUND', async (json, fragment) => {
    const res = await post('/api/modpacks/resolve', json);
    expect(res.status).toBe(404);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('MODPACK_NOT_FOUND');
    expect(body.message).toContain(fragment);
  });

  test('validation: neither url nor id, a foreign URL', async () => {
    for (const json of [{}, { url: 'https://example.com/pack' }, { url: 'https://modrinth.com/modpack/x', source: 'curseforge' }]) {
      const res = await post('/api/modpacks/resolve', json);
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).error).toBe('VALIDATION_FAILED');
    }
  });

  test('auth: admin only', async () => {
    expect((await c.api('/api/modpacks/resolve', { method: 'POST', json: { id: 'x' }, token: null })).status).toBe(401);
    const res = await c.api('/api/modpacks/resolve', { method: 'POST', json: { id: 'x' }, token: c.service });
    expect(res.status).toBe(403);
    expect((await expectErrorBody(res)).error).toBe('FORBIDDEN');
  });
});

describe('POST /api/modpacks/import (Modrinth)', () => {
  test('creates the group with a template of server-side mods, overrides and server overrides', async () => {
    const res = await post('/api/modpacks/import', { source: 'modrinth', slug: 'test-pack', versionId: 'ver00001', groupName: 'Packed', ...scaling });
    const body = await readJson(res);
    expect(res.status).toBe(201);
    expect(body.group).toMatchObject({ name: 'Packed', software: 'FABRIC', version: '1.20.1', modloaderVersion: '0.15.11', memory: '4G', minInstances: 0, template: 'Packed' });
    expect(body.pack).toMatchObject({ source: 'modrinth', kind: 'mrpack', name: 'Test Pack', version: '1.0.0', software: 'FABRIC' });
    expect(body.files).toMatchObject({ downloaded: 2, extracted: 3 });
    expect(body.files.skipped).toEqual([{ path: 'mods/client-only.jar', reason: expect.stringContaining('client-only') }]);

    const dir = join(templates(), 'Packed');
    expect(new Uint8Array(readFileSync(join(dir, 'mods/server-mod.jar')))).toEqual(serverMod);
    expect(existsSync(join(dir, 'mods/optional.jar'))).toBe(true);
    expect(existsSync(join(dir, 'mods/client-only.jar'))).toBe(false);
    expect(readFileSync(join(dir, 'config/a.toml'), 'utf8')).toBe('from server-overrides');
    expect(readFileSync(join(dir, 'config/b.toml'), 'utf8')).toBe('b stays');
    expect(existsSync(join(dir, 'options.txt'))).toBe(false);
    const group = await readJson(await c.api('/api/groups/Packed'));
    expect(group).toMatchObject({ name: 'Packed', software: 'FABRIC' });
    expect(existsSync(join(c.dir, 'config/groups/Packed.toml'))).toBe(true);
    expect(leftovers()).toEqual([]);
  });

  test('the name taken (group, template folder) is refused before anything is fetched', async () => {
    const res = await post('/api/modpacks/import', { source: 'modrinth', slug: 'test-pack', groupName: 'packed', ...scaling });
    expect(res.status).toBe(409);
    expect((await expectErrorBody(res)).error).toBe('GROUP_ALREADY_EXISTS');
    mkdirSync(join(templates(), 'Handmade'), { recursive: true });
    const folder = await post('/api/modpacks/import', { source: 'modrinth', slug: 'test-pack', groupName: 'Handmade', ...scaling });
    expect(folder.status).toBe(400);
    expect((await expectErrorBody(folder)).message).toContain('already exists');
  });

  test('a hash mismatch is MODPACK_INVALID and leaves nothing: no group, no template, no stage', async () => {
    const res = await post('/api/modpacks/import', { source: 'modrinth', slug: 'tampered-pack', groupName: 'Tampered', ...scaling });
    expect(res.status).toBe(400);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('MODPACK_INVALID');
    expect(body.message).toContain('sha512 mismatch');
    expect((await c.api('/api/groups/Tampered')).status).toBe(404);
    expect(existsSync(join(templates(), 'Tampered'))).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  test('an unknown project or version is MODPACK_NOT_FOUND', async () => {
    const res = await post('/api/modpacks/import', { source: 'modrinth', slug: 'test-pack', versionId: 'nope', groupName: 'Nope', ...scaling });
    expect(res.status).toBe(404);
    expect((await expectErrorBody(res)).error).toBe('MODPACK_NOT_FOUND');
  });

  test('a long import answers 202 with a job; the group appears only when it is complete', async () => {
    c.controller.kernel.modpacks.tuning.answerWithinMs = 0;
    try {
      const res = await post('/api/modpacks/import', { source: 'modrinth', slug: 'test-pack', groupName: 'Later', ...scaling });
      expect(res.status).toBe(202);
      const accepted = await readJson(res);
      expect(accepted).toMatchObject({ success: true, state: 'running', poll: `/api/modpacks/jobs/${accepted.jobId}` });
      const job = await waitFor(
        async () => {
          const view = await readJson(await c.api(accepted.poll));
          return view.state === 'running' ? null : view;
        },
        { what: 'the import job to end' },
      );
      expect(job).toMatchObject({ state: 'succeeded', target: 'group', name: 'Later', error: null });
      expect(job.result.group.name).toBe('Later');
      expect(existsSync(join(templates(), 'Later/mods/server-mod.jar'))).toBe(true);
    } finally {
      c.controller.kernel.modpacks.tuning.answerWithinMs = 8000;
    }
    const unknown = await c.api('/api/modpacks/jobs/000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect((await expectErrorBody(unknown)).error).toBe('MODPACK_NOT_FOUND');
  });

  test('the import goes on when the client goes away; the group appears once complete', async () => {
    const release = hosts.holdDownloads();
    const client = new AbortController();
    const before = hosts.modrinth.requests.length;
    const gone = c.api('/api/modpacks/import', { method: 'POST', json: { source: 'modrinth', slug: 'test-pack', groupName: 'Orphan', ...scaling }, signal: client.signal });
    try {
      await waitFor(() => hosts.modrinth.requests.slice(before).some((r) => r.includes('/data/')), { what: 'the import to be downloading' });
      client.abort();
      await gone.then(
        () => expect.unreachable('the request was aborted'),
        () => undefined,
      );
      expect((await c.api('/api/groups/Orphan')).status).toBe(404);
      expect(existsSync(join(templates(), 'Orphan'))).toBe(false);
    } finally {
      release();
    }
    await waitFor(async () => (await c.api('/api/groups/Orphan')).status === 200, { what: 'the group to appear' });
    expect(existsSync(join(templates(), 'Orphan/mods/server-mod.jar'))).toBe(true);
  });
});

describe('CurseForge', () => {
  test('without [packhost] api_key: PACKHOST_API_KEY_MISSING, before any request to CurseForge', async () => {
    const keyless = await startController({ toml: packToml(null) });
    try {
      const before = hosts.curseforge.requests.length;
      for (const [path, json] of [
        ['/api/modpacks/resolve', { id: '2001' }],
        ['/api/modpacks/import', { source: 'curseforge', projectId: '2001', groupName: 'NoKey', ...scaling }],
      ] as const) {
        const res = await keyless.api(path, { method: 'POST', json });
        expect(res.status).toBe(409);
        const body = await expectErrorBody(res);
        expect(body.error).toBe('PACKHOST_API_KEY_MISSING');
        expect(body.message).toContain('[packhost] api_key');
      }
      // An uploaded CurseForge zip needs the key too (its files are CurseForge ids).
      const upload = await keyless.api('/api/modpacks/upload?filename=cf.zip&groupName=NoKey&minInstances=0', { method: 'POST', body: cfPack });
      expect(upload.status).toBe(409);
      expect((await expectErrorBody(upload)).error).toBe('PACKHOST_API_KEY_MISSING');
      expect(hosts.curseforge.requests.length).toBe(before);
      expect(readdirSync(join(keyless.dir, 'data/modpacks/work'))).toEqual([]);
    } finally {
      await keyless.stop();
    }
  });

  test('with the key: the pack is resolved through the API, client-only and non-jar files left out', async () => {
    const res = await post('/api/modpacks/import', { source: 'curseforge', projectId: '2001', groupName: 'Forged', ...scaling });
    const body = await readJson(res);
    expect(res.status).toBe(201);
    expect(body.group).toMatchObject({ name: 'Forged', software: 'FORGE', version: '1.20.1', modloaderVersion: '47.2.0' });
    expect(body.pack).toMatchObject({ source: 'curseforge', kind: 'curseforge', name: 'CF Pack', version: '2.0' });
    const skipped = body.files.skipped.map((s: { path: string }) => s.path).sort();
    expect(skipped).toEqual(['manifest.json', 'mods/minimap-2.0.jar', 'mods/shaders.zip']);
    const dir = join(templates(), 'Forged');
    expect(new Uint8Array(readFileSync(join(dir, 'mods/server-lib-1.0.jar')))).toEqual(cfServerMod);
    expect(readdirSync(join(dir, 'mods'))).toEqual(['server-lib-1.0.jar']);
    expect(readFileSync(join(dir, 'config/forge.toml'), 'utf8')).toBe('forge config');
    expect(hosts.curseforge.requests.some((r) => r.endsWith('/v1/mods/1001/files/5001/download-url'))).toBe(true);
  });
});

describe('POST /api/modpacks/upload (one-shot)', () => {
  const forgeServerPack = zipOf({
    'MyServer/mods/big-mod.jar': bytesOf('big-mod', 100_000),
    'MyServer/libraries/net/minecraftforge/forge/1.20.1-47.2.0/forge-1.20.1-47.2.0-server.jar': 'lib',
    'MyServer/config/server.cfg': 'cfg',
    'MyServer/server.properties': 'motd=packed\n',
  });

  test('a server pack is imported as it is (its folder unwrapped), software read from its libraries', async () => {
    const res = await c.api('/api/modpacks/upload?filename=server.zip&groupName=ServerPack&minInstances=0&memory=6G&type=STATIC', { method: 'POST', body: forgeServerPack });
    const body = await readJson(res);
    expect(res.status).toBe(201);
    expect(body.pack).toMatchObject({ source: 'upload', kind: 'server', software: 'FORGE', gameVersion: '1.20.1', loaderVersion: '47.2.0' });
    expect(body.group).toMatchObject({ name: 'ServerPack', type: 'STATIC', memory: '6G', software: 'FORGE', modloaderVersion: '47.2.0' });
    const dir = join(templates(), 'ServerPack');
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).toBe('motd=packed\n');
    expect(existsSync(join(dir, 'mods/big-mod.jar'))).toBe(true);
    expect(existsSync(join(dir, 'MyServer'))).toBe(false);
  });

  test('a server pack that shows no software needs software and version; the .mrpack needs nothing', async () => {
    const bare = zipOf({ 'mods/a.jar': 'a', 'server.jar': 'jar' });
    const refused = await c.api('/api/modpacks/upload?filename=bare.zip&groupName=Bare&minInstances=0', { method: 'POST', body: bare });
    expect(refused.status).toBe(400);
    expect((await expectErrorBody(refused)).message).toContain('pass software');
    const ok = await c.api('/api/modpacks/upload?filename=bare.zip&groupName=Bare&minInstances=0&software=NEOFORGE&version=1.21.1', { method: 'POST', body: bare });
    expect(ok.status).toBe(201);
    expect((await readJson(ok)).group).toMatchObject({ software: 'NEOFORGE', version: '1.21.1' });
    const mrpack = await c.api('/api/modpacks/upload?filename=pack.mrpack&groupName=Uploaded&minInstances=0', { method: 'POST', body: goodPack });
    expect(mrpack.status).toBe(201);
    expect(existsSync(join(templates(), 'Uploaded/mods/server-mod.jar'))).toBe(true);
  });

  test.each([
    ['zip slip', { '../escaped.txt': 'x', 'mods/a.jar': 'a' }, 'leave the folder'],
    ['an absolute path', { '/etc/evil': 'x', 'mods/a.jar': 'a' }, 'absolute'],
    ['a mrpack file leaving the folder', { 'modrinth.index.json': JSON.stringify(packIndex([{ path: '../../evil.jar', hashes: { sha1: 'a' }, downloads: [] }])) }, 'leave the server folder'],
    ['not a modpack', { 'readme.txt': 'hello' }, 'not a modpack'],
  ])('%s is MODPACK_INVALID and leaves nothing', async (_name, files, fragment) => {
    const res = await c.api('/api/modpacks/upload?filename=bad.zip&groupName=Bad&minInstances=0&software=FABRIC&version=1.20.1', { method: 'POST', body: zipOf(files) });
    expect(res.status).toBe(400);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('MODPACK_INVALID');
    expect(body.message).toContain(fragment);
    expect(existsSync(join(templates(), 'Bad'))).toBe(false);
    expect(existsSync(join(c.dir, '..', 'escaped.txt'))).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  test('a body that is not a zip is MODPACK_INVALID', async () => {
    const res = await c.api('/api/modpacks/upload?filename=x.zip&groupName=Junk&minInstances=0', { method: 'POST', body: 'not a zip at all' });
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).message).toContain('not a usable zip');
  });

  test('the query is validated before the body is read', async () => {
    const res = await c.api('/api/modpacks/upload?groupName=NoFile', { method: 'POST', body: goodPack });
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).error).toBe('VALIDATION_FAILED');
  });
});

describe('chunked uploads', () => {
  async function init(target?: 'group' | 'dedicated', extra = ''): Promise<string> {
    const res = await post(`/api/modpacks/upload/init${target ? `?target=${target}` : ''}${extra}`);
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(body).toMatchObject({ success: true, target: target ?? 'group', chunkBytes: 4 * 1024 * 1024 });
    return body.uploadId;
  }
  const chunk = (id: string, index: number, body: Uint8Array) => c.api(`/api/modpacks/upload/chunk?uploadId=${id}&index=${index}`, { method: 'POST', body });
  const split = (bytes: Uint8Array, parts: number) => Array.from({ length: parts }, (_, i) => bytes.slice(Math.floor((i * bytes.length) / parts), Math.floor(((i + 1) * bytes.length) / parts)));

  test('init, chunks in order, finalize: the group is made from the reassembled pack', async () => {
    const id = await init();
    const parts = split(goodPack, 3);
    for (const [i, part] of parts.entries()) {
      const res = await chunk(id, i, part);
      expect(res.status).toBe(200);
      expect(await readJson(res)).toMatchObject({ chunks: i + 1 });
    }
    const res = await post('/api/modpacks/upload/finalize', { uploadId: id, groupName: 'Chunked', ...scaling });
    expect(res.status).toBe(201);
    expect(existsSync(join(templates(), 'Chunked/mods/server-mod.jar'))).toBe(true);
    // A finalized upload is gone.
    expect((await chunk(id, 3, new Uint8Array(1))).status).toBe(404);
  });

  test('an unknown id is CHUNKED_UPLOAD_NOT_FOUND', async () => {
    for (const res of [await chunk('0'.repeat(32), 0, new Uint8Array(10)), await post('/api/modpacks/upload/finalize', { uploadId: '0'.repeat(32), groupName: 'X' })]) {
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).error).toBe('CHUNKED_UPLOAD_NOT_FOUND');
    }
  });

  test('an out-of-order or repeated chunk is CHUNKED_UPLOAD_INVALID and changes nothing', async () => {
    const id = await init();
    const parts = split(goodPack, 3);
    expect((await chunk(id, 0, parts[0]!)).status).toBe(200);
    for (const [index, why] of [
      [2, 'out of order'],
      [0, 'duplicate'],
    ] as const) {
      const res = await chunk(id, index, parts[index]!);
      expect(res.status).toBe(400);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('CHUNKED_UPLOAD_INVALID');
      expect(body.message).toContain(why);
      expect(body.message).toContain('the next chunk is 1');
    }
    expect((await chunk(id, 1, parts[1]!)).status).toBe(200);
    expect((await chunk(id, 2, parts[2]!)).status).toBe(200);
    expect((await post('/api/modpacks/upload/finalize', { uploadId: id, groupName: 'InOrder', ...scaling })).status).toBe(201);
  });

  test('a target mismatch at finalize is 400, both ways, and the upload stays for the right route', async () => {
    const forDedicated = await init('dedicated');
    expect((await chunk(forDedicated, 0, goodPack)).status).toBe(200);
    const wrong = await post('/api/modpacks/upload/finalize', { uploadId: forDedicated, groupName: 'Wrong', ...scaling });
    expect(wrong.status).toBe(400);
    const body = await expectErrorBody(wrong);
    expect(body.error).toBe('CHUNKED_UPLOAD_INVALID');
    expect(body.message).toContain('"dedicated"');
    const forGroup = await init('group');
    expect((await chunk(forGroup, 0, goodPack)).status).toBe(200);
    const wrong2 = await post('/api/dedicated/modpack/upload/finalize', { uploadId: forGroup, name: 'Wrong', port: 25_990 });
    expect(wrong2.status).toBe(400);
    expect((await expectErrorBody(wrong2)).message).toContain('"group"');
    expect((await post('/api/modpacks/upload/finalize', { uploadId: forGroup, groupName: 'RightTarget', ...scaling })).status).toBe(201);
  });

  test('a refused finalize keeps the upload; size announced at init is insisted on', async () => {
    const id = await init('group', `&size=${goodPack.length}`);
    expect((await chunk(id, 0, goodPack.slice(0, 100))).status).toBe(200);
    const early = await post('/api/modpacks/upload/finalize', { uploadId: id, groupName: 'Sized', ...scaling });
    expect(early.status).toBe(400);
    expect((await expectErrorBody(early)).message).toContain(`100 of the ${goodPack.length} bytes`);
    expect((await chunk(id, 1, goodPack.slice(100))).status).toBe(200);
    const taken = await post('/api/modpacks/upload/finalize', { uploadId: id, groupName: 'Packed', ...scaling });
    expect(taken.status).toBe(409);
    expect((await post('/api/modpacks/upload/finalize', { uploadId: id, groupName: 'Sized', ...scaling })).status).toBe(201);
  });

  test('a chunk cut off mid-body is dropped whole: the same index is sent again', async () => {
    const id = await init();
    const parts = split(goodPack, 2);
    expect((await chunk(id, 0, parts[0]!)).status).toBe(200);
    // Announce the whole chunk, send half, hang up.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(c.controller.port, '127.0.0.1', () => {
        socket.write(`POST /api/modpacks/upload/chunk?uploadId=${id}&index=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${c.master}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${parts[1]!.length}\r\n\r\n`);
        socket.write(parts[1]!.slice(0, 100), () => setTimeout(() => socket.destroy(), 50));
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    const uploads = c.controller.kernel.modpacks.uploads;
    // The handler notices the cut, truncates, and frees the upload for the retry.
    await waitFor(async () => (await chunk(id, 1, parts[1]!)).status === 200, { what: 'the retried chunk to be accepted' });
    expect(uploads.size).toBeGreaterThan(0);
    const res = await post('/api/modpacks/upload/finalize', { uploadId: id, groupName: 'Retried', ...scaling });
    expect(res.status).toBe(201);
    expect(new Uint8Array(readFileSync(join(templates(), 'Retried/mods/server-mod.jar')))).toEqual(serverMod);
  });

  test('an upload never finalized leaves no group and no template', async () => {
    const id = await init();
    expect((await chunk(id, 0, goodPack.slice(0, 1000))).status).toBe(200);
    expect(existsSync(join(templates(), 'Never'))).toBe(false);
    expect((await c.api('/api/groups')).status).toBe(200);
    const names = (await readJson(await c.api('/api/groups'))).groups.map((g: { name: string }) => g.name);
    expect(names).not.toContain('Never');
    // What a truncated pack is told at finalize: the zip is unreadable, and the upload is kept.
    const res = await post('/api/modpacks/upload/finalize', { uploadId: id, groupName: 'Never', ...scaling });
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).error).toBe('MODPACK_INVALID');
    expect(existsSync(join(templates(), 'Never'))).toBe(false);
    expect((await chunk(id, 1, goodPack.slice(1000))).status).toBe(200);
  });
});

describe('dedicated services', () => {
  test('a chunked "dedicated" upload finalized makes a new service in its own directory', async () => {
    const init = await readJson(await post('/api/modpacks/upload/init?target=dedicated'));
    expect((await c.api(`/api/modpacks/upload/chunk?uploadId=${init.uploadId}&index=0`, { method: 'POST', body: goodPack })).status).toBe(200);
    const res = await post('/api/dedicated/modpack/upload/finalize', { uploadId: init.uploadId, name: 'PackSolo', port: 25_991, memory: '3G', proxyEnabled: false });
    const body = await readJson(res);
    expect(res.status).toBe(201);
    expect(body.dedicated).toMatchObject({ name: 'PackSolo', port: 25_991, software: 'FABRIC', version: '1.20.1', memory: '3G', proxyEnabled: false, configUpdated: false });
    const dir = join(c.dir, 'dedicated', 'PackSolo');
    expect(body.dedicated.directory).toBe(dir);
    expect(existsSync(join(dir, 'mods/server-mod.jar'))).toBe(true);
    expect(readFileSync(join(dir, 'eula.txt'), 'utf8')).toContain('eula=true');
    expect((await c.api('/api/dedicated/PackSolo')).status).toBe(200);
  });

  test('one-shot into a new service; the port of another is DEDICATED_PORT_IN_USE', async () => {
    const taken = await c.api('/api/dedicated/modpack/upload?filename=p.mrpack&name=Other&port=25991', { method: 'POST', body: goodPack });
    expect(taken.status).toBe(409);
    expect((await expectErrorBody(taken)).error).toBe('DEDICATED_PORT_IN_USE');
    const res = await c.api('/api/dedicated/modpack/upload?filename=p.mrpack&name=Other&port=25992&proxyEnabled=true', { method: 'POST', body: goodPack });
    expect(res.status).toBe(201);
    expect((await readJson(res)).dedicated).toMatchObject({ name: 'Other', proxyEnabled: true });
  });

  test('into an existing directory: files replaced, mods/ replaced, the world kept, config takes the pack runtime', async () => {
    const made = await post('/api/dedicated', { name: 'Existing', port: 25_993, software: 'PAPER', version: '1.21.1' });
    expect(made.status).toBe(201);
    const dir = join(c.dir, 'dedicated', 'Existing');
    mkdirSync(join(dir, 'world'), { recursive: true });
    mkdirSync(join(dir, 'mods'), { recursive: true });
    writeFileSync(join(dir, 'world/level.dat'), 'the world');
    writeFileSync(join(dir, 'mods/stale.jar'), 'old');
    writeFileSync(join(dir, 'config.yml'), 'kept');
    const serverPack = zipOf({ 'mods/new.jar': 'new', 'config/a.toml': 'pack', 'libraries/net/fabricmc/fabric-loader/0.16.0/x.jar': 'l', 'libraries/net/fabricmc/intermediary/1.21.1/y.jar': 'i' });
    const res = await c.api('/api/dedicated/Existing/modpack/upload?filename=s.zip', { method: 'POST', body: serverPack });
    const body = await readJson(res);
    expect(res.status).toBe(200);
    expect(body.dedicated).toMatchObject({ name: 'Existing', software: 'FABRIC', version: '1.21.1', configUpdated: true });
    expect(readFileSync(join(dir, 'world/level.dat'), 'utf8')).toBe('the world');
    expect(readFileSync(join(dir, 'config.yml'), 'utf8')).toBe('kept');
    expect(readdirSync(join(dir, 'mods'))).toEqual(['new.jar']);
    expect(readFileSync(join(dir, 'config/a.toml'), 'utf8')).toBe('pack');
    expect(leftovers()).toEqual([]);
  });

  test('by id from Modrinth into an existing directory; replaceMods=false keeps other mods', async () => {
    const dir = join(c.dir, 'dedicated', 'Existing');
    const res = await post('/api/dedicated/Existing/modpack/import', { source: 'modrinth', slug: 'test-pack', replaceMods: false });
    expect(res.status).toBe(200);
    expect(readdirSync(join(dir, 'mods')).sort()).toEqual(['new.jar', 'optional.jar', 'server-mod.jar']);
    expect(readFileSync(join(dir, 'config/a.toml'), 'utf8')).toBe('from server-overrides');
    expect((await readJson(res)).dedicated).toMatchObject({ version: '1.20.1', configUpdated: true });
  });

  test('an unknown service is DEDICATED_NOT_FOUND, before the body is read', async () => {
    const res = await c.api('/api/dedicated/Nobody/modpack/upload', { method: 'POST', body: goodPack });
    expect(res.status).toBe(404);
    expect((await expectErrorBody(res)).error).toBe('DEDICATED_NOT_FOUND');
    const byId = await post('/api/dedicated/Nobody/modpack/import', { source: 'modrinth', slug: 'test-pack' });
    expect(byId.status).toBe(404);
  });
});
