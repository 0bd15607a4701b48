/**
 * /api/plugins/search and /api/plugins/install against local fakes of Modrinth and Hangar.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectErrorBody, readJson, startController, type TestController } from '../support/controller';
import { fakeHangar, type FakeHangarProject } from '../fixtures/upstream/hangar';
import { fakeModrinth, type FakeModrinthProject } from '../fixtures/upstream/modrinth';
import { digest, fakeJar } from '../fixtures/upstream/serve';

const LP_JAR = fakeJar('LuckPerms 5.4.141');
const PAPI_JAR = fakeJar('PlaceholderAPI 2.11.6');

const modrinthProjects: FakeModrinthProject[] = [
  {
    id: 'Vebnzrzj',
    slug: 'luckperms',
    title: 'LuckPerms',
    author: 'Luck',
    downloads: 900_000,
    description: 'A permissions plugin',
    versions: [
      {
        id: 'lp541',
        version_number: '5.4.141',
        game_versions: ['1.21.3', '1.21.4'],
        loaders: ['bukkit', 'paper', 'spigot'],
        files: [{ filename: 'LuckPerms-Bukkit-5.4.141.jar', bytes: LP_JAR }],
        dependencies: [
          { project_id: 'papi0001', dependency_type: 'required' },
          { project_id: 'extra001', dependency_type: 'optional' },
        ],
      },
    ],
  },
  { id: 'papi0001', slug: 'placeholderapi', title: 'PlaceholderAPI', author: 'clip', downloads: 500, versions: [{ id: 'papi2116', version_number: '2.11.6', game_versions: ['1.21.4'], loaders: ['paper'], files: [{ filename: 'PlaceholderAPI-2.11.6.jar', bytes: PAPI_JAR }] }] },
  { id: 'extra001', slug: 'extra', title: 'Extra', author: 'x', versions: [{ id: 'extra1', version_number: '1.0', game_versions: ['1.21.4'], loaders: ['paper'], files: [{ filename: 'Extra.jar', bytes: fakeJar('extra') }] }] },
  { id: 'old00001', slug: 'oldplugin', title: 'OldPlugin', author: 'y', versions: [{ id: 'old1', version_number: '0.1', game_versions: ['1.8.8'], loaders: ['bukkit'], files: [{ filename: 'Old.jar', bytes: fakeJar('old') }] }] },
  { id: 'velo0001', slug: 'velocitab', title: 'Velocitab', author: 'William278', downloads: 70, versions: [{ id: 'velo1', version_number: '1.7', game_versions: ['1.21.4'], loaders: ['velocity'], files: [{ filename: 'Velocitab.jar', bytes: fakeJar('velocitab') }] }] },
  { id: 'sodium01', slug: 'sodium', title: 'Sodium', author: 'jellysquid', projectType: 'mod', versions: [{ id: 'sod1', version_number: '0.6', game_versions: ['1.21.4'], loaders: ['fabric', 'paper'], files: [{ filename: 'sodium.jar', bytes: fakeJar('sodium') }] }] },
  { id: 'badhash1', slug: 'tampered', title: 'Tampered', author: 'z', versions: [{ id: 'bad1', version_number: '1', game_versions: ['1.21.4'], loaders: ['paper'], files: [{ filename: 'Tampered.jar', bytes: fakeJar('t'), sha512: 'ab'.repeat(64) }] }] },
];

const VIA_JAR = fakeJar('ViaVersion 5.2.1');
const VIAB_JAR = fakeJar('ViaBackwards 5.2.1');
const hangarProjects: FakeHangarProject[] = [
  { id: 1, name: 'ViaVersion', owner: 'ViaVersion', slug: 'ViaVersion', downloads: 300, versions: [{ name: '5.2.1', platforms: { PAPER: ['1.21.4'], VELOCITY: ['3.4'] }, file: { name: 'ViaVersion-5.2.1.jar', bytes: VIA_JAR } }] },
  {
    id: 3,
    name: 'ViaBackwards',
    owner: 'ViaVersion',
    slug: 'ViaBackwards',
    downloads: 200,
    versions: [
      { name: '5.2.2-SNAPSHOT', channel: 'Snapshot', platforms: { PAPER: ['1.21.4'] }, file: { name: 'ViaBackwards-5.2.2-SNAPSHOT.jar', bytes: fakeJar('snapshot') } },
      {
        name: '5.2.1',
        platforms: { PAPER: ['1.21.4'] },
        file: { name: 'ViaBackwards-5.2.1.jar', bytes: VIAB_JAR },
        dependencies: [
          { name: 'ViaVersion', projectId: 1, required: true },
          { name: 'ProtocolLib', projectId: null, required: true, externalUrl: 'https://github.com/dmulloy2/ProtocolLib' },
          { name: 'Geyser', projectId: 9, required: false },
        ],
      },
    ],
  },
  { id: 2, name: 'LuckPerms', owner: 'Luck', slug: 'LuckPerms', downloads: 100, description: 'Permissions on Hangar', versions: [{ name: '5.4.141', platforms: { PAPER: ['1.21.4'] }, file: { name: 'LuckPerms-Paper.jar', bytes: fakeJar('lp hangar') } }] },
  { id: 5, name: 'ExternalOnly', owner: 'e', slug: 'ExternalOnly', versions: [{ name: '1.0', platforms: { PAPER: ['1.21.4'] }, file: { name: 'x.jar', bytes: fakeJar('x') }, externalUrl: 'https://example.org/ExternalOnly.jar' }] },
];

const modrinth = fakeModrinth(modrinthProjects);
const hangar = fakeHangar(hangarProjects);
let c: TestController;
const pluginsDir = () => join(c.dir, 'templates', 'Survival', 'plugins');
const sha = (path: string) => digest('sha256', readFileSync(path));
const jars = () => readdirSync(pluginsDir()).filter((f) => f.endsWith('.jar')).sort();

beforeAll(async () => {
  c = await startController({ software: { modrinth_url: modrinth.url, hangar_url: hangar.url } });
  for (const group of [
    { name: 'Survival', software: 'PAPER', version: '1.21.4', minInstances: 0 },
    { name: 'Modded', software: 'FABRIC', version: '1.21.4', minInstances: 0 },
  ]) {
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  }
});
afterAll(async () => {
  await c.stop();
  modrinth.close();
  hangar.close();
});

describe('GET /api/plugins/search', () => {
  test('Modrinth and Hangar merged, each in its own order, in the documented item shape', async () => {
    const res = await c.api('/api/plugins/search?q=luck&mcVersion=1.21.4&platform=paper');
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({
      results: [
        { source: 'modrinth', name: 'LuckPerms', author: 'Luck', slug: 'luckperms', projectId: 'Vebnzrzj', description: 'A permissions plugin', downloads: 900_000 },
        { source: 'hangar', name: 'LuckPerms', author: 'Luck', slug: 'LuckPerms', projectId: '2', description: 'Permissions on Hangar', downloads: 100 },
      ],
      total: 2,
      unavailable: [],
    });
    const query = modrinth.requests.find((r) => r.startsWith('GET /v2/search'))!;
    expect(new URL(`http://x${query.slice(4)}`).searchParams.get('facets')).toBe('[["project_type:plugin"],["versions:1.21.4"],["categories:paper","categories:spigot","categories:bukkit"]]');
    expect(hangar.requests.some((r) => r.startsWith('GET /api/v1/projects?query=luck&limit=20&offset=0&platform=PAPER&version=1.21.4'))).toBe(true);
  });

  test('platform and game version filter both repositories; mods are not plugins', async () => {
    const velocity = await readJson(await c.api('/api/plugins/search?platform=velocity&mcVersion=1.21.4'));
    expect(velocity.results.map((r: { source: string; name: string }) => `${r.source}:${r.name}`)).toEqual(['modrinth:Velocitab', 'hangar:ViaVersion']);
    const all = await readJson(await c.api('/api/plugins/search?q=so'));
    expect(all.results.map((r: { name: string }) => r.name)).not.toContain('Sodium');
  });

  test('bad input is 400', async () => {
    expect((await expectErrorBody(await c.api('/api/plugins/search?platform=minestom'))).message).toContain('unknown plugin platform "minestom"');
    expect((await c.api('/api/plugins/search?limit=0')).status).toBe(400);
    expect((await c.api(`/api/plugins/search?q=${'x'.repeat(101)}`)).status).toBe(400);
  });

  test('a repository that is down is listed in `unavailable`; the other still answers; both down is 503 naming both', async () => {
    const solo = fakeModrinth(modrinthProjects);
    const d = await startController({ software: { modrinth_url: solo.url } }); // Hangar: a closed port
    try {
      const partial = await readJson(await d.api('/api/plugins/search?q=luck'));
      expect(partial.results.map((r: { source: string }) => r.source)).toEqual(['modrinth']);
      expect(partial.unavailable).toEqual([{ source: 'hangar', message: 'Hangar (http://127.0.0.1:1/api/v1/projects?query=luck&limit=20&offset=0&platform=PAPER) could not be reached: connection refused' }]);
      solo.close();
      // Not an empty result list: the dashboard reads only `results` and would say "nothing found".
      const none = await d.api('/api/plugins/search?q=perms');
      expect(none.status).toBe(503);
      const body = await expectErrorBody(none);
      expect(body.error).toBe('SERVICE_UNAVAILABLE');
      expect(body.message).toStartWith('no plugin repository could be searched: Modrinth (');
      expect(body.message).toContain('; Hangar (');
      expect(body.message).toEndWith('could not be reached: connection refused');
    } finally {
      solo.close();
      await d.stop();
    }
  });
});

describe('POST /api/plugins/install', () => {
  const install = (json: Record<string, unknown>, token?: string | null) => c.api('/api/plugins/install', { method: 'POST', json, ...(token === undefined ? {} : { token }) });

  test('Modrinth: the version for the game and platform, with its required dependency, hash-verified, into the first template', async () => {
    const res = await install({ source: 'modrinth', slug: 'luckperms', group: 'Survival', mcVersion: '1.21.4', platform: 'paper' });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toEqual({
      success: true,
      message: 'installed LuckPerms 5.4.141, PlaceholderAPI 2.11.6 into the plugins of group Survival (Minecraft 1.21.4, paper)',
      installed: [
        { name: 'LuckPerms', file: 'LuckPerms-Bukkit-5.4.141.jar', version: '5.4.141' },
        { name: 'PlaceholderAPI', file: 'PlaceholderAPI-2.11.6.jar', version: '2.11.6' },
      ],
    });
    expect(jars()).toEqual(['LuckPerms-Bukkit-5.4.141.jar', 'PlaceholderAPI-2.11.6.jar']); // the optional one is not installed
    expect(sha(join(pluginsDir(), 'LuckPerms-Bukkit-5.4.141.jar'))).toBe(digest('sha256', LP_JAR));
    expect(sha(join(pluginsDir(), 'PlaceholderAPI-2.11.6.jar'))).toBe(digest('sha256', PAPI_JAR));
    expect(modrinth.requests.some((r) => r.includes('/v2/project/Vebnzrzj/version?loaders=%5B%22paper%22%2C%22spigot%22%2C%22bukkit%22%5D&game_versions=%5B%221.21.4%22%5D'))).toBe(true);
  });

  test('again: nothing downloaded twice; a newer version replaces the old file (no duplicates)', async () => {
    const again = await readJson(await install({ source: 'modrinth', projectId: 'Vebnzrzj', group: 'Survival' })); // mcVersion and platform from the group
    expect(again.installed).toEqual([]);
    expect(again.message).toBe('nothing new to install into the plugins of group Survival (Minecraft 1.21.4, paper); already there: LuckPerms 5.4.141, PlaceholderAPI 2.11.6');
    const newer = fakeJar('LuckPerms 5.4.150');
    modrinthProjects[0]!.versions.unshift({ ...modrinthProjects[0]!.versions[0]!, id: 'lp550', version_number: '5.4.150', files: [{ filename: 'LuckPerms-Bukkit-5.4.150.jar', bytes: newer }] });
    c.controller.software.upstreams.http.clear();
    const updated = await readJson(await install({ source: 'modrinth', slug: 'luckperms', group: 'Survival' }));
    expect(updated.installed).toEqual([{ name: 'LuckPerms', file: 'LuckPerms-Bukkit-5.4.150.jar', version: '5.4.150' }]);
    expect(jars()).toEqual(['LuckPerms-Bukkit-5.4.150.jar', 'PlaceholderAPI-2.11.6.jar']);
  });

  test('Hangar: the release channel, required dependencies on Hangar fetched, the others named', async () => {
    const res = await install({ source: 'hangar', slug: 'ViaBackwards', group: 'Survival', mcVersion: '1.21.4', platform: 'paper' });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.installed).toEqual([
      { name: 'ViaBackwards', file: 'ViaBackwards-5.2.1.jar', version: '5.2.1' },
      { name: 'ViaVersion', file: 'ViaVersion-5.2.1.jar', version: '5.2.1' },
    ]);
    expect(body.message).toContain('required but not on Hangar, install by hand: ProtocolLib (https://github.com/dmulloy2/ProtocolLib)');
    expect(sha(join(pluginsDir(), 'ViaBackwards-5.2.1.jar'))).toBe(digest('sha256', VIAB_JAR));
    expect(sha(join(pluginsDir(), 'ViaVersion-5.2.1.jar'))).toBe(digest('sha256', VIA_JAR));
    expect(hangar.requests.some((r) => r.startsWith('GET /api/v1/projects/ViaBackwards/versions?platform=PAPER&platformVersion=1.21.4'))).toBe(true);
  });

  test('PLUGIN_VERSION_NOT_FOUND: no version for the game version or platform, unknown project, hosted elsewhere', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ source: 'modrinth', slug: 'oldplugin', group: 'Survival', mcVersion: '1.21.4' }, 'OldPlugin has no version on Modrinth for Minecraft 1.21.4 on paper (loaders paper, spigot, bukkit)'],
      [{ source: 'modrinth', slug: 'luckperms', group: 'Survival', platform: 'velocity' }, 'LuckPerms has no version on Modrinth for Minecraft 1.21.4 on velocity (loaders velocity)'],
      [{ source: 'modrinth', slug: 'nothing-here', group: 'Survival' }, 'Modrinth has no project "nothing-here"'],
      [{ source: 'hangar', slug: 'ViaVersion', group: 'Survival', mcVersion: '1.8.8' }, 'ViaVersion has no version on Hangar for Minecraft 1.8.8 on PAPER'],
      [{ source: 'hangar', slug: 'ExternalOnly', group: 'Survival' }, 'ExternalOnly 1.0 is not hosted on Hangar (https://example.org/ExternalOnly.jar); download it by hand'],
    ];
    for (const [json, message] of cases) {
      const res = await install(json);
      expect(res.status).toBe(404);
      expect(await expectErrorBody(res)).toEqual({ success: false, error: 'PLUGIN_VERSION_NOT_FOUND', message });
    }
  });

  test('a hash mismatch writes nothing and is 503 naming the repository and URL', async () => {
    const before = jars();
    const res = await install({ source: 'modrinth', slug: 'tampered', group: 'Survival' });
    expect(res.status).toBe(503);
    const body = await expectErrorBody(res);
    expect(body.message).toContain(`could not download Tampered 1 from Modrinth (${modrinth.url}/data/badhash1/versions/bad1/Tampered.jar): SHA512 mismatch`);
    expect(jars()).toEqual(before);
    expect(readdirSync(pluginsDir()).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  test('GROUP_NOT_FOUND, validation, modded groups', async () => {
    const missing = await install({ source: 'modrinth', slug: 'luckperms', group: 'Nope' });
    expect(missing.status).toBe(404);
    expect((await expectErrorBody(missing)).error).toBe('GROUP_NOT_FOUND');
    expect((await install({ source: 'curseforge', slug: 'luckperms', group: 'Survival' })).status).toBe(400);
    expect((await expectErrorBody(await install({ source: 'modrinth', group: 'Survival' }))).message).toBe('name the plugin by slug or projectId');
    expect((await install({ source: 'modrinth', slug: '../etc', group: 'Survival' })).status).toBe(400);
    const modded = await install({ source: 'modrinth', slug: 'luckperms', group: 'Modded' });
    expect(modded.status).toBe(400);
    expect((await expectErrorBody(modded)).message).toContain('runs FABRIC, which takes mods, not plugins');
    expect(existsSync(join(c.dir, 'templates', 'Modded', 'plugins'))).toBe(false);
  });

  test('admin only: 401 without a token, 403 with the service token', async () => {
    expect((await install({ source: 'modrinth', slug: 'luckperms', group: 'Survival' }, null)).status).toBe(401);
    const res = await install({ source: 'modrinth', slug: 'luckperms', group: 'Survival' }, c.service);
    expect(res.status).toBe(403);
    expect((await expectErrorBody(res)).error).toBe('FORBIDDEN');
    expect((await c.api('/api/plugins/search?q=x', { token: c.service })).status).toBe(403);
    expect((await c.api('/api/plugins/search?q=x', { token: null })).status).toBe(401);
  });
});
