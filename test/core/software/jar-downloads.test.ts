import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { defaultConfig, type Config } from '../../../src/config/schema';
import { groupDefaults, type Group } from '../../../src/core/groups/model';
import { DownloadError, downloadFile } from '../../../src/core/software/download';
import { JarDownloads } from '../../../src/core/software/jar-source';
import type { SoftwareName } from '../../../src/core/software/kinds';
import type { RemoteFile } from '../../../src/core/software/upstream/model';
import { Upstreams } from '../../../src/core/software/upstream/upstreams';
import { ApiError } from '../../../src/errors';
import { createLogger } from '../../../src/log';
import { fakeFabric } from '../../fixtures/upstream/fabric';
import { fakeLeaf } from '../../fixtures/upstream/leaf';
import { fakePaperMc } from '../../fixtures/upstream/papermc';
import { fakePufferfish } from '../../fixtures/upstream/pufferfish';
import { fakePurpur } from '../../fixtures/upstream/purpur';
import { digest, fakeJar, gate, jarResponse, serveFake } from '../../fixtures/upstream/serve';
import { tempDir, waitFor } from '../../support/controller';

const logLines: string[] = [];
const log = createLogger({ format: 'json', colored: false, stdout: { write: (line: string) => logLines.push(line) } });
const { dir: root, remove } = tempDir('svc-jars-');

const PAPER_JAR = fakeJar('paper 1.21.4', 256 * 1024);
const jarGate = gate();
const papermc = fakePaperMc({
  paper: {
    versions: { '1.21': ['1.21.4', '1.21.3', '1.21.1'] },
    builds: {
      '1.21.4': [
        { id: 230, jar: fakeJar('old build'), channel: 'STABLE' },
        { id: 232, jar: PAPER_JAR, channel: 'STABLE' },
        { id: 233, jar: fakeJar('experimental'), channel: 'BETA' },
      ],
      '1.21.3': [{ id: 82, jar: fakeJar('bad'), sha256: 'ab'.repeat(32) }],
      '1.21.1': [{ id: 1, jar: fakeJar('only an alpha'), channel: 'ALPHA' }],
    },
  },
  velocity: { versions: { '3.0.0': ['3.4.0-SNAPSHOT'] }, builds: { '3.4.0-SNAPSHOT': [{ id: 500, jar: fakeJar('velocity') }] } },
});
// A second PaperMC whose jars wait for the gate: downloads still running.
const gatedPaper = fakePaperMc({ paper: { versions: { '1.21': ['1.21.4'] }, builds: { '1.21.4': [{ id: 232, jar: PAPER_JAR }] } } }, { jarGate: jarGate.promise });
const purpur = fakePurpur({
  '1.21.4': [{ build: '2399', jar: fakeJar('purpur old') }, { build: '2400', jar: fakeJar('purpur') }],
  '1.21.3': [{ build: '2358', jar: fakeJar('purpur 1.21.3'), md5: '0'.repeat(32) }],
});
const leaf = fakeLeaf({ '1.21.4': [{ build: 3, jar: fakeJar('leaf 3') }, { build: 4, jar: fakeJar('leaf 4') }, { build: 5, jar: fakeJar('leaf 5'), channel: 'experimental' }] });
const pufferfish = fakePufferfish({ 'Pufferfish-1.21': [{ number: 27, mcVersion: '1.21.3', jar: fakeJar('pufferfish') }] });
const fabric = fakeFabric({ games: [{ version: '1.21.4', stable: true }], loaders: [{ version: '0.16.14', stable: true }, { version: '0.16.13', stable: true }], installers: [{ version: '1.0.3', stable: true }], jar: fakeJar('fabric') });
const fakes = [papermc, gatedPaper, purpur, leaf, pufferfish, fabric];
afterAll(() => {
  jarGate.open();
  fakes.forEach((f) => f.close());
  remove();
});

const softwareConfig: Config['software'] = {
  ...defaultConfig().software,
  papermc_url: papermc.url,
  purpur_url: purpur.url,
  leaf_url: leaf.url,
  pufferfish_url: pufferfish.url,
  fabric_url: fabric.url,
  download_timeout: 30,
};

function jarSource(overrides: Partial<Config['software']> = {}): JarDownloads {
  const config = { ...softwareConfig, ...overrides };
  return new JarDownloads({ upstreams: new Upstreams(() => config), timeoutSeconds: () => config.download_timeout, log });
}

function group(name: string, software: SoftwareName, version: string, extra: Partial<Group> = {}): Group {
  return { ...groupDefaults(), name, software, version, ...extra };
}

let dirs = 0;
/** A fresh template stack: the group's template, then a global overlay. */
function layers(): [string, string] {
  dirs++;
  const own = join(root, `t${dirs}`, 'own');
  const global = join(root, `t${dirs}`, 'global');
  mkdirSync(own, { recursive: true });
  mkdirSync(global, { recursive: true });
  return [own, global];
}

/** SHA-256 of a file on disk, to compare with what a fake served. */
const sha = (path: string) => digest('sha256', readFileSync(path));
const leftovers = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.part'));

describe('downloadFile', () => {
  const file = (url: string, checksum: RemoteFile['checksum']): RemoteFile => ({ upstream: 'Test upstream', url, label: 'the test jar', checksum });
  const bytes = fakeJar('download', 200 * 1024);
  const slowGate = gate();
  const server = serveFake((url) => {
    if (url.pathname === '/jar') return jarResponse(bytes);
    if (url.pathname === '/halves') return jarResponse(bytes, Bun.sleep(50));
    if (url.pathname === '/stall') return jarResponse(bytes, slowGate.promise);
    return null;
  });
  afterAll(() => {
    slowGate.open();
    server.close();
  });

  test('verified, written in place, progress logged (in percent when the size is known)', async () => {
    const dir = join(root, 'plain');
    logLines.length = 0;
    const result = await downloadFile(file(`${server.url}/halves`, { algorithm: 'sha256', hex: digest('sha256', bytes) }), join(dir, 'server.jar'), { timeoutMs: 5000, log, progressEveryMs: 0 });
    expect(result.bytes).toBe(bytes.length);
    expect(sha(join(dir, 'server.jar'))).toBe(digest('sha256', bytes));
    expect(leftovers(dir)).toEqual([]);
    // Bun.serve streams chunked, without a size: progress is in MB.
    expect(logLines.some((l) => l.includes('downloading the test jar: 0.1 MB'))).toBe(true);
    expect(logLines.some((l) => l.includes('SHA256 verified'))).toBe(true);

    // A CDN sends Content-Length: progress is in percent.
    const sized = createServer((_, res) => {
      res.writeHead(200, { 'content-length': String(bytes.length) });
      res.write(bytes.subarray(0, 1000));
      setImmediate(() => res.end(bytes.subarray(1000)));
    });
    await new Promise<void>((resolve) => sized.listen(0, '127.0.0.1', resolve));
    try {
      logLines.length = 0;
      const port = (sized.address() as AddressInfo).port;
      await downloadFile(file(`http://127.0.0.1:${port}/`, null), join(dir, 'sized.jar'), { timeoutMs: 5000, log, progressEveryMs: 0 });
      expect(logLines.some((l) => /downloading the test jar: \d+% \(0\.\d of 0\.2 MB\)/.test(l))).toBe(true);
      expect(logLines.some((l) => l.includes('no checksum published'))).toBe(true);
    } finally {
      sized.close();
    }
  });

  test('a checksum mismatch leaves nothing behind and names the upstream and URL', async () => {
    const dir = join(root, 'mismatch');
    const wrong = 'ff'.repeat(32);
    const error = (await downloadFile(file(`${server.url}/jar`, { algorithm: 'sha256', hex: wrong }), join(dir, 'server.jar'), { timeoutMs: 5000, log }).catch((e: unknown) => e)) as DownloadError;
    expect(error).toBeInstanceOf(DownloadError);
    expect(error.message).toBe(`could not download the test jar from Test upstream (${server.url}/jar): SHA256 mismatch: expected ${wrong}, got ${digest('sha256', bytes)}`);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('md5, sha1 and sha512 are checked too', async () => {
    for (const algorithm of ['md5', 'sha1', 'sha512'] as const) {
      const dir = join(root, `algo-${algorithm}`);
      await downloadFile(file(`${server.url}/jar`, { algorithm, hex: digest(algorithm, bytes) }), join(dir, 'a.jar'), { timeoutMs: 5000, log });
      const bad = await downloadFile(file(`${server.url}/jar`, { algorithm, hex: '00' }), join(dir, 'b.jar'), { timeoutMs: 5000, log }).catch((e: unknown) => e);
      expect((bad as Error).message).toContain(`${algorithm.toUpperCase()} mismatch`);
      expect(readdirSync(dir)).toEqual(['a.jar']);
    }
  });

  test('[software] download_timeout bounds the whole transfer; the half-written file goes', async () => {
    const dir = join(root, 'stall');
    const error = (await downloadFile(file(`${server.url}/stall`, null), join(dir, 'server.jar'), { timeoutMs: 200, log }).catch((e: unknown) => e)) as DownloadError;
    expect(error.message).toBe(`could not download the test jar from Test upstream (${server.url}/stall): it did not finish within 200 ms ([software] download_timeout)`);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('an error status and a closed port', async () => {
    const dir = join(root, 'status');
    expect(((await downloadFile(file(`${server.url}/missing`, null), join(dir, 'x.jar'), { timeoutMs: 5000, log }).catch((e: unknown) => e)) as Error).message).toEndWith(': it answered HTTP 404');
    const closed = serveFake(() => null);
    closed.close();
    expect(((await downloadFile(file(`${closed.url}/x`, null), join(dir, 'x.jar'), { timeoutMs: 5000, log }).catch((e: unknown) => e)) as Error).message).toBe(
      `could not download the test jar from Test upstream (${closed.url}/x): connection refused`,
    );
    expect(existsSync(join(dir, 'x.jar'))).toBe(false);
  });
});

describe('JarDownloads (the preparer’s JarSource)', () => {
  test('a missing PAPER jar: the newest STABLE build of the version, into the first template', async () => {
    const [own, global] = layers();
    await jarSource().ensureJar(group('Lobby', 'PAPER', '1.21.4'), [own, global]);
    expect(sha(join(own, 'server.jar'))).toBe(digest('sha256', PAPER_JAR));
    expect(existsSync(join(global, 'server.jar'))).toBe(false);
  });

  test('a version with only ALPHA builds gets its newest one; an unknown version says so', async () => {
    const [own] = layers();
    await jarSource().ensureJar(group('A', 'PAPER', '1.21.1'), [own]);
    expect(sha(join(own, 'server.jar'))).toBe(digest('sha256', fakeJar('only an alpha')));
    const error = (await jarSource().ensureJar(group('B', 'PAPER', '1.99'), [own + '-none']).catch((e: unknown) => e)) as ApiError;
    expect(error.errorCode).toBe('SERVICE_START_FAILED');
    expect(error.message).toBe(`server.jar is missing in the template of group B and could not be downloaded: PaperMC downloads service (${papermc.url}/v3/projects/paper/versions/1.99/builds): it has no paper 1.99`);
  });

  test('each downloadable kind from its upstream, checksums where published, jarName honoured', async () => {
    const cases: [SoftwareName, string, Uint8Array, Partial<Group>][] = [
      ['PURPUR', '1.21.4', fakeJar('purpur'), {}],
      ['LEAF', '1.21.4', fakeJar('leaf 4'), {}],
      ['PUFFERFISH', '1.21.3', fakeJar('pufferfish'), {}],
      ['FABRIC', '1.21.4', fakeJar('fabric'), { modloaderVersion: '0.16.13' }],
      ['VELOCITY', '3.4.0-SNAPSHOT', fakeJar('velocity'), { jarName: 'velocity.jar' }],
    ];
    for (const [software, version, expected, extra] of cases) {
      const [own] = layers();
      await jarSource().ensureJar(group(software, software, version, extra), [own]);
      expect(sha(join(own, extra.jarName ?? 'server.jar'))).toBe(digest('sha256', expected));
    }
    expect(fabric.requests.some((r) => r.startsWith('GET /v2/versions/loader/1.21.4/0.16.13/1.0.3/server/jar'))).toBe(true);
    expect(purpur.hits('/v2/purpur/1.21.4/2400/download')).toBe(1);
  });

  test('nothing is fetched when a layer has the jar, for FORGE/NEOFORGE/CUSTOM, or for a startCommand that does not name it', async () => {
    const [own, global] = layers();
    writeFileSync(join(global, 'server.jar'), 'from the overlay');
    const before = papermc.hits();
    const source = jarSource();
    await source.ensureJar(group('G', 'PAPER', '1.21.4'), [own, global]);
    for (const software of ['FORGE', 'NEOFORGE', 'CUSTOM'] as const) await source.ensureJar(group('M', software, '1.21.4', { jarName: 'x.jar' }), [own]);
    await source.ensureJar(group('S', 'PAPER', '1.21.4', { startCommand: ['./run.sh', '{port}'] }), [own]);
    expect(papermc.hits()).toBe(before);
    expect(readdirSync(own)).toEqual([]);
    await source.ensureJar(group('N', 'PAPER', '1.21.4', { startCommand: ['java', '-jar', 'server.jar'] }), [own]);
    expect(existsSync(join(own, 'server.jar'))).toBe(true);
  });

  test('concurrent starts of the same jar share one download', async () => {
    const [own] = layers();
    const source = jarSource({ papermc_url: gatedPaper.url });
    const g = group('Busy', 'PAPER', '1.21.4');
    const first = source.ensureJar(g, [own]);
    await waitFor(() => gatedPaper.hits('/v1/objects/') === 1, { what: 'the jar request' });
    const second = source.ensureJar(g, [own]);
    expect(source.stats).toEqual({ started: 1, joined: 1 });
    expect(source.active).toBe(1);
    jarGate.open();
    await Promise.all([first, second]);
    expect(gatedPaper.hits('/v1/objects/')).toBe(1);
    expect(sha(join(own, 'server.jar'))).toBe(digest('sha256', PAPER_JAR));
    expect(source.active).toBe(0);
  });

  test('a checksum mismatch fails the start and leaves no file', async () => {
    const [own] = layers();
    const error = (await jarSource().ensureJar(group('Bad', 'PAPER', '1.21.3'), [own]).catch((e: unknown) => e)) as ApiError;
    expect(error.errorCode).toBe('SERVICE_START_FAILED');
    expect(error.message).toContain('SHA256 mismatch');
    expect(error.message).toContain(`from PaperMC downloads service (${papermc.url}/v1/objects/`);
    expect(readdirSync(own)).toEqual([]);
  });

  test("Purpur's published MD5 is checked", async () => {
    const [own] = layers();
    const error = (await jarSource().ensureJar(group('P', 'PURPUR', '1.21.3'), [own]).catch((e: unknown) => e)) as ApiError;
    expect(error.message).toContain(`could not download Purpur 1.21.3 build 2358 from Purpur API (${purpur.url}/v2/purpur/1.21.3/2358/download): MD5 mismatch: expected ${'0'.repeat(32)}`);
    expect(readdirSync(own)).toEqual([]);
  });

  test('[software] download_timeout: a download that stalls fails the start and leaves nothing', async () => {
    const stalled = fakePaperMc({ paper: { versions: { '1.21': ['1.21.4'] }, builds: { '1.21.4': [{ id: 1, jar: PAPER_JAR, gate: new Promise<void>(() => undefined) }] } } });
    try {
      const [own] = layers();
      const error = (await jarSource({ papermc_url: stalled.url, download_timeout: 1 }).ensureJar(group('Slow', 'PAPER', '1.21.4'), [own]).catch((e: unknown) => e)) as ApiError;
      expect(error.errorCode).toBe('SERVICE_START_FAILED');
      expect(error.message).toEndWith('it did not finish within 1 s ([software] download_timeout)');
      expect(readdirSync(own)).toEqual([]);
    } finally {
      stalled.close();
    }
  });

  test('upstream down: SERVICE_START_FAILED naming the upstream and URL, nothing left', async () => {
    const closed = serveFake(() => null);
    closed.close();
    const [own] = layers();
    const error = (await jarSource({ papermc_url: closed.url }).ensureJar(group('Off', 'PAPER', '1.21.4'), [own]).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.errorCode).toBe('SERVICE_START_FAILED');
    expect(error.message).toBe(`server.jar is missing in the template of group Off and could not be downloaded: PaperMC downloads service (${closed.url}/v3/projects/paper/versions/1.21.4/builds) could not be reached: connection refused`);
    expect(readdirSync(own)).toEqual([]);
  });
});
