/**
 * README's "From a fresh machine to a proxy and a lobby", command by command, against the
 * compiled binary: `svc init`, the keys to edit, `svc doctor`, the controller as under systemd
 * (no terminal), `svc cli --dir` with `group create` for a Velocity proxy and a Paper lobby,
 * `list` until both are READY, `status`, `svc restart` keeping both, `svc doctor` again.
 *
 * What the test changes, and why: the PaperMC mirror is a local fake (no network here) serving a
 * compiled Java stand-in (test/fixtures/java/FakeServer.java) as both the Velocity and the Paper
 * jar, so the servers are real `java -jar` processes started with svc's own commands; the API
 * port is 0 (others may hold 8080); `svc` runs as the test's user instead of `sudo -u svc`. Needs
 * java and javac; a real JVM start and two downloads take a while, so a fault suite.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { killGameServers, LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';
import { fakePaperMc } from '../fixtures/upstream/papermc';

const JAVA = Bun.which('java');
const JAVAC = Bun.which('javac');
const FAKE_SERVER_JAVA = join(import.meta.dir, '../fixtures/java/FakeServer.java');
let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 180_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

/** FakeServer.java compiled and packaged as a runnable jar. */
async function fakeServerJar(javac: string): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-walkthrough-java-'));
  try {
    const compile = Bun.spawnSync([javac, '-encoding', 'UTF-8', '-d', dir, FAKE_SERVER_JAVA], { stdout: 'pipe', stderr: 'pipe' });
    if (compile.exitCode !== 0) throw new Error(`javac failed: ${compile.stderr.toString()}`);
    return zipSync({
      'META-INF/MANIFEST.MF': new TextEncoder().encode('Manifest-Version: 1.0\r\nMain-Class: FakeServer\r\n\r\n'),
      'FakeServer.class': new Uint8Array(readFileSync(join(dir, 'FakeServer.class'))),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const env = () => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' });
const run = (...args: string[]) => {
  const result = Bun.spawnSync([svc, ...args], { env: env(), stdout: 'pipe', stderr: 'pipe' });
  return { status: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
};

describe('README walkthrough (compiled binary, real java -jar)', () => {
  test.skipIf(!JAVA || !JAVAC)('init, the keys, doctor, start, a proxy and a lobby, list, status, restart, doctor', async () => {
    const jar = await fakeServerJar(JAVAC!);
    const mirror = fakePaperMc({
      paper: { versions: { '1.21': ['1.21.1'] }, builds: { '1.21.1': [{ id: 133, jar }] } },
      velocity: { versions: { '3.4.0': ['3.4.0-SNAPSHOT'] }, builds: { '3.4.0-SNAPSHOT': [{ id: 500, jar }] } },
    });
    cleanups.push(() => mirror.close());
    const { dir, remove } = tempDir('svc-walkthrough-');
    cleanups.push(remove);
    cleanups.push(() => killGameServers(dir, []));

    // 3. svc init
    const init = run('init', '--dir', dir);
    expect(init.status).toBe(0);
    expect(init.stdout).toContain('Next steps:');

    // 4. the keys to edit (each is in the file written by init, with its default)
    const file = join(dir, 'svc.toml');
    let toml = readFileSync(file, 'utf8');
    const edit = (from: RegExp, to: string) => {
      expect(toml).toMatch(from);
      toml = toml.replace(from, to);
    };
    edit(/^name = "svc"$/m, 'name = "walkthrough"');
    edit(/^java_21 = ""$/m, `java_21 = ${JSON.stringify(JAVA!)}`);
    edit(/^port = 8080$/m, 'port = 0');
    edit(/^max_memory = "10G"$/m, 'max_memory = "4G"');
    // `[services] isolation` stays "auto" (the sandbox where it runs). Test plumbing: the local PaperMC mirror.
    edit(/^papermc_url = ".*"$/m, `papermc_url = ${JSON.stringify(mirror.url)}`);
    writeFileSync(file, toml);

    // 5. svc doctor: runs and reports (its verdict depends on the machine)
    const doctor = run('doctor', '--dir', dir);
    expect([0, 1]).toContain(doctor.status);
    expect(doctor.stdout).toContain('isolation');

    // 6. start it, as under systemd: no terminal
    const controller = Bun.spawn([svc, '--dir', dir], { env: env(), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    cleanups.push(() => controller.kill('SIGKILL'));
    const out = new LineCollector(controller.stdout);
    await out.waitForLine((l) => l.includes('svc 0.13.0 started:') && l.includes(`dir ${dir}`), 30_000);
    await out.waitForLine((l) => l.includes('backups run on their own'));

    // 7. the groups, through svc cli --dir
    const cli = (command: string) => run('cli', '--dir', dir, '-c', command);
    const proxy = cli('group create Proxy VELOCITY 3.4.0-SNAPSHOT --min 1');
    expect(proxy.stdout).toContain('✓ group Proxy created: VELOCITY 3.4.0-SNAPSHOT');
    expect(proxy.status).toBe(0);
    const lobby = cli('group create Lobby PAPER 1.21.1 --type LOBBY --min 1');
    expect(lobby.stdout).toContain('✓ group Lobby created: PAPER 1.21.1, LOBBY');
    expect(lobby.status).toBe(0);
    // the scaling engine starts each group's minimum within a tick; the jars come from the mirror
    const listed = await waitFor(
      () => {
        const list = cli('list');
        return /Proxy-1 {2}READY/.test(list.stdout) && /Lobby-1 {2}READY/.test(list.stdout) ? list.stdout : null;
      },
      { what: 'Proxy-1 and Lobby-1 READY in `list`', timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(listed).toContain('2 service(s)');
    const status = cli('status');
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('walkthrough: online');
    expect(readFileSync(join(dir, 'templates/Lobby/server.jar'))).toEqual(Buffer.from(jar));
    expect(readFileSync(join(dir, 'templates/Proxy/server.jar'))).toEqual(Buffer.from(jar));
    expect(mirror.hits('/v1/objects/')).toBe(2);
    // really java -jar, started by svc's own command for each kind
    const api = async (path: string) => {
      const note = JSON.parse(readFileSync(join(dir, 'svc.lock'), 'utf8').split('\n')[0]!) as { api: string };
      const token = readFileSync(join(dir, 'data/api-token'), 'utf8').trim();
      return readJson(await fetch(note.api + path, { headers: { authorization: `Bearer ${token}` } }));
    };
    const before = { proxy: (await api('/api/services/Proxy-1')).pid as number, lobby: (await api('/api/services/Lobby-1')).pid as number };
    cleanups.push(() => killGameServers(dir, [before.proxy, before.lobby]));
    for (const pid of [before.proxy, before.lobby]) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('server.jar');

    // 8. day two: a restart in place keeps both servers
    const restart = run('restart', '--dir', dir);
    expect(restart.stderr).toBe('');
    expect(restart.status).toBe(0);
    expect((await api('/api/services/Proxy-1')).pid).toBe(before.proxy);
    expect((await api('/api/services/Lobby-1')).pid).toBe(before.lobby);
    const again = run('doctor', '--dir', dir);
    expect([0, 1]).toContain(again.status);

    controller.kill('SIGTERM');
    expect(await controller.exited).toBe(0);
    await out.waitForLine((l) => l.includes('Proxy-1 stopped'));
    await out.waitForLine((l) => l.includes('Lobby-1 stopped'));
  }, 240_000);
});
