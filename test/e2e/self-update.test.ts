/**
 * Self-update through the compiled binary, against a local fake of the GitHub releases API
 * (test/support/release-feed.ts) serving real svc builds made as other versions. A real
 * flying-squid server runs under the controller the whole time: an update swaps the binary and
 * execs it in the controller's place, and the server must keep its pid and answer its console.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { pidAlive } from '../../src/core/supervisor/process/pid-probe';
import { LineCollector, startBinaryController, svcBinary, svcBinaryAs } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';
import { startReleaseFeed, type ReleaseFeed } from '../support/release-feed';

const FLYING_SQUID = join(import.meta.dir, '../fixtures/flying-squid-server.ts');
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const TOKEN = 'self-update-test-token-0123456789abcdef';
const CLUSTER_TOKEN = 'self-update-cluster-token-0123456789abc';
const [MAJOR, MINOR, PATCH] = pkg.version.split('.').map(Number) as [number, number, number];
const CURRENT = pkg.version;
const NEXT_PATCH = `${MAJOR}.${MINOR}.${PATCH + 1}`;
const NEXT_MAJOR = `${MAJOR + 1}.0.0`;

let svc: string;
let nextBuild: string;
let feed: ReleaseFeed;
const cleanups: (() => void)[] = [];

/** A private copy of the binary in its own folder (an update renames files there). */
function installCopy(root: string): string {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  const target = join(bin, 'svc');
  try {
    linkSync(svc, target);
  } catch {
    copyFileSync(svc, target);
  }
  return target;
}

function writeConfig(dir: string, extra = ''): void {
  writeFileSync(join(dir, 'svc.toml'), `[controller]\nupdate_check_url = "${feed.latestUrl}"\n${extra}\n[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n`);
}

async function run(args: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(args, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

/** The API of whichever process now owns the controller's pid: the URL of its newest "API listening" line. */
function latestApi(out: LineCollector) {
  const line = [...out.lines].reverse().find((l) => l.includes('API listening'))!;
  const url = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
  return (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers } });
}

/** A port nothing listens on now. */
function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

const listeningLines = (out: LineCollector) => out.lines.filter((l) => l.includes('API listening')).length;

beforeAll(async () => {
  svc = await svcBinary();
  nextBuild = await svcBinaryAs(NEXT_PATCH);
  feed = startReleaseFeed();
  cleanups.push(() => feed.stop());
}, 180_000);

afterAll(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
});

describe('a running controller with a game server', () => {
  let dir: string;
  let binary: string;
  let controller: Awaited<ReturnType<typeof startBinaryController>>;
  let servicePid: number;

  const api = (path: string, init: RequestInit = {}) => latestApi(controller.out)(path, init);
  const job = async () => readJson(await api('/api/controller/update'));
  const settled = () => waitFor(async () => ((await job()).state.match(/^(failed|checked|up-to-date|idle)$/) ? job() : null), { what: 'the update job to end', timeoutMs: 60_000 });
  const leftovers = () => readdirSync(join(dir, 'bin')).filter((name) => name.startsWith('.'));

  beforeAll(async () => {
    const temp = tempDir('svc-self-update-');
    dir = temp.dir;
    cleanups.push(temp.remove);
    binary = installCopy(dir);
    writeConfig(dir, `update_public_key = "${feed.publicKey}"\n`);
    controller = await startBinaryController(binary, dir, TOKEN, cleanups);
    const squid = {
      name: 'Squid',
      software: 'CUSTOM',
      version: '1.21.4',
      jarName: 'server.jar',
      startCommand: [process.execPath, FLYING_SQUID, '--port', '{port}'],
      readyPattern: 'Server listening on port',
      minInstances: 1,
      maxInstances: 1,
      memory: '512M',
      drainTimeout: 0,
    };
    expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(squid) })).status).toBe(201);
    const ready = await waitFor(
      async () => {
        const view = await readJson(await api('/api/services/Squid-1'));
        return view.state === 'READY' ? view : null;
      },
      { what: 'Squid-1 READY', timeoutMs: 60_000 },
    );
    servicePid = ready.pid;
    cleanups.push(() => {
      try {
        process.kill(servicePid, 'SIGKILL');
      } catch {}
    });
  }, 90_000);

  afterAll(async () => {
    if (controller.child.exitCode === null) {
      controller.child.kill('SIGTERM');
      await controller.child.exited;
    }
  });

  /** The console answers: `ping <n>` makes flying-squid print `pong [n+1]!` (it reads one digit). */
  async function consoleAnswers(n: number): Promise<void> {
    expect((await api('/api/services/Squid-1/exec', { method: 'POST', body: JSON.stringify({ command: `ping ${n}` }) })).status).toBe(200);
    await waitFor(async () => ((await readJson(await api('/api/services/Squid-1/logs?source=stdout&lines=50'))).lines as string[]).some((l) => l.includes(`pong [${n + 1}]!`)), { what: `pong [${n + 1}]` });
  }

  test('a refused update names its reason and leaves the binary as it was', async () => {
    const before = statSync(binary);
    const arm = join(dir, 'other-platform.bin');
    const header = Buffer.alloc(4096);
    header.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0);
    header.writeUInt16LE(process.arch === 'arm64' ? 62 : 183, 18);
    writeFileSync(arm, header);
    const cases = [
      { version: `${MAJOR}.${MINOR}.${PATCH + 11}`, binary: nextBuild, fault: 'wrong-hash' as const, reason: /SHA-256 of the downloaded .* is [0-9a-f]{64}, but SHA256SUMS says/ },
      { version: `${MAJOR}.${MINOR}.${PATCH + 12}`, binary: nextBuild, fault: 'bad-signature' as const, reason: /signature over SHA256SUMS .* does not verify with update_public_key/ },
      { version: `${MAJOR}.${MINOR}.${PATCH + 13}`, binary: nextBuild, fault: 'truncated' as const, reason: /truncated download, \d+ of \d+ bytes/ },
      { version: `${MAJOR}.${MINOR}.${PATCH + 14}`, binary: arm, fault: 'none' as const, reason: /for another CPU .*this machine needs/ },
      { version: `${MAJOR}.${MINOR}.${PATCH + 15}`, binary: nextBuild, fault: 'no-sums' as const, reason: /has no SHA256SUMS/ },
    ];
    for (const spoiled of cases) {
      feed.publish(spoiled);
      const started = await api('/api/controller/update', { method: 'POST', body: JSON.stringify({ version: spoiled.version }) });
      expect(started.status).toBe(202);
      const result = await settled();
      expect(result).toMatchObject({ state: 'failed', action: 'update', targetVersion: spoiled.version, currentVersion: CURRENT, requestedBy: 'api:admin' });
      expect(result.error).toMatch(spoiled.reason);
      const after = statSync(binary);
      expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
      expect(leftovers()).toEqual([]);
      expect(existsSync(`${binary}.previous`)).toBe(false);
    }
    // A bad signature is found before the binary is fetched at all.
    expect(feed.requests.filter((path) => path.startsWith(`/download/${cases[1]!.version}/`))).toEqual([`/download/${cases[1]!.version}/SHA256SUMS`, `/download/${cases[1]!.version}/SHA256SUMS.sig`]);
    expect((await readJson(await api('/api/health'))).version).toBe(CURRENT);
    // A second request while none runs is accepted again; a malformed version is a 400 with the error body.
    const bad = await api('/api/controller/update', { method: 'POST', body: JSON.stringify({ version: 'latest' }) });
    expect(bad.status).toBe(400);
    expect((await readJson(bad)).success).toBe(false);
  }, 120_000);

  test('svc update --yes: the controller swaps its binary and execs it; the game server keeps its pid and its console', async () => {
    feed.publish({ version: NEXT_PATCH, binary: nextBuild });
    feed.setLatest(NEXT_PATCH);
    await consoleAnswers(2);
    const before = listeningLines(controller.out);
    const result = await run([binary, 'update', '--yes', '--dir', dir], { SVC_API_TOKEN: TOKEN });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`svc ${CURRENT} → ${NEXT_PATCH}; every service kept running`);
    expect(listeningLines(controller.out)).toBe(before + 1);
    // Same process (exec, not a new child), now the new version.
    expect(controller.child.exitCode).toBeNull();
    expect((await readJson(await api('/api/health'))).version).toBe(NEXT_PATCH);
    expect((await run([binary, '--version'])).stdout.trim()).toBe(`svc ${NEXT_PATCH}`);
    expect((await run([`${binary}.previous`, '--version'])).stdout.trim()).toBe(`svc ${CURRENT}`);
    // The directory's lock went over with the exec: the new binary holds it, a second controller is refused.
    const lock = await waitFor(() => {
      const note = JSON.parse(readFileSync(join(dir, 'svc.lock'), 'utf8').split('\n')[0]!) as { pid: number; version: string; state: string };
      return note.version === NEXT_PATCH && note.state === 'ready' ? note : null;
    }, { what: 'the lock note of the new binary' });
    expect(lock.pid).toBe(controller.child.pid!);
    const second = await run([binary, '--dir', dir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`another controller, pid ${controller.child.pid}, runs here`);
    // The game server was never restarted, and the new controller talks to it.
    expect(pidAlive(servicePid)).toBe(true);
    const view = await readJson(await api('/api/services/Squid-1'));
    expect(view).toMatchObject({ state: 'READY', pid: servicePid });
    await consoleAnswers(4);
    const audit = await readJson(await api('/api/audit?action=SVC_UPDATE_APPLIED'));
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0].details).toContain(NEXT_PATCH);
    expect((await readJson(await api('/api/audit?action=SVC_UPDATE_REQUESTED'))).entries.length).toBeGreaterThanOrEqual(6);
  }, 120_000);

  test('svc update --rollback --yes puts the previous binary back, again without touching the game server', async () => {
    const before = listeningLines(controller.out);
    const result = await run([binary, 'update', '--rollback', '--yes', '--dir', dir], { SVC_API_TOKEN: TOKEN });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`svc ${NEXT_PATCH} → ${CURRENT}`);
    expect(listeningLines(controller.out)).toBe(before + 1);
    expect((await readJson(await api('/api/health'))).version).toBe(CURRENT);
    expect((await run([binary, '--version'])).stdout.trim()).toBe(`svc ${CURRENT}`);
    expect((await run([`${binary}.previous`, '--version'])).stdout.trim()).toBe(`svc ${NEXT_PATCH}`);
    expect((await readJson(await api('/api/services/Squid-1'))).pid).toBe(servicePid);
    await consoleAnswers(6);
  }, 120_000);
});

describe('svc update without a controller', () => {
  test('--check, a refusal without a terminal, --dry-run, then the binary updates itself', async () => {
    const temp = tempDir('svc-self-update-cli-');
    cleanups.push(temp.remove);
    const binary = installCopy(temp.dir);
    writeConfig(temp.dir);
    feed.setLatest(NEXT_PATCH);
    const check = await run([binary, 'update', '--check', '--dir', temp.dir]);
    expect(check).toMatchObject({ code: 0, stderr: '' });
    expect(check.stdout).toContain(`svc ${NEXT_PATCH} is available (patch; this is ${CURRENT})`);
    const unconfirmed = await run([binary, 'update', '--dir', temp.dir]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('add --yes');
    const dry = await run([binary, 'update', '--dry-run', '--dir', temp.dir]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('nothing replaced (dry run)');
    expect((await run([binary, '--version'])).stdout.trim()).toBe(`svc ${CURRENT}`);
    const applied = await run([binary, 'update', '--yes', '--dir', temp.dir]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`svc ${CURRENT} → ${NEXT_PATCH}`);
    expect((await run([binary, '--version'])).stdout.trim()).toBe(`svc ${NEXT_PATCH}`);
    const again = await run([binary, 'update', '--yes', '--dir', temp.dir]);
    expect(again.stdout).toContain(`svc ${NEXT_PATCH} is up to date`);
  }, 120_000);
});

describe('[controller] auto_update = "patch"', () => {
  test('leaves a major release to an operator, applies a patch on its own', async () => {
    const temp = tempDir('svc-self-update-auto-');
    cleanups.push(temp.remove);
    const binary = installCopy(temp.dir);
    writeConfig(temp.dir, 'auto_update = "patch"\n');
    feed.publish({ version: NEXT_MAJOR });
    feed.setLatest(NEXT_MAJOR);
    const first = await startBinaryController(binary, temp.dir, TOKEN, cleanups);
    const info = await waitFor(
      async () => {
        const body = await readJson(await first.api('/api/controller/info'));
        return body.latestVersion ? body : null;
      },
      { what: 'the automatic check' },
    );
    expect(info).toMatchObject({ version: CURRENT, latestVersion: NEXT_MAJOR, updateType: 'MAJOR', updateAvailable: true });
    await first.out.waitForLine((l) => l.includes('leaves it to an operator'));
    expect((await readJson(await first.api('/api/controller/update'))).state).toBe('idle');
    first.child.kill('SIGTERM');
    expect(await first.child.exited).toBe(0);

    feed.setLatest(NEXT_PATCH);
    const second = await startBinaryController(binary, temp.dir, TOKEN, cleanups);
    // The automatic check at start finds the patch, installs it and execs: a second "API listening".
    await waitFor(() => listeningLines(second.out) >= 2, { what: 'the controller back as the new binary', timeoutMs: 60_000 });
    const api = latestApi(second.out);
    expect((await readJson(await api('/api/health'))).version).toBe(NEXT_PATCH);
    const audit = await readJson(await api('/api/audit?action=SVC_UPDATE_APPLIED'));
    expect(audit.entries).toHaveLength(1);
    expect((await readJson(await api('/api/audit?action=SVC_UPDATE_REQUESTED'))).entries[0].actor).toBe('system');
    second.child.kill('SIGTERM');
    expect(await second.child.exited).toBe(0);
  }, 120_000);
});

describe('an agent follows its controller', () => {
  test('after the controller updated itself, its agent installs the same release and execs it; the game server there keeps its pid', async () => {
    const temp = tempDir('svc-self-update-agent-');
    cleanups.push(temp.remove);
    const controllerDir = join(temp.dir, 'controller');
    const agentDir = join(temp.dir, 'agent');
    mkdirSync(controllerDir);
    mkdirSync(agentDir);
    feed.publish({ version: NEXT_PATCH, binary: nextBuild });
    feed.setLatest(NEXT_PATCH);
    // Fixed ports: the agent must find the controller again after its exec.
    const [apiPort, agentPort] = [freePort(), freePort()];
    writeFileSync(
      join(controllerDir, 'svc.toml'),
      `[controller]\nupdate_check_url = "${feed.latestUrl}"\nupdate_public_key = "${feed.publicKey}"\n[api]\nport = ${apiPort}\nrate_limit = 0\nservice_rate_limit = 0\n[cluster]\nenabled = true\ntoken = "${CLUSTER_TOKEN}"\nagent_port = ${agentPort}\nbind = "127.0.0.1"\npublic_host = "127.0.0.1"\nheartbeat_interval = 300\nnode_timeout = 5000\nreconciliation_delay = 3000\n[services]\nisolation = "none"\n`,
    );
    const controllerBinary = installCopy(controllerDir);
    const controller = await startBinaryController(controllerBinary, controllerDir, TOKEN, cleanups);
    const agentBinary = installCopy(agentDir);
    writeFileSync(join(agentDir, 'agent.toml'), `[agent]\ncontroller = "${controller.url}"\ntoken = "${CLUSTER_TOKEN}"\nnode_name = "node-a"\npublic_host = "127.0.0.1"\nbackend_port_start = 41300\n[services]\nisolation = "none"\n`);
    const agent = Bun.spawn([agentBinary, 'agent', '--dir', agentDir], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json' }, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
    cleanups.push(() => agent.kill('SIGKILL'));
    const agentOut = new LineCollector(agent.stdout);
    const node = async () => ((await readJson(await controller.api('/api/nodes'))).nodes as { nodeId: string; isConnected: boolean; agentVersion: string }[]).find((n) => n.nodeId === 'node-a');
    await waitFor(async () => (await node())?.isConnected, { what: 'the agent connected', timeoutMs: 20_000 });
    expect((await node())?.agentVersion).toBe(CURRENT);
    const game = { name: 'Remote', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0, maxInstances: 1, placementNode: 'node-a', placementFallback: 'wait' };
    expect((await controller.api('/api/groups', { method: 'POST', body: JSON.stringify(game) })).status).toBe(201);
    expect((await controller.api('/api/services/Remote/start', { method: 'POST' })).status).toBe(201);
    const remote = async () => readJson(await controller.api('/api/services/Remote-1'));
    const ready = await waitFor(async () => ((await remote()).state === 'READY' ? remote() : null), { what: 'Remote-1 READY on node-a', timeoutMs: 30_000 });
    expect(ready.nodeId).toBe('node-a');
    cleanups.push(() => {
      try {
        process.kill(ready.pid, 'SIGKILL');
      } catch {}
    });

    // The controller updates itself; at the agent's next login it learns the new version and follows.
    const updated = await run([controllerBinary, 'update', '--yes', '--dir', controllerDir], { SVC_API_TOKEN: TOKEN });
    expect(updated.stdout).toContain(`→ ${NEXT_PATCH}`);
    await agentOut.waitForLine((l) => l.includes('updating to it'), 30_000);
    await waitFor(async () => (await node())?.agentVersion === NEXT_PATCH && (await node())?.isConnected, { what: 'the agent back as the new version', timeoutMs: 60_000 });
    expect(agent.exitCode).toBeNull();
    expect((await run([agentBinary, '--version'])).stdout.trim()).toBe(`svc ${NEXT_PATCH}`);
    expect((await run([`${agentBinary}.previous`, '--version'])).stdout.trim()).toBe(`svc ${CURRENT}`);
    // Neither exec touched the game server on the agent.
    expect(pidAlive(ready.pid)).toBe(true);
    await waitFor(async () => {
      const view = await remote();
      return view.state === 'READY' && view.pid === ready.pid;
    }, { what: 'Remote-1 adopted again with its pid', timeoutMs: 20_000 });
    agent.kill('SIGTERM');
    await agent.exited;
    controller.child.kill('SIGTERM');
    await controller.child.exited;
  }, 120_000);
});
