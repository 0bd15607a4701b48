/** The pack formats as read: .mrpack indexes, CurseForge manifests, server packs, page URLs. */
import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../../src/errors';
import { planCurseForge } from '../../../src/core/modpacks/curseforge-manifest';
import { loaderOfCurseForge, loaderOfMrpack } from '../../../src/core/modpacks/loader';
import { planMrpack } from '../../../src/core/modpacks/mrpack';
import { packRefOf } from '../../../src/core/modpacks/pack-ref';
import { detectServerPack } from '../../../src/core/modpacks/server-pack';

const HOSTS = new Set(['cdn.modrinth.com', 'github.com']);
const file = (path: string, server?: 'required' | 'optional' | 'unsupported', url = 'https://cdn.modrinth.com/data/x/y.jar') => ({
  path,
  hashes: { sha1: 'A'.repeat(40), sha512: 'b'.repeat(128) },
  ...(server ? { env: { client: 'required', server } } : {}),
  downloads: [url],
  fileSize: 10,
});
const index = (files: unknown[], dependencies: Record<string, string> = { minecraft: '1.21.1', neoforge: '21.1.77' }) => ({ formatVersion: 1, game: 'minecraft', versionId: 'v3', name: 'Pack', files, dependencies });

function refused(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('planMrpack', () => {
  test('server-side files planned with lower-case hashes; client-only skipped; optional kept', () => {
    const plan = planMrpack(index([file('mods/a.jar'), file('mods/b.jar', 'unsupported'), file('mods/c.jar', 'optional')]), HOSTS);
    expect(plan).toMatchObject({ name: 'Pack', version: 'v3', gameVersion: '1.21.1', loader: { software: 'NEOFORGE', loaderVersion: '21.1.77' } });
    expect(plan.downloads.map((d) => d.path)).toEqual(['mods/a.jar', 'mods/c.jar']);
    expect(plan.downloads[0]!.file).toMatchObject({ hashes: { sha1: 'a'.repeat(40), sha512: 'b'.repeat(128) }, size: 10 });
    expect(plan.skipped).toEqual([{ path: 'mods/b.jar', reason: 'client-only (env.server is unsupported)' }]);
  });

  test.each([
    ['a path leaving the folder', [file('../x.jar')], 'leave the server folder'],
    ['an absolute path', [file('/x.jar')], 'absolute'],
    ['a host not allowed', [file('mods/a.jar', 'required', 'https://evil.example/a.jar')], 'downloads only from evil.example'],
    ['a non-http URL', [file('mods/a.jar', 'required', 'file:///etc/passwd')], 'an invalid URL'],
    ['the same path twice', [file('mods/a.jar'), file('mods/a.jar')], 'twice'],
    ['no hash', [{ ...file('mods/a.jar'), hashes: {} }], 'neither a sha1 nor a sha512'],
  ])('%s is MODPACK_INVALID', (_name, files, fragment) => {
    const error = refused(() => planMrpack(index(files), HOSTS));
    expect(error.errorCode).toBe('MODPACK_INVALID');
    expect(error.message).toContain(fragment);
  });

  test('not an index, another game, another format version', () => {
    expect(refused(() => planMrpack({ files: 'x' }, HOSTS)).message).toContain('not a Modrinth index');
    expect(refused(() => planMrpack({ ...index([]), game: 'terraria' }, HOSTS)).message).toContain('terraria');
    expect(refused(() => planMrpack({ ...index([]), formatVersion: 2 }, HOSTS)).message).toContain('formatVersion 2');
  });
});

describe('loaders', () => {
  test('.mrpack dependencies', () => {
    expect(loaderOfMrpack({ minecraft: '1.20.1', 'fabric-loader': '0.15.11' })).toEqual({ software: 'FABRIC', loaderVersion: '0.15.11' });
    expect(loaderOfMrpack({ minecraft: '1.20.1', forge: '47.2.0' })).toEqual({ software: 'FORGE', loaderVersion: '47.2.0' });
    expect(refused(() => loaderOfMrpack({ minecraft: '1.20.1', 'quilt-loader': '0.26.0' })).message).toContain('Quilt');
    expect(refused(() => loaderOfMrpack({ minecraft: '1.20.1' })).message).toContain('no mod loader');
  });

  test('CurseForge modLoaders ids, the primary one first', () => {
    expect(loaderOfCurseForge([{ id: 'forge-47.2.0', primary: true }])).toEqual({ software: 'FORGE', loaderVersion: '47.2.0' });
    expect(loaderOfCurseForge([{ id: 'fabric-0.15.0' }, { id: 'neoforge-21.1.77', primary: true }])).toEqual({ software: 'NEOFORGE', loaderVersion: '21.1.77' });
    expect(refused(() => loaderOfCurseForge([{ id: 'quilt-0.20.0', primary: true }])).errorCode).toBe('MODPACK_INVALID');
  });
});

describe('planCurseForge', () => {
  const manifest = {
    minecraft: { version: '1.20.1', modLoaders: [{ id: 'forge-47.2.0', primary: true }] },
    manifestType: 'minecraftModpack',
    manifestVersion: 1,
    name: 'CF',
    version: '1.0',
    files: [
      { projectID: 1, fileID: 10, required: true },
      { projectID: 2, fileID: 20, required: false },
      { projectID: 3, fileID: 30 },
    ],
    overrides: 'overrides',
  };

  test('required files, the overrides folder, the loader', () => {
    expect(planCurseForge(manifest)).toEqual({
      name: 'CF',
      version: '1.0',
      gameVersion: '1.20.1',
      loader: { software: 'FORGE', loaderVersion: '47.2.0' },
      files: [
        { projectID: 1, fileID: 10 },
        { projectID: 3, fileID: 30 },
      ],
      optional: 1,
      overrides: 'overrides/',
    });
  });

  test('refusals: another manifest type, an overrides folder leaving the pack', () => {
    expect(refused(() => planCurseForge({ ...manifest, manifestType: 'other' })).message).toContain('manifestType');
    expect(refused(() => planCurseForge({ ...manifest, overrides: '../x' })).message).toContain('overrides folder');
    expect(refused(() => planCurseForge({ files: [] })).message).toContain('not a CurseForge modpack manifest');
  });
});

describe('detectServerPack', () => {
  test('a server directory at the top, or in one folder; what runs it from its libraries', () => {
    expect(detectServerPack(['mods/a.jar', 'server.properties'])).toEqual({ prefix: '', software: null, gameVersion: null, loaderVersion: '' });
    expect(detectServerPack(['Pack/server.jar', 'Pack/libraries/net/minecraftforge/forge/1.20.1-47.2.0/forge.jar'])).toEqual({
      prefix: 'Pack/',
      software: 'FORGE',
      gameVersion: '1.20.1',
      loaderVersion: '47.2.0',
    });
    expect(detectServerPack(['mods/a.jar', 'libraries/net/neoforged/neoforge/21.1.77/n.jar'])).toMatchObject({ software: 'NEOFORGE', gameVersion: '1.21.1', loaderVersion: '21.1.77' });
    expect(detectServerPack(['mods/a.jar', 'libraries/net/neoforged/neoforge/21.0.167/n.jar'])).toMatchObject({ gameVersion: '1.21' });
    expect(detectServerPack(['mods/a.jar', 'libraries/net/neoforged/forge/1.20.1-47.1.106/n.jar'])).toMatchObject({ software: 'NEOFORGE', gameVersion: '1.20.1' });
    expect(detectServerPack(['mods/a.jar', 'libraries/net/fabricmc/fabric-loader/0.16.0/l.jar', 'libraries/net/fabricmc/intermediary/1.21.1/i.jar'])).toMatchObject({
      software: 'FABRIC',
      gameVersion: '1.21.1',
      loaderVersion: '0.16.0',
    });
  });

  test('no mods folder and no jar at the top: not a server pack', () => {
    expect(detectServerPack(['readme.txt', 'docs/mods/a.jar'])).toBeNull();
    expect(detectServerPack(['a/mods/x.jar', 'b/server.jar'])).toBeNull();
  });
});

describe('packRefOf', () => {
  test.each([
    [{ url: 'https://modrinth.com/modpack/fabulously-optimized' }, { source: 'modrinth', project: 'fabulously-optimized', version: undefined }],
    [{ url: 'modrinth.com/modpack/cobblemon-fabric/version/1.3.2' }, { source: 'modrinth', project: 'cobblemon-fabric', version: '1.3.2' }],
    [{ url: 'https://www.curseforge.com/minecraft/modpacks/all-the-mods-9' }, { source: 'curseforge', project: 'all-the-mods-9', version: undefined }],
    [{ url: 'https://www.curseforge.com/minecraft/modpacks/atm9/files/5101213' }, { source: 'curseforge', project: 'atm9', version: '5101213' }],
    [{ id: '715572' }, { source: 'curseforge', project: '715572' }],
    [{ id: '1KVo5zza' }, { source: 'modrinth', project: '1KVo5zza' }],
    [{ id: '12345', source: 'modrinth' as const }, { source: 'modrinth', project: '12345' }],
  ])('%j', (input, expected) => {
    expect(packRefOf(input)).toEqual(expected as ReturnType<typeof packRefOf>);
  });

  test('refusals', () => {
    expect(refused(() => packRefOf({})).errorCode).toBe('VALIDATION_FAILED');
    expect(refused(() => packRefOf({ url: 'https://example.com/x' })).message).toContain('not a modpack page');
    expect(refused(() => packRefOf({ url: 'https://modrinth.com/modpack/x', source: 'curseforge' })).message).toContain('source');
  });
});
