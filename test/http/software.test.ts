/**
 * /api/software/* against local fakes of the upstream services, and the jar download (or the
 * Forge/NeoForge install) a start does. Nothing here leaves the machine: every [software] URL
 * is a fake or a closed port.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expectErrorBody, readJson, startController, tempDir, waitFor, type TestController } from '../support/controller';
import { writeFakeJava, type FakeJava } from '../fixtures/fake-java';
import { fakeFabric } from '../fixtures/upstream/fabric';
import { fakeForge } from '../fixtures/upstream/forge';
import { fakeLeaf } from '../fixtures/upstream/leaf';
import { fakeNeoForge } from '../fixtures/upstream/neoforge';
import { fakePaperMc } from '../fixtures/upstream/papermc';
import { digest, fakeJar, gate } from '../fixtures/upstream/serve';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const PAPER_JAR = fakeJar('paper 1.21.4 build 232', 512 * 1024);
const TWINS_JAR = fakeJar('paper 1.20.6 build 151');
const twinsGate = gate();
const forgeTwinsGate = gate();
const FORGE_FAILURE = 'Error: Failed to download net.minecraft:server:1.20.1 (connection reset)';

const papermc = fakePaperMc({
  paper: {
    versions: { '1.21': ['1.21.4', '1.21.4-rc1', '1.21.3'], '1.20': ['1.20.6'] },
    builds: {
      '1.21.4': [{ id: 232, jar: PAPER_JAR }],
      '1.21.3': [{ id: 82, jar: fakeJar('tampered'), sha256: '0'.repeat(64) }],
      '1.20.6': [{ id: 151, jar: TWINS_JAR, gate: twinsGate.promise }],
    },
  },
});
const fabric = fakeFabric({ games: [{ version: '1.21.4', stable: true }, { version: '25w14a', stable: false }], loaders: [{ version: '0.16.14', stable: true }], installers: [{ version: '1.0.3', stable: true }], jar: fakeJar('fabric') });
// 47.3.0 (recommended) installs, 47.6.6 has a wrong checksum, 47.8.8 downloads until the gate opens, 47.9.9 fails.
const forge = fakeForge(
  ['1.20.1-47.3.0', '1.20.1-47.4.0', '1.20.1-47.6.6', '1.20.1-47.8.8', '1.20.1-47.9.9'],
  { '1.20.1-recommended': '47.3.0', '1.20.1-latest': '47.4.0' },
  { tampered: ['1.20.1-47.6.6'], gates: { '1.20.1-47.8.8': forgeTwinsGate.promise }, failing: { '1.20.1-47.9.9': FORGE_FAILURE } },
);
// 21.1.78-beta is newer but a beta: listed under snapshots, never picked for an unpinned start.
const neoforge = fakeNeoForge(['21.1.77', '21.1.78-beta']);
const leaf = fakeLeaf({ '1.21.4': [{ build: 1, jar: fakeJar('leaf') }] });
const scratch = tempDir('svc-fake-java-');
let c: TestController;

/**
 * Stands in for `java`: the built command (`<java> -Xmx… -jar server.jar --nogui`) runs it in
 * the work dir; it refuses to start unless the downloaded server.jar is there, then runs the
 * fake Paper server (which reads its port from server.properties).
 */
const FAKE_JAVA = join(scratch.dir, 'fake-java');
/** Plays both the Forge/NeoForge installer (`--installServer`) and the server it installed (test/fixtures/fake-java.ts). */
let moddedJava: FakeJava;

beforeAll(async () => {
  writeFileSync(FAKE_JAVA, `#!/bin/sh\n[ -f server.jar ] || { echo "no server.jar in $(pwd)" >&2; exit 3; }\nexec '${process.execPath}' '${FAKE_PAPER}' --max-lifetime-ms 120000\n`);
  chmodSync(FAKE_JAVA, 0o755);
  moddedJava = writeFakeJava(scratch.dir, 'fake-modded-java');
  c = await startController({
    software: { papermc_url: papermc.url, fabric_url: fabric.url, forge_url: forge.url, forge_promotions_url: forge.url, neoforge_url: neoforge.url, leaf_url: leaf.url, download_timeout: 30, contact: 'ops@example.org' },
    timing: { stopTimeoutMs: 2000 },
  });
});
afterAll(async () => {
  twinsGate.open();
  forgeTwinsGate.open();
  await c.stop();
  for (const fake of [papermc, fabric, forge, neoforge, leaf]) fake.close();
  scratch.remove();
});

describe('GET /api/software', () => {
  test('every kind with its flags inside {software:[…]}, as the dashboard reads it', async () => {
    const body = await readJson(await c.api('/api/software'));
    expect(Object.keys(body)).toEqual(['software']);
    expect(body.software.map((s: { name: string }) => s.name)).toContain('PAPER');
    expect(body.software.find((s: { name: string }) => s.name === 'FABRIC')).toEqual({ name: 'FABRIC', needsModloaderVersion: true, needsCustomJar: false, isProxy: false });
    expect(body.software.find((s: { name: string }) => s.name === 'VELOCITY')).toMatchObject({ isProxy: true });
    expect(body.software.find((s: { name: string }) => s.name === 'CUSTOM')).toMatchObject({ needsCustomJar: true });
    expect((await c.api('/api/software', { token: null })).status).toBe(401);
  });
});

describe('GET /api/software/{type}/versions', () => {
  test('stable, snapshots and latest from the upstream; the type in any case', async () => {
    const res = await c.api('/api/software/paper/versions');
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ software: 'PAPER', stable: ['1.21.4', '1.21.3', '1.20.6'], snapshots: ['1.21.4-rc1'], latest: '1.21.4' });
    expect(await readJson(await c.api('/api/software/FABRIC/versions'))).toEqual({ software: 'FABRIC', stable: ['1.21.4'], snapshots: ['25w14a'], latest: '1.21.4' });
    expect(await readJson(await c.api('/api/software/Forge/versions'))).toMatchObject({ software: 'FORGE', stable: ['1.20.1'] });
    expect(await readJson(await c.api('/api/software/CUSTOM/versions'))).toEqual({ software: 'CUSTOM', stable: [], snapshots: [], latest: null });
  });

  test('answers are cached: the dashboard asking again does not reach the upstream', async () => {
    const before = papermc.hits('/v3/projects/paper');
    for (let i = 0; i < 5; i++) expect((await c.api('/api/software/PAPER/versions')).status).toBe(200);
    expect(papermc.hits('/v3/projects/paper')).toBe(before); // the first test already fetched it
    expect(papermc.hits('/v3/projects/paper')).toBe(1);
  });

  test('an unknown type is SOFTWARE_UNKNOWN; a malformed one VALIDATION_FAILED', async () => {
    const unknown = await c.api('/api/software/spigot/versions');
    expect(unknown.status).toBe(404);
    expect((await expectErrorBody(unknown)).error).toBe('SOFTWARE_UNKNOWN');
    const bad = await c.api('/api/software/pa%20per!/versions');
    expect(bad.status).toBe(400);
    expect((await expectErrorBody(bad)).error).toBe('VALIDATION_FAILED');
  });

  test('an upstream that is down: 503 SERVICE_UNAVAILABLE naming it and its URL, never a 500', async () => {
    // PURPUR is not pointed at a fake: its URL is a closed local port.
    const res = await c.api('/api/software/purpur/versions');
    expect(res.status).toBe(503);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('SERVICE_UNAVAILABLE');
    expect(body.message).toBe('Purpur API (http://127.0.0.1:1/v2/purpur) could not be reached: connection refused');
    // A fake that was up and is closed: the cached answer would hide it, so a kind not asked yet.
    leaf.close();
    const closed = await c.api('/api/software/leaf/versions');
    expect(closed.status).toBe(503);
    expect((await expectErrorBody(closed)).message).toBe(`Leaf API (${leaf.url}/v2/projects/leaf) could not be reached: connection refused`);
  });

  test('admin only: 401 without a token, 403 with the service token', async () => {
    expect((await c.api('/api/software/paper/versions', { token: null })).status).toBe(401);
    const res = await c.api('/api/software/paper/versions', { token: c.service });
    expect(res.status).toBe(403);
    expect((await expectErrorBody(res)).error).toBe('FORBIDDEN');
    expect((await c.api('/api/software/fabric/modloader-versions?mcVersion=1.21.4', { token: c.service })).status).toBe(403);
  });
});

describe('GET /api/software/{type}/modloader-versions', () => {
  test('FABRIC, FORGE, NEOFORGE', async () => {
    expect(await readJson(await c.api('/api/software/fabric/modloader-versions?mcVersion=1.21.4'))).toEqual({
      software: 'FABRIC',
      mcVersion: '1.21.4',
      versions: ['0.16.14'],
      stable: ['0.16.14'],
      snapshots: [],
      latest: '0.16.14',
      recommended: '0.16.14',
    });
    expect(await readJson(await c.api('/api/software/forge/modloader-versions?mcVersion=1.20.1'))).toEqual({
      software: 'FORGE',
      mcVersion: '1.20.1',
      versions: ['47.9.9', '47.8.8', '47.6.6', '47.4.0', '47.3.0'],
      stable: ['47.9.9', '47.8.8', '47.6.6', '47.4.0', '47.3.0'],
      snapshots: [],
      latest: '47.4.0',
      recommended: '47.3.0',
    });
    // The dashboard offers `stable` in its select: the beta is only under snapshots.
    expect(await readJson(await c.api('/api/software/neoforge/modloader-versions?mcVersion=1.21.1'))).toEqual({
      software: 'NEOFORGE',
      mcVersion: '1.21.1',
      versions: ['21.1.78-beta', '21.1.77'],
      stable: ['21.1.77'],
      snapshots: ['21.1.78-beta'],
      latest: '21.1.78-beta',
      recommended: '21.1.77',
    });
    const before = forge.hits();
    await c.api('/api/software/forge/modloader-versions?mcVersion=1.20.1');
    await c.api('/api/software/forge/versions');
    expect(forge.hits()).toBe(before); // maven metadata and promotions both cached
  });

  test('a kind without a loader is 400 naming the ones with one; unknown type 404; mcVersion required', async () => {
    const paper = await c.api('/api/software/paper/modloader-versions?mcVersion=1.21.4');
    expect(paper.status).toBe(400);
    expect((await expectErrorBody(paper)).message).toBe('PAPER has no mod loader: modloader versions exist for FABRIC, FORGE, NEOFORGE');
    const unknown = await c.api('/api/software/quilt/modloader-versions?mcVersion=1.21.4');
    expect(unknown.status).toBe(404);
    expect((await expectErrorBody(unknown)).error).toBe('SOFTWARE_UNKNOWN');
    const missing = await c.api('/api/software/fabric/modloader-versions');
    expect(missing.status).toBe(400);
    expect((await expectErrorBody(missing)).error).toBe('VALIDATION_FAILED');
  });
});

describe('a start whose jar is missing downloads it', () => {
  const template = (group: string) => join(c.dir, 'templates', group);
  const paperGroup = (name: string, version: string) => ({ name, software: 'PAPER', version, javaPath: FAKE_JAVA, jvmOptimize: false, memory: '256M', minInstances: 0, maxInstances: 2 });
  const state = async (name: string) => (await readJson(await c.api(`/api/services/${name}`))).state as string;

  test('PAPER: the jar lands in the group template (SHA-256 verified) and the built command runs', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: paperGroup('Hub', '1.21.4') })).status).toBe(201);
    const res = await c.api('/api/services/Hub/start', { method: 'POST', token: c.service });
    expect(res.status).toBe(201);
    expect(digest('sha256', readFileSync(join(template('Hub'), 'server.jar')))).toBe(digest('sha256', PAPER_JAR));
    expect(readdirSync(template('Hub')).filter((f) => f.endsWith('.part'))).toEqual([]);
    await waitFor(async () => (await state('Hub-1')) === 'READY', { what: 'Hub-1 READY', timeoutMs: 15_000 });
    expect(c.logs.some((l) => l.includes('downloaded paper 1.21.4 build 232') && l.includes('SHA256 verified'))).toBe(true);
    // PaperMC asks for a User-Agent naming the software and a contact: metadata and jar requests alike.
    const agents = [...new Set(papermc.userAgents)];
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatch(/^svc\/\S+ \(self-hosted Minecraft network controller; \+ops@example\.org\)$/);
    expect(papermc.requests.some((r) => r.startsWith('GET /v1/objects/'))).toBe(true);
    // The next start finds the jar in the template: no second download.
    const jarHits = papermc.hits('/v1/objects/');
    expect((await c.api('/api/services/Hub/start', { method: 'POST', token: c.service })).status).toBe(201);
    expect(papermc.hits('/v1/objects/')).toBe(jarHits);
    for (const name of ['Hub-1', 'Hub-2']) await c.api(`/api/services/${name}/stop`, { method: 'POST' });
  });

  test('a checksum mismatch: the start fails with SERVICE_START_FAILED and no file is left', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: paperGroup('Tampered', '1.21.3') })).status).toBe(201);
    const res = await c.api('/api/services/Tampered/start', { method: 'POST', token: c.service });
    expect(res.status).toBe(409);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('SERVICE_START_FAILED');
    expect(body.message).toContain('server.jar is missing in the template of group Tampered and could not be downloaded');
    expect(body.message).toContain(`from PaperMC downloads service (${papermc.url}/v1/objects/`);
    expect(body.message).toContain(`SHA256 mismatch: expected ${'0'.repeat(64)}`);
    expect(readdirSync(template('Tampered'))).toEqual([]);
  });

  test('two concurrent starts of the same group share one download', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: paperGroup('Twins', '1.20.6') })).status).toBe(201);
    const { jars } = c.controller.software;
    const joinedBefore = jars.stats.joined;
    const starts = [1, 2].map(() => c.api('/api/services/Twins/start', { method: 'POST', token: c.service }));
    await waitFor(() => jars.stats.joined === joinedBefore + 1, { what: 'the second start to join the running download' });
    expect(papermc.requests.filter((r) => r.includes('paper-1.20.6-151.jar'))).toHaveLength(1);
    twinsGate.open();
    const responses = await Promise.all(starts);
    expect(responses.map((r) => r.status)).toEqual([201, 201]);
    expect(papermc.requests.filter((r) => r.includes('paper-1.20.6-151.jar'))).toHaveLength(1);
    expect(digest('sha256', readFileSync(join(template('Twins'), 'server.jar')))).toBe(digest('sha256', TWINS_JAR));
    await waitFor(async () => (await state('Twins-1')) === 'READY' && (await state('Twins-2')) === 'READY', { what: 'both READY', timeoutMs: 15_000 });
    for (const name of ['Twins-1', 'Twins-2']) await c.api(`/api/services/${name}/stop`, { method: 'POST' });
  });

  test('no upstream: the start fails naming it and the URL, nothing is left', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: { ...paperGroup('Offline', '1.21.4'), software: 'PURPUR' } })).status).toBe(201);
    const res = await c.api('/api/services/Offline/start', { method: 'POST', token: c.service });
    expect(res.status).toBe(409);
    expect((await expectErrorBody(res)).message).toBe(
      'Offline-1: server.jar is missing in the template of group Offline and could not be downloaded: Purpur API (http://127.0.0.1:1/v2/purpur/1.21.4) could not be reached: connection refused',
    );
    expect(existsSync(join(template('Offline'), 'server.jar'))).toBe(false);
  });
});

describe('a FORGE/NEOFORGE start whose template lacks the server installs it', () => {
  const template = (group: string) => join(c.dir, 'templates', group);
  const moddedGroup = (name: string, software: 'FORGE' | 'NEOFORGE', version: string, extra: Record<string, unknown> = {}) => ({
    name,
    software,
    version,
    javaPath: moddedJava.path,
    jvmOptimize: false,
    memory: '256M',
    minInstances: 0,
    maxInstances: 2,
    ...extra,
  });
  const state = async (name: string) => (await readJson(await c.api(`/api/services/${name}`))).state as string;
  const installerRuns = () => moddedJava.calls().filter((call) => call.args.endsWith('--installServer'));
  const serverRuns = () => moddedJava.calls().filter((call) => !call.args.endsWith('--installServer'));
  const stagingLeft = () => readdirSync(join(c.dir, 'templates')).filter((name) => name.includes('.install-'));
  const start = (group: string) => c.api(`/api/services/${group}/start`, { method: 'POST', token: c.service });
  /** Every file of a template with its content. */
  const snapshot = (dir: string): Record<string, string> => {
    const out: Record<string, string> = {};
    const walk = (at: string) => {
      for (const entry of readdirSync(at, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(at, entry.name));
        else out[relative(dir, join(at, entry.name))] = readFileSync(join(at, entry.name), 'utf8');
      }
    };
    walk(dir);
    return out;
  };

  test('FORGE: the recommended build is installed into the template, then the server runs from its unix_args.txt', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: moddedGroup('Modded', 'FORGE', '1.20.1') })).status).toBe(201);
    expect((await start('Modded')).status).toBe(201);
    const args = 'libraries/net/minecraftforge/forge/1.20.1-47.3.0/unix_args.txt';
    expect(existsSync(join(template('Modded'), args))).toBe(true);
    expect(existsSync(join(template('Modded'), 'run.sh'))).toBe(true);
    expect(readdirSync(template('Modded')).filter((f) => f.includes('installer'))).toEqual([]); // neither the jar nor its log
    expect(stagingLeft()).toEqual([]);
    await waitFor(async () => (await state('Modded-1')) === 'READY', { what: 'Modded-1 READY', timeoutMs: 15_000 });
    expect(installerRuns().map((r) => r.args)).toEqual(['-jar forge-1.20.1-47.3.0-installer.jar --installServer']);
    const server = serverRuns().at(-1)!;
    expect(server.cwd).toMatch(/\/services\/.*Modded-1/); // the service's work dir, a copy of the template
    expect(server.args).toEndWith(`-Dsvc.service.name=Modded-1 -Dsvc.service.group=Modded -Dsvc.service.port=${server.args.match(/svc\.service\.port=(\d+)/)![1]} -Dsvc.api.url=http://127.0.0.1:${c.controller.port} @${args} nogui`);
    expect(c.logs.some((l) => l.includes('installed Forge 47.3.0 (recommended) installer for Minecraft 1.20.1 into the template of Modded'))).toBe(true);

    // The next start finds the install in the template.
    const { installs } = c.controller.software;
    const started = installs.stats.started;
    expect((await start('Modded')).status).toBe(201);
    expect(installs.stats.started).toBe(started);
    expect(installerRuns()).toHaveLength(1);
    await waitFor(async () => (await state('Modded-2')) === 'READY', { what: 'Modded-2 READY', timeoutMs: 15_000 });
    for (const name of ['Modded-1', 'Modded-2']) await c.api(`/api/services/${name}/stop`, { method: 'POST' });
  });

  test('NEOFORGE: the newest release for the game version, run from its unix_args.txt', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: moddedGroup('Neo', 'NEOFORGE', '1.21.1') })).status).toBe(201);
    expect((await start('Neo')).status).toBe(201);
    await waitFor(async () => (await state('Neo-1')) === 'READY', { what: 'Neo-1 READY', timeoutMs: 15_000 });
    expect(installerRuns().at(-1)!.args).toBe('-jar neoforge-21.1.77-installer.jar --installServer');
    expect(serverRuns().at(-1)!.args).toEndWith('@libraries/net/neoforged/neoforge/21.1.77/unix_args.txt nogui');
    expect(c.logs.some((l) => l.includes('SHA512 verified'))).toBe(true);
    await c.api('/api/services/Neo-1/stop', { method: 'POST' });
  });

  test('the installer fails: 409 SERVICE_START_FAILED with its last line, the template as it was', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: moddedGroup('ForgeBroken', 'FORGE', '1.20.1', { modloaderVersion: '47.9.9' }) })).status).toBe(201);
    mkdirSync(join(template('ForgeBroken'), 'mods'), { recursive: true });
    writeFileSync(join(template('ForgeBroken'), 'mods', 'keep.jar'), 'a mod');
    writeFileSync(join(template('ForgeBroken'), 'server.properties'), 'motd=mine\n');
    const before = snapshot(template('ForgeBroken'));
    const res = await start('ForgeBroken');
    expect(res.status).toBe(409);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('SERVICE_START_FAILED');
    expect(body.message).toContain(`FORGE is not installed in the template of group ForgeBroken and could not be installed: the installer (forge-1.20.1-47.9.9-installer.jar, run with the group's javaPath "${moddedJava.path}") exited with code 1; its last lines:`);
    expect(body.message.split('\n').at(-1)).toBe(FORGE_FAILURE);
    expect(snapshot(template('ForgeBroken'))).toEqual(before);
    expect(stagingLeft()).toEqual([]);
  });

  test('a checksum mismatch: 409 naming the URL, the installer never runs', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: moddedGroup('ForgeTampered', 'FORGE', '1.20.1', { modloaderVersion: '47.6.6' }) })).status).toBe(201);
    const runs = installerRuns().length;
    const res = await start('ForgeTampered');
    expect(res.status).toBe(409);
    const body = await expectErrorBody(res);
    expect(body.message).toContain(`from Forge maven (${forge.url}/net/minecraftforge/forge/1.20.1-47.6.6/forge-1.20.1-47.6.6-installer.jar): SHA256 mismatch`);
    expect(installerRuns()).toHaveLength(runs);
    expect(readdirSync(template('ForgeTampered'))).toEqual([]);
    expect(stagingLeft()).toEqual([]);
  });

  test('two concurrent starts of the same group share one install', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: moddedGroup('ForgeTwins', 'FORGE', '1.20.1', { modloaderVersion: '47.8.8' }) })).status).toBe(201);
    const { installs } = c.controller.software;
    const joinedBefore = installs.stats.joined;
    const starts = [1, 2].map(() => start('ForgeTwins'));
    await waitFor(() => installs.stats.joined === joinedBefore + 1, { what: 'the second start to join the running install' });
    forgeTwinsGate.open();
    expect((await Promise.all(starts)).map((r) => r.status)).toEqual([201, 201]);
    expect(installerRuns().filter((r) => r.args.includes('47.8.8'))).toHaveLength(1);
    expect(forge.requests.filter((r) => r === 'GET /net/minecraftforge/forge/1.20.1-47.8.8/forge-1.20.1-47.8.8-installer.jar')).toHaveLength(1);
    await waitFor(async () => (await state('ForgeTwins-1')) === 'READY' && (await state('ForgeTwins-2')) === 'READY', { what: 'both READY', timeoutMs: 15_000 });
    for (const name of ['ForgeTwins-1', 'ForgeTwins-2']) await c.api(`/api/services/${name}/stop`, { method: 'POST' });
  });

  test('no Java: 409 naming the Java tried and where it came from', async () => {
    const missing = '/nonexistent/jdk-17/bin/java';
    expect((await c.api('/api/groups', { method: 'POST', json: moddedGroup('ForgeNoJava', 'FORGE', '1.20.1', { javaPath: missing }) })).status).toBe(201);
    const res = await start('ForgeNoJava');
    expect(res.status).toBe(409);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('SERVICE_START_FAILED');
    expect(body.message).toContain(`could not be installed: Java could not be started: the group's javaPath "${missing}" was not found`);
    expect(readdirSync(template('ForgeNoJava'))).toEqual([]);
    expect(stagingLeft()).toEqual([]);
  });
});
