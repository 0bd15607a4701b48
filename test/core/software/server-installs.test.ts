/**
 * FORGE/NEOFORGE servers installed on start (ServerInstalls, behind the preparer's JarSource):
 * the installer from local fakes of the Forge and NeoForge mavens, run by a fake `java`
 * (test/fixtures/fake-java.ts) that writes what the real installers write. Nothing here
 * leaves the machine.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { defaultConfig, type Config } from '../../../src/config/schema';
import { groupDefaults, type Group } from '../../../src/core/groups/model';
import { moveInstalled } from '../../../src/core/software/install-merge';
import { resolveInstaller } from '../../../src/core/software/installer-resolver';
import { JarDownloads } from '../../../src/core/software/jar-source';
import type { SoftwareName } from '../../../src/core/software/kinds';
import { ServerInstalls, type ServerInstallsDeps } from '../../../src/core/software/server-installs';
import { serviceCommand } from '../../../src/core/software/service-command';
import { Upstreams } from '../../../src/core/software/upstream/upstreams';
import { ApiError } from '../../../src/errors';
import { createLogger } from '../../../src/log';
import { writeFakeJava } from '../../fixtures/fake-java';
import { fakeForge } from '../../fixtures/upstream/forge';
import { fakeNeoForge } from '../../fixtures/upstream/neoforge';
import { gate, serveFake } from '../../fixtures/upstream/serve';
import { tempDir, waitFor } from '../../support/controller';

const logLines: string[] = [];
const log = createLogger({ format: 'json', colored: false, level: 'debug', stdout: { write: (line: string) => logLines.push(line) } });
const { dir: root, remove } = tempDir('svc-installs-');
const fakeJava = writeFakeJava(root);

const FAILURE = 'Error: Failed to download net.minecraft:server:1.20.1 (checksum mismatch)';
const twinsGate = gate();
const forge = fakeForge(
  ['1.7.10-10.13.4.1614-1.7.10', '1.12.2-14.23.5.2859', '1.20.1-47.2.0', '1.20.1-47.3.0', '1.20.1-47.4.0', '1.20.1-47.6.6', '1.20.1-47.7.7', '1.20.1-47.8.8', '1.20.1-47.9.9', '1.21.1-52.0.1'],
  { '1.20.1-recommended': '47.3.0', '1.20.1-latest': '47.4.0', '1.21.1-latest': '52.0.1', '1.12.2-recommended': '14.23.5.2859' },
  { failing: { '1.20.1-47.9.9': FAILURE }, tampered: ['1.20.1-47.6.6'], hanging: ['1.20.1-47.7.7'], universal: ['1.7.10-10.13.4.1614-1.7.10'], gates: { '1.20.1-47.8.8': twinsGate.promise } },
);
const sha1Only = fakeForge(['1.20.1-47.3.0'], { '1.20.1-recommended': '47.3.0' }, { checksums: ['sha1'] });
const noChecksums = fakeForge(['1.20.1-47.3.0'], { '1.20.1-recommended': '47.3.0' }, { checksums: [] });
const neoforge = fakeNeoForge(['21.1.76', '21.1.77', '21.1.80-beta', '21.4.1-beta'], { legacy: ['47.1.106'] });
const fakes = [forge, sha1Only, noChecksums, neoforge];
afterAll(() => {
  twinsGate.open();
  fakes.forEach((f) => f.close());
  remove();
});

const softwareConfig: Config['software'] = {
  ...defaultConfig().software,
  forge_url: forge.url,
  forge_promotions_url: forge.url,
  neoforge_url: neoforge.url,
  download_timeout: 30,
};
const javaConfig = defaultConfig().java;

function installs(overrides: Partial<Config['software']> = {}, deps: Partial<ServerInstallsDeps> = {}): ServerInstalls {
  const config = { ...softwareConfig, ...overrides };
  return new ServerInstalls({ upstreams: new Upstreams(() => config), downloadTimeoutSeconds: () => config.download_timeout, java: () => javaConfig, log, installTimeoutMs: 20_000, ...deps });
}

function group(name: string, software: SoftwareName, version: string, extra: Partial<Group> = {}): Group {
  return { ...groupDefaults(), name, software, version, javaPath: fakeJava.path, ...extra };
}

let dirs = 0;
/** A fresh group template (the first layer), in a folder of its own so its siblings can be listed. */
function template(files: Record<string, string> = {}): string {
  dirs++;
  const dir = join(root, `t${dirs}`, 'own');
  mkdirSync(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Every file under `dir` with its content: a template "as it was". */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/** Staging folders (`own.install-<hex>`) left beside a template. */
const staging = (dir: string) => readdirSync(dirname(dir)).filter((name) => name.includes('.install-'));
const installerRuns = () => fakeJava.calls().filter((call) => call.args.endsWith('--installServer'));

async function failure(work: Promise<unknown>): Promise<ApiError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('resolveInstaller: which loader build, from which URL', () => {
  const up = new Upstreams(() => softwareConfig);

  test('Forge: the group’s version, else the recommended promotion, else the latest', async () => {
    expect(await resolveInstaller(up, 'FORGE', '1.20.1', '')).toMatchObject({
      url: `${forge.url}/net/minecraftforge/forge/1.20.1-47.3.0/forge-1.20.1-47.3.0-installer.jar`,
      fileName: 'forge-1.20.1-47.3.0-installer.jar',
      loaderVersion: '47.3.0',
      label: 'Forge 47.3.0 (recommended) installer for Minecraft 1.20.1',
    });
    expect((await resolveInstaller(up, 'FORGE', '1.21.1', '')).label).toBe('Forge 52.0.1 (latest) installer for Minecraft 1.21.1');
    expect((await resolveInstaller(up, 'FORGE', '1.20.1', '47.2.0')).loaderVersion).toBe('47.2.0');
    // The game version in front is accepted, as the maven spells it.
    expect((await resolveInstaller(up, 'FORGE', '1.20.1', ' 1.20.1-47.2.0 ')).fileName).toBe('forge-1.20.1-47.2.0-installer.jar');
    // Old builds carry the game version twice in the maven.
    expect((await resolveInstaller(up, 'FORGE', '1.7.10', '10.13.4.1614')).url).toBe(`${forge.url}/net/minecraftforge/forge/1.7.10-10.13.4.1614-1.7.10/forge-1.7.10-10.13.4.1614-1.7.10-installer.jar`);
  });

  test('Forge: the strongest published checksum, SHA-256 else SHA-1', async () => {
    expect((await resolveInstaller(up, 'FORGE', '1.20.1', '')).checksum?.algorithm).toBe('sha256');
    const old = new Upstreams(() => ({ ...softwareConfig, forge_url: sha1Only.url, forge_promotions_url: sha1Only.url }));
    expect((await resolveInstaller(old, 'FORGE', '1.20.1', '')).checksum?.algorithm).toBe('sha1');
    const none = new Upstreams(() => ({ ...softwareConfig, forge_url: noChecksums.url, forge_promotions_url: noChecksums.url }));
    expect((await resolveInstaller(none, 'FORGE', '1.20.1', '')).checksum).toBeNull();
  });

  test('Forge: unknown builds and game versions name the maven or the promotions', async () => {
    expect(((await resolveInstaller(up, 'FORGE', '1.20.1', '47.0.0').catch((e: unknown) => e)) as Error).message).toBe(
      `Forge maven (${forge.url}/net/minecraftforge/forge/maven-metadata.xml): it lists no Forge 47.0.0 for Minecraft 1.20.1`,
    );
    expect(((await resolveInstaller(up, 'FORGE', '1.99', '').catch((e: unknown) => e)) as Error).message).toBe(
      `Forge promotions (${forge.url}/net/minecraftforge/forge/promotions_slim.json): it promotes no Forge build for Minecraft 1.99`,
    );
  });

  test('NeoForge: the newest release (not a beta), a beta only when there is nothing else, SHA-512', async () => {
    expect(await resolveInstaller(up, 'NEOFORGE', '1.21.1', '')).toMatchObject({
      url: `${neoforge.url}/releases/net/neoforged/neoforge/21.1.77/neoforge-21.1.77-installer.jar`,
      fileName: 'neoforge-21.1.77-installer.jar',
      loaderVersion: '21.1.77',
      checksum: { algorithm: 'sha512' },
    });
    expect((await resolveInstaller(up, 'NEOFORGE', '1.21.1', '21.1.76')).loaderVersion).toBe('21.1.76');
    expect((await resolveInstaller(up, 'NEOFORGE', '1.21.4', '')).label).toBe('NeoForge 21.4.1-beta (beta) installer for Minecraft 1.21.4');
    expect(((await resolveInstaller(up, 'NEOFORGE', '1.21.1', '21.1.99').catch((e: unknown) => e)) as Error).message).toContain('it lists no NeoForge 21.1.99 for Minecraft 1.21.1');
  });

  test('NeoForge for 1.20.1 is the net.neoforged:forge artifact and needs the build named', async () => {
    expect((await resolveInstaller(up, 'NEOFORGE', '1.20.1', '47.1.106')).url).toBe(`${neoforge.url}/releases/net/neoforged/forge/1.20.1-47.1.106/forge-1.20.1-47.1.106-installer.jar`);
    expect(((await resolveInstaller(up, 'NEOFORGE', '1.20.1', '').catch((e: unknown) => e)) as Error).message).toContain("set the group's modloaderVersion");
  });

  test('a modloaderVersion that cannot be a version is SERVICE_START_FAILED', async () => {
    const error = await failure(resolveInstaller(up, 'FORGE', '1.20.1', '../47.3.0'));
    expect(error.errorCode).toBe('SERVICE_START_FAILED');
    expect(error.message).toBe('modloaderVersion "../47.3.0" is not a loader version like 47.3.0 or 21.1.77');
  });
});

describe('ServerInstalls', () => {
  test('Forge 1.17+: installed in a staging folder, moved into the template, the operator’s files kept; the command runs the args file', async () => {
    const own = template({ 'user_jvm_args.txt': '-XX:+Operator\n', 'mods/keep.jar': 'a mod' });
    const source = installs();
    logLines.length = 0;
    await source.ensureInstalled(group('Modded', 'FORGE', '1.20.1'), [own]);

    const run = installerRuns().at(-1)!;
    expect(run.args).toBe('-jar forge-1.20.1-47.3.0-installer.jar --installServer');
    expect(run.cwd).toMatch(/\/t\d+\/own\.install-[0-9a-f]{16}$/); // never the template itself
    const files = snapshot(own);
    expect(Object.keys(files).sort()).toEqual([
      'libraries/com/example/fake-library/1.0/fake-library-1.0.jar',
      'libraries/net/minecraftforge/forge/1.20.1-47.3.0/unix_args.txt',
      'libraries/net/minecraftforge/forge/1.20.1-47.3.0/win_args.txt',
      'mods/keep.jar',
      'run.bat',
      'run.sh',
      'user_jvm_args.txt',
    ]);
    expect(files['user_jvm_args.txt']).toBe('-XX:+Operator\n'); // not overwritten
    expect(staging(own)).toEqual([]); // the installer jar and its log went with the staging folder
    expect(source.stats).toEqual({ started: 1, joined: 0 });
    expect(logLines.some((l) => l.includes('SHA256 verified'))).toBe(true);
    expect(logLines.some((l) => l.includes('installer: JVM info'))).toBe(true);
    expect(logLines.some((l) => l.includes("installed Forge 47.3.0 (recommended) installer for Minecraft 1.20.1 into the template of Modded; the template's own user_jvm_args.txt kept"))).toBe(true);

    const argv = serviceCommand(group('Modded', 'FORGE', '1.20.1'), { name: 'Modded-1', group: 'Modded', port: 30001, workDir: own }, javaConfig, 8080);
    expect(argv).toContain('@libraries/net/minecraftforge/forge/1.20.1-47.3.0/unix_args.txt');
    expect(argv.at(-1)).toBe('nogui');

    // Installed now: the next start runs nothing.
    const runs = installerRuns().length;
    await source.ensureInstalled(group('Modded', 'FORGE', '1.20.1'), [own]);
    expect(installerRuns()).toHaveLength(runs);
    expect(source.stats.started).toBe(1);
  });

  test('Forge before 1.17: the jar it writes becomes server.jar (or the jarName), which the command runs with -jar', async () => {
    const own = template();
    await installs().ensureInstalled(group('Old', 'FORGE', '1.12.2'), [own]);
    expect(readFileSync(join(own, 'server.jar'), 'utf8')).toBe('the forge server');
    expect(existsSync(join(own, 'minecraft_server.1.12.2.jar'))).toBe(true);
    expect(existsSync(join(own, 'forge-1.12.2-14.23.5.2859.jar'))).toBe(false);
    const argv = serviceCommand(group('Old', 'FORGE', '1.12.2'), { name: 'Old-1', group: 'Old', port: 30002, workDir: own }, javaConfig, 8080);
    expect(argv.slice(-3)).toEqual(['-jar', 'server.jar', 'nogui']);

    const universal = template();
    await installs().ensureInstalled(group('Older', 'FORGE', '1.7.10', { modloaderVersion: '10.13.4.1614', jarName: 'forge.jar' }), [universal]);
    expect(readFileSync(join(universal, 'forge.jar'), 'utf8')).toBe('the forge server');
    expect(existsSync(join(universal, 'forge-1.7.10-10.13.4.1614-1.7.10-universal.jar'))).toBe(false);
  });

  test('NeoForge: the newest release, installed under libraries/net/neoforged; 1.20.1 under net/neoforged/forge', async () => {
    const own = template();
    await installs().ensureInstalled(group('Neo', 'NEOFORGE', '1.21.1'), [own]);
    expect(installerRuns().at(-1)!.args).toBe('-jar neoforge-21.1.77-installer.jar --installServer');
    expect(existsSync(join(own, 'libraries/net/neoforged/neoforge/21.1.77/unix_args.txt'))).toBe(true);
    const argv = serviceCommand(group('Neo', 'NEOFORGE', '1.21.1'), { name: 'Neo-1', group: 'Neo', port: 30003, workDir: own }, javaConfig, 8080);
    expect(argv).toContain('@libraries/net/neoforged/neoforge/21.1.77/unix_args.txt');

    const legacy = template();
    await installs().ensureInstalled(group('Neo1201', 'NEOFORGE', '1.20.1', { modloaderVersion: '47.1.106' }), [legacy]);
    expect(existsSync(join(legacy, 'libraries/net/neoforged/forge/1.20.1-47.1.106/unix_args.txt'))).toBe(true);
  });

  test('nothing to do: another layer has the install or the jar, a startCommand of its own, no game version, other kinds', async () => {
    const runs = installerRuns().length;
    const source = installs();
    const own = template();
    const installed = template({ 'libraries/net/minecraftforge/forge/1.20.1-47.2.0/unix_args.txt': '-p x' });
    await source.ensureInstalled(group('A', 'FORGE', '1.20.1'), [own, installed]);
    await source.ensureInstalled(group('B', 'FORGE', '1.12.2'), [own, template({ 'server.jar': 'own jar' })]);
    await source.ensureInstalled(group('C', 'FORGE', '1.20.1', { startCommand: ['sh', 'run.sh'] }), [own]);
    await source.ensureInstalled(group('D', 'FORGE', 'latest'), [own]);
    await source.ensureInstalled(group('E', 'PAPER', '1.21.4'), [own]);
    expect(installerRuns()).toHaveLength(runs);
    expect(readdirSync(own)).toEqual([]);
    expect(source.stats).toEqual({ started: 0, joined: 0 });
  });

  test('the preparer’s JarSource hands FORGE/NEOFORGE to the installs', async () => {
    const own = template();
    const config = softwareConfig;
    const upstreams = new Upstreams(() => config);
    const source = new ServerInstalls({ upstreams, downloadTimeoutSeconds: () => 30, java: () => javaConfig, log });
    await new JarDownloads({ upstreams, timeoutSeconds: () => 30, log, installs: source }).ensureJar(group('Via', 'NEOFORGE', '1.21.1'), [own]);
    expect(source.stats.started).toBe(1);
    expect(existsSync(join(own, 'libraries/net/neoforged/neoforge/21.1.77/unix_args.txt'))).toBe(true);
  });

  test('[java] java_17 is used when the group names no Java', async () => {
    const own = template();
    const source = installs({}, { java: () => ({ ...javaConfig, java_17: fakeJava.path }) });
    await source.ensureInstalled(group('ConfigJava', 'FORGE', '1.20.1', { javaPath: '' }), [own]);
    expect(existsSync(join(own, 'run.sh'))).toBe(true);
  });

  test('concurrent starts of the same template share one install', async () => {
    const own = template();
    const source = installs();
    const g = group('Twins', 'FORGE', '1.20.1', { modloaderVersion: '47.8.8' });
    const jarRequest = 'GET /net/minecraftforge/forge/1.20.1-47.8.8/forge-1.20.1-47.8.8-installer.jar';
    const first = source.ensureInstalled(g, [own]);
    await waitFor(() => forge.requests.includes(jarRequest), { what: 'the installer download' });
    const second = source.ensureInstalled(g, [own]);
    expect(source.stats).toEqual({ started: 1, joined: 1 });
    expect(source.active).toBe(1);
    twinsGate.open();
    await Promise.all([first, second]);
    expect(forge.requests.filter((r) => r === jarRequest)).toHaveLength(1);
    expect(installerRuns().filter((r) => r.args.includes('47.8.8'))).toHaveLength(1);
    expect(existsSync(join(own, 'libraries/net/minecraftforge/forge/1.20.1-47.8.8/unix_args.txt'))).toBe(true);
    expect(source.active).toBe(0);
  });

  test('the installer fails: SERVICE_START_FAILED with the Java and its last lines, the template as it was', async () => {
    const own = template({ 'server.properties': 'motd=mine\n', 'mods/keep.jar': 'a mod' });
    const before = snapshot(own);
    const error = await failure(installs().ensureInstalled(group('Broken', 'FORGE', '1.20.1', { modloaderVersion: '47.9.9' }), [own]));
    expect(error.errorCode).toBe('SERVICE_START_FAILED');
    expect(error.message).toStartWith(
      `FORGE is not installed in the template of group Broken and could not be installed: the installer (forge-1.20.1-47.9.9-installer.jar, run with the group's javaPath "${fakeJava.path}") exited with code 1; its last lines:\n`,
    );
    expect(error.message.split('\n').at(-1)).toBe(FAILURE);
    expect(error.message).toContain('Downloading library from https://maven.example.org/');
    expect(snapshot(own)).toEqual(before);
    expect(staging(own)).toEqual([]);
  });

  test('a checksum mismatch: nothing runs, nothing is left', async () => {
    const own = template({ 'server.properties': 'motd=mine\n' });
    const runs = installerRuns().length;
    const error = await failure(installs().ensureInstalled(group('Tampered', 'FORGE', '1.20.1', { modloaderVersion: '47.6.6' }), [own]));
    expect(error.message).toStartWith('FORGE is not installed in the template of group Tampered and could not be installed: could not download Forge 47.6.6 installer for Minecraft 1.20.1 from Forge maven');
    expect(error.message).toContain(`(${forge.url}/net/minecraftforge/forge/1.20.1-47.6.6/forge-1.20.1-47.6.6-installer.jar): SHA256 mismatch`);
    expect(installerRuns()).toHaveLength(runs);
    expect(snapshot(own)).toEqual({ 'server.properties': 'motd=mine\n' });
    expect(staging(own)).toEqual([]);
  });

  test('an installer that does not finish is killed at the timeout; nothing is left', async () => {
    const own = template();
    const error = await failure(installs({}, { installTimeoutMs: 1000 }).ensureInstalled(group('Stuck', 'FORGE', '1.20.1', { modloaderVersion: '47.7.7' }), [own]));
    // Its last lines are quoted when it printed any before the kill (a loaded machine may start it late).
    expect(error.message).toMatch(/the installer \(forge-1\.20\.1-47\.7\.7-installer\.jar, run with .*\) did not finish within 1 s and was killed; (its last lines:\n|it printed nothing)/);
    expect(readdirSync(own)).toEqual([]);
    expect(staging(own)).toEqual([]);
  });

  test('no Java: the message names the one tried and where it came from', async () => {
    const own = template();
    const missing = '/nonexistent/jdk-17/bin/java';
    const error = await failure(installs().ensureInstalled(group('NoJava', 'FORGE', '1.20.1', { javaPath: missing }), [own]));
    expect(error.errorCode).toBe('SERVICE_START_FAILED');
    expect(error.message).toBe(
      `FORGE is not installed in the template of group NoJava and could not be installed: Java could not be started: the group's javaPath "${missing}" was not found: install that Java, or point the group's javaPath or the [java] key at one`,
    );
    const fromConfig = await failure(installs({}, { java: () => ({ ...javaConfig, java_21: '/opt/none/java21' }) }).ensureInstalled(group('NoJava21', 'NEOFORGE', '1.21.1', { javaPath: '' }), [own]));
    expect(fromConfig.message).toContain('Java could not be started: [java] java_21 "/opt/none/java21" was not found');
    const notExecutable = join(root, 'not-executable');
    writeFileSync(notExecutable, 'plain text');
    expect((await failure(installs().ensureInstalled(group('NoExec', 'FORGE', '1.20.1', { javaPath: notExecutable }), [own]))).message).toContain(`"${notExecutable}" is not executable`);
    expect(readdirSync(own)).toEqual([]);
    expect(staging(own)).toEqual([]);
  });

  test('upstream down: SERVICE_START_FAILED naming it and the URL, nothing left', async () => {
    const closed = serveFake(() => null);
    closed.close();
    const own = template();
    const error = await failure(installs({ forge_url: closed.url, forge_promotions_url: closed.url }).ensureInstalled(group('Off', 'FORGE', '1.20.1'), [own]));
    expect(error.message).toBe(
      `FORGE is not installed in the template of group Off and could not be installed: Forge promotions (${closed.url}/net/minecraftforge/forge/promotions_slim.json) could not be reached: connection refused`,
    );
    expect(readdirSync(dirname(own))).toEqual(['own']);
  });

  test('stale staging folders of a killed controller are tidied, fresh ones left alone', async () => {
    const own = template();
    const stale = join(dirname(own), 'own.install-0123456789abcdef');
    const fresh = join(dirname(own), 'own.install-fedcba9876543210');
    mkdirSync(stale);
    mkdirSync(fresh);
    utimesSync(stale, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
    await installs().ensureInstalled(group('Tidy', 'FORGE', '1.20.1'), [own]);
    expect(staging(own)).toEqual(['own.install-fedcba9876543210']);
    expect(statSync(join(own, 'run.sh')).isFile()).toBe(true);
  });
});

describe('moveInstalled', () => {
  test('a failure part-way undoes every rename: the template is as it was', () => {
    const from = template({ 'run.sh': 'run', 'libraries/a/b.jar': 'lib', 'libraries/x/unix_args.txt': 'args', 'new/file.txt': 'n' });
    const into = template({ 'libraries/existing.jar': 'old', 'run.sh': 'operator run' });
    const before = snapshot(into);
    let calls = 0;
    const rename = (a: string, b: string) => {
      if (++calls === 3) throw new Error('disk full');
      renameSync(a, b);
    };
    expect(() => moveInstalled(from, into, { skip: new Set(), last: ['libraries/x/unix_args.txt'], rename })).toThrow('disk full');
    expect(snapshot(into)).toEqual(before);
    expect(Object.keys(snapshot(from)).sort()).toEqual(['libraries/a/b.jar', 'libraries/x/unix_args.txt', 'new/file.txt', 'run.sh']);
  });

  test('markers move last; skipped paths and paths the template has stay', () => {
    const from = template({ 'installer.jar': 'i', 'installer.jar.log': 'l', 'zz.txt': 'z', 'libraries/x/unix_args.txt': 'args', 'aa.txt': 'a', 'keep.txt': 'theirs' });
    const into = template({ 'keep.txt': 'mine' });
    const order: string[] = [];
    const report = moveInstalled(from, into, {
      skip: new Set(['installer.jar', 'installer.jar.log']),
      last: ['libraries/x/unix_args.txt'],
      rename: (a, b) => {
        order.push(relative(into, b));
        renameSync(a, b);
      },
    });
    expect(order.at(-1)).toBe('libraries');
    expect(report).toEqual({ moved: 3, kept: ['keep.txt'] });
    expect(snapshot(into)).toEqual({ 'aa.txt': 'a', 'zz.txt': 'z', 'keep.txt': 'mine', 'libraries/x/unix_args.txt': 'args' });
  });
});
