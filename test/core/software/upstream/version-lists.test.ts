import { afterAll, describe, expect, test } from 'bun:test';
import { defaultConfig, type Config } from '../../../../src/config/schema';
import { ApiError } from '../../../../src/errors';
import { UpstreamError, UpstreamHttp } from '../../../../src/core/software/upstream/http';
import { neoforgeGameVersion } from '../../../../src/core/software/upstream/neoforge';
import { Upstreams } from '../../../../src/core/software/upstream/upstreams';
import { isPreRelease, newestFirst } from '../../../../src/core/software/upstream/version-order';
import { listLoaderVersions, listVersions } from '../../../../src/core/software/version-lists';
import { fakeFabric } from '../../../fixtures/upstream/fabric';
import { fakeForge } from '../../../fixtures/upstream/forge';
import { fakeLeaf } from '../../../fixtures/upstream/leaf';
import { fakeNeoForge } from '../../../fixtures/upstream/neoforge';
import { fakePaperMc } from '../../../fixtures/upstream/papermc';
import { fakePufferfish } from '../../../fixtures/upstream/pufferfish';
import { fakePurpur } from '../../../fixtures/upstream/purpur';
import { fakeJar, serveFake } from '../../../fixtures/upstream/serve';

const jar = fakeJar('x', 16);
const papermc = fakePaperMc({
  paper: { versions: { '1.21': ['1.21.4', '1.21.4-rc1', '1.21.3', '1.21.4-pre2'], '1.20': ['1.20.6', '1.20.4'] } },
  folia: { versions: { '1.21': ['1.21.4'] } },
  velocity: { versions: { '3.0.0': ['3.4.0-SNAPSHOT', '3.3.0-SNAPSHOT', '3.1.1'] } },
});
const purpur = fakePurpur({ '1.20.4': [{ build: '2176', jar }], '1.21.3': [{ build: '2358', jar }], '1.21.4': [{ build: '2400', jar }] });
const pufferfish = fakePufferfish({
  'Pufferfish-1.21': [
    { number: 27, mcVersion: '1.21.3', jar },
    { number: 21, mcVersion: '1.21.1', jar },
    { number: 28, mcVersion: '1.21.4', jar, result: 'FAILURE' },
  ],
  'Pufferfish-1.20': [{ number: 52, mcVersion: '1.20.4', jar }],
});
const leaf = fakeLeaf({ '1.21.4': [{ build: 3, jar }], '26.1.2': [{ build: 64, jar }], '1.21.8': [{ build: 5, jar }] });
const fabric = fakeFabric({
  games: [
    { version: '25w14a', stable: false },
    { version: '1.21.5-rc1', stable: false },
    { version: '1.21.4', stable: true },
    { version: '1.21.3', stable: true },
  ],
  loaders: [
    { version: '0.17.0-beta.1', stable: false },
    { version: '0.16.14', stable: true },
    { version: '0.16.13', stable: true },
  ],
  installers: [{ version: '1.0.3', stable: true }],
  jar,
});
const forge = fakeForge(['1.7.10-10.13.4.1614-1.7.10', '1.7.10_pre4-10.12.2.1149-prerelease', '1.20.1-47.2.0', '1.20.1-47.3.0', '1.20.1-47.10.1', '1.21.1-52.0.1'], {
  '1.20.1-latest': '47.10.1',
  '1.20.1-recommended': '47.3.0',
  '1.21.1-latest': '52.0.1',
});
const neoforge = fakeNeoForge(['0.25w14craftmine.3-beta', '20.4.237', '21.0.167', '21.1.76', '21.1.77', '21.1.80-beta', '26.1.2.71', '26.3.0.31-beta']);
const fakes = [papermc, purpur, pufferfish, leaf, fabric, forge, neoforge];
afterAll(() => fakes.forEach((f) => f.close()));

function upstreams(overrides: Partial<Config['software']> = {}, http = new UpstreamHttp()): Upstreams {
  const config: Config['software'] = {
    ...defaultConfig().software,
    papermc_url: papermc.url,
    purpur_url: purpur.url,
    pufferfish_url: `${pufferfish.url}/`, // a trailing slash is tolerated
    leaf_url: leaf.url,
    fabric_url: fabric.url,
    forge_url: forge.url,
    forge_promotions_url: forge.url,
    neoforge_url: neoforge.url,
    ...overrides,
  };
  return new Upstreams(() => config, http);
}

describe('version lists per kind (stable, snapshots, latest; newest first)', () => {
  const up = upstreams();

  test('PAPER and FOLIA from PaperMC Fill v3, pre-releases and release candidates as snapshots', async () => {
    expect(await listVersions(up, 'PAPER')).toEqual({
      software: 'PAPER',
      stable: ['1.21.4', '1.21.3', '1.20.6', '1.20.4'],
      snapshots: ['1.21.4-rc1', '1.21.4-pre2'],
      latest: '1.21.4',
    });
    expect(await listVersions(up, 'FOLIA')).toEqual({ software: 'FOLIA', stable: ['1.21.4'], snapshots: [], latest: '1.21.4' });
  });

  test("VELOCITY: -SNAPSHOT is how Velocity names every release line, so it is stable", async () => {
    expect(await listVersions(up, 'VELOCITY')).toEqual({ software: 'VELOCITY', stable: ['3.4.0-SNAPSHOT', '3.3.0-SNAPSHOT', '3.1.1'], snapshots: [], latest: '3.4.0-SNAPSHOT' });
  });

  test('PURPUR (oldest first upstream) and LEAF (unsorted upstream) come out newest first', async () => {
    expect((await listVersions(up, 'PURPUR')).stable).toEqual(['1.21.4', '1.21.3', '1.20.4']);
    expect(await listVersions(up, 'LEAF')).toEqual({ software: 'LEAF', stable: ['26.1.2', '1.21.8', '1.21.4'], snapshots: [], latest: '26.1.2' });
  });

  test('PUFFERFISH from the Jenkins artifacts of successful builds; Pufferfish-Purpur jobs ignored', async () => {
    expect(await listVersions(up, 'PUFFERFISH')).toEqual({ software: 'PUFFERFISH', stable: ['1.21.3', '1.21.1', '1.20.4'], snapshots: [], latest: '1.21.3' });
  });

  test("FABRIC keeps Fabric meta's chronological order and its stable flag", async () => {
    expect(await listVersions(up, 'FABRIC')).toEqual({ software: 'FABRIC', stable: ['1.21.4', '1.21.3'], snapshots: ['25w14a', '1.21.5-rc1'], latest: '1.21.4' });
  });

  test('FORGE game versions from the maven metadata; NEOFORGE mapped from its own numbering', async () => {
    expect(await listVersions(up, 'FORGE')).toEqual({ software: 'FORGE', stable: ['1.21.1', '1.20.1', '1.7.10'], snapshots: ['1.7.10_pre4'], latest: '1.21.1' });
    expect(await listVersions(up, 'NEOFORGE')).toEqual({ software: 'NEOFORGE', stable: ['26.3', '26.1.2', '1.21.1', '1.21', '1.20.4'], snapshots: [], latest: '26.3' });
  });

  test('CUSTOM has no versions', async () => {
    expect(await listVersions(up, 'CUSTOM')).toEqual({ software: 'CUSTOM', stable: [], snapshots: [], latest: null });
  });
});

describe('modloader versions', () => {
  const up = upstreams();

  test('FABRIC: loaders for the game version, pre-releases apart; recommended is the newest stable', async () => {
    expect(await listLoaderVersions(up, 'FABRIC', '1.21.4')).toEqual({ software: 'FABRIC', mcVersion: '1.21.4', versions: ['0.17.0-beta.1', '0.16.14', '0.16.13'], stable: ['0.16.14', '0.16.13'], snapshots: ['0.17.0-beta.1'], latest: '0.17.0-beta.1', recommended: '0.16.14' });
    expect(await listLoaderVersions(up, 'FABRIC', '1.2.5')).toEqual({ software: 'FABRIC', mcVersion: '1.2.5', versions: [], stable: [], snapshots: [], latest: null, recommended: null });
  });

  test('FORGE: maven builds of that game version newest first, latest/recommended from the promotions', async () => {
    expect(await listLoaderVersions(up, 'FORGE', '1.20.1')).toEqual({ software: 'FORGE', mcVersion: '1.20.1', versions: ['47.10.1', '47.3.0', '47.2.0'], stable: ['47.10.1', '47.3.0', '47.2.0'], snapshots: [], latest: '47.10.1', recommended: '47.3.0' });
    expect((await listLoaderVersions(up, 'FORGE', '1.7.10')).versions).toEqual(['10.13.4.1614']);
  });

  test('NEOFORGE: its versions for the game version; recommended skips betas', async () => {
    expect(await listLoaderVersions(up, 'NEOFORGE', '1.21.1')).toEqual({ software: 'NEOFORGE', mcVersion: '1.21.1', versions: ['21.1.80-beta', '21.1.77', '21.1.76'], stable: ['21.1.77', '21.1.76'], snapshots: ['21.1.80-beta'], latest: '21.1.80-beta', recommended: '21.1.77' });
    expect((await listLoaderVersions(up, 'NEOFORGE', '26.3')).recommended).toBeNull();
  });

  test('kinds without a loader are VALIDATION_FAILED naming the ones that have one', async () => {
    const error = await listLoaderVersions(up, 'PAPER', '1.21.4').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errorCode).toBe('VALIDATION_FAILED');
    expect((error as ApiError).message).toContain('FABRIC, FORGE, NEOFORGE');
  });
});

describe('the upstream client', () => {
  test('answers are cached per URL for the TTL; a failed answer is not kept', async () => {
    let now = 0;
    let fail = true;
    const flaky = serveFake((url) => (url.pathname === '/v2/purpur' ? (fail ? new Response('busy', { status: 502 }) : Response.json({ project: 'purpur', versions: ['1.21.4'] })) : null));
    try {
      const up = upstreams({ purpur_url: flaky.url }, new UpstreamHttp({ ttlMs: 1000, now: () => now }));
      const first = await listVersions(up, 'PURPUR').catch((e: unknown) => e);
      expect(first).toBeInstanceOf(UpstreamError);
      expect((first as UpstreamError).message).toBe(`Purpur API (${flaky.url}/v2/purpur) could not be reached: it answered HTTP 502`);
      fail = false;
      await listVersions(up, 'PURPUR');
      await listVersions(up, 'PURPUR');
      expect(flaky.hits('/v2/purpur')).toBe(2); // the failure, then one fetch for two asks
      now = 1001;
      await listVersions(up, 'PURPUR');
      expect(flaky.hits('/v2/purpur')).toBe(3);
    } finally {
      flaky.close();
    }
  });

  test('concurrent asks share one request', async () => {
    const up = upstreams({}, new UpstreamHttp());
    const before = neoforge.hits();
    await Promise.all([listVersions(up, 'NEOFORGE'), listVersions(up, 'NEOFORGE'), listLoaderVersions(up, 'NEOFORGE', '1.21.1')]);
    expect(neoforge.hits() - before).toBe(1);
  });

  test('an unexpected shape is an UpstreamError naming the upstream, the URL and the field, and is not cached', async () => {
    let versions: unknown = 'all of them';
    const odd = serveFake(() => Response.json({ versions }));
    try {
      const up = upstreams({ leaf_url: odd.url });
      const error = (await listVersions(up, 'LEAF').catch((e: unknown) => e)) as UpstreamError;
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error.message).toStartWith(`Leaf API (${odd.url}/v2/projects/leaf) answered in an unexpected format (/versions:`);
      versions = ['1.21.4'];
      expect((await listVersions(up, 'LEAF')).latest).toBe('1.21.4');
    } finally {
      odd.close();
    }
  });

  test('a closed port: could not be reached, connection refused', async () => {
    const closed = serveFake(() => null);
    closed.close();
    const error = (await listVersions(upstreams({ fabric_url: closed.url }), 'FABRIC').catch((e: unknown) => e)) as UpstreamError;
    expect(error.message).toBe(`Fabric meta (${closed.url}/v2/versions/game) could not be reached: connection refused`);
  });

  test('a slow upstream times out', async () => {
    // An answer held back until the test is over: the client must give up on its own.
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    const slow = serveFake(async () => {
      await released;
      return Response.json([]);
    });
    try {
      const up = upstreams({ fabric_url: slow.url }, new UpstreamHttp({ timeoutMs: 100 }));
      const error = (await listVersions(up, 'FABRIC').catch((e: unknown) => e)) as UpstreamError;
      expect(error.message).toContain('could not be reached: no answer within 100 ms');
    } finally {
      release();
      slow.close();
    }
  });
});

describe('version helpers', () => {
  test('NeoForge numbering to game versions', () => {
    expect(neoforgeGameVersion('21.1.77')).toBe('1.21.1');
    expect(neoforgeGameVersion('21.0.167')).toBe('1.21');
    expect(neoforgeGameVersion('20.4.237')).toBe('1.20.4');
    expect(neoforgeGameVersion('20.2.3-beta')).toBe('1.20.2');
    expect(neoforgeGameVersion('26.1.2.71')).toBe('26.1.2');
    expect(neoforgeGameVersion('26.3.0.31-beta')).toBe('26.3');
    expect(neoforgeGameVersion('0.25w14craftmine.3-beta')).toBeNull();
    expect(neoforgeGameVersion('nonsense')).toBeNull();
  });

  test('pre-release names and ordering', () => {
    for (const v of ['1.21-pre1', '1.20.5-rc2', '24w14a', '1.14 Pre-Release 2', '1.7.10_pre4', '3.0.0-SNAPSHOT']) expect(isPreRelease(v)).toBe(true);
    for (const v of ['1.21', '1.21.4', '26.1.2']) expect(isPreRelease(v)).toBe(false);
    expect(newestFirst(['1.9', '1.10', '1.21.4', '1.21.10', '1.21', '1.21.4'])).toEqual(['1.21.10', '1.21.4', '1.21', '1.10', '1.9']);
  });
});
