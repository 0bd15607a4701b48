/**
 * Cluster trust (issue 37), through the compiled binaries, as a network attacker and as a
 * holder of the cluster token would try it:
 *   - a plain-HTTP bootstrap that keeps the real certificate but points the channel at the
 *     attacker, or offers no certificate: a pinned `svc agent` refuses it, pins nothing and
 *     never sends anything to the attacker's socket (finding 1);
 *   - an on-path HTTP proxy in front of the controller's API port that swaps template ZIPs,
 *     drops the hash header and rewrites state manifests: the agent takes none of its data
 *     from that port any more, so its service runs the genuine template (finding 2);
 *   - the cluster token alone pushes no state and reads no template (finding 3);
 *   - a rogue node enrolled with the cluster token is handed no master token with a proxy
 *     start (finding 5), cannot claim another service with its RUNNING reply (finding 6), may
 *     not call itself `local`, and its log text reaches the controller's log cleaned (finding 7).
 * Node takeover (finding 4) is tested through the binary in cluster-identity.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';
import { FakeAgent } from '../support/fake-agent';

const TOKEN = 'e2e-trust-master-token-0123456789abcdef';
const CLUSTER = 'e2e-trust-cluster-token-0123456789abcdef';
const MARKER = 'genuine template content 7c1f';

let svc: string;
let root: string;
let apiUrl: string;
let controller: Proc;
let bootstrap: { fingerprint: string; certPem: string; wsUrl: string };
const cleanups: (() => void)[] = [];

interface Proc {
  child: Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
  out: LineCollector;
  err: LineCollector;
}

function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

function spawn(args: string[]): Proc {
  const child = Bun.spawn([svc, ...args], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', SVC_API_TOKEN: TOKEN }, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  return { child, out: new LineCollector(child.stdout), err: new LineCollector(child.stderr) };
}

const api = (path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
  fetch(apiUrl + path, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${init.token ?? TOKEN}`, 'content-type': 'application/json' },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });

/** Kills whatever still runs with this test's folder in its command line (servers started by agents). */
function killTree(dir: string): void {
  const listing = Bun.spawnSync(['ps', '-eo', 'pid=,args=']).stdout.toString();
  for (const line of listing.split('\n')) {
    if (!line.includes(dir)) continue;
    const pid = Number(line.trim().split(/\s+/)[0]);
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
}

beforeAll(async () => {
  svc = await svcBinary();
  const made = tempDir('svc-e2e-trust-');
  root = made.dir;
  cleanups.push(made.remove);
  cleanups.push(() => killTree(root));
  const controllerDir = join(root, 'controller');
  mkdirSync(join(controllerDir, 'templates', 'Game'), { recursive: true });
  writeFileSync(join(controllerDir, 'templates', 'Game', 'marker.txt'), `${MARKER}\n`);
  const apiPort = freePort();
  writeFileSync(
    join(controllerDir, 'svc.toml'),
    `[api]\nport = ${apiPort}\nrate_limit = 0\nservice_rate_limit = 0\n[cluster]\nenabled = true\ntoken = "${CLUSTER}"\nagent_port = ${freePort()}\nbind = "127.0.0.1"\npublic_host = "127.0.0.1"\nheartbeat_interval = 300\nnode_timeout = 5000\n[services]\nisolation = "none"\n`,
  );
  apiUrl = `http://127.0.0.1:${apiPort}`;
  controller = spawn(['--dir', controllerDir]);
  await controller.out.waitForLine((l) => l.includes('API listening'), 20_000);
  bootstrap = await readJson(await fetch(`${apiUrl}/api/cluster/bootstrap`, { headers: { authorization: `Bearer ${CLUSTER}` } }));
  expect(bootstrap.wsUrl).toStartWith('wss://');
}, 120_000);

afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

/** An agent folder with this agent.toml body under [agent] (isolation off: the fixture servers live under $HOME). */
function agentDir(name: string, agentToml: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'agent.toml'), `[agent]\n${agentToml}\n[services]\nisolation = "none"\n`);
  return dir;
}

describe('finding 1: a pin cannot be downgraded by the bootstrap answer', () => {
  test.each([
    ['the real certificate, the channel pointed at the attacker (ws://)', (attackerPort: number) => ({ ...bootstrap, wsUrl: `ws://127.0.0.1:${attackerPort}/cluster` })],
    ['the real certificate, a wss:// channel on a host the certificate does not name', (attackerPort: number) => ({ ...bootstrap, wsUrl: `wss://attacker.invalid:${attackerPort}/cluster` })],
    ['no certificate at all', (attackerPort: number) => ({ ...bootstrap, certPem: '', wsUrl: `ws://127.0.0.1:${attackerPort}/cluster` })],
  ])('%s: refused, nothing pinned, nothing sent to the attacker', async (label, answer) => {
    // The attacker's channel: it records anything an agent would send it.
    const received: string[] = [];
    const attacker = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request, server) => (server.upgrade(request) ? undefined : new Response('no')),
      websocket: { message: (_ws, message) => void received.push(String(message)) },
    });
    // The on-path bootstrap: plain HTTP where the agent expects the controller.
    const bootstrapped: string[] = [];
    const fake = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) => {
        bootstrapped.push(new URL(request.url).pathname);
        return Response.json(answer(attacker.port!));
      },
    });
    try {
      const dir = agentDir(`pin-${bootstrapped.length}-${label.length}`, `controller = "http://127.0.0.1:${fake.port}"\ntoken = "${CLUSTER}"\nnode_name = "pinned-node"\nfingerprint = "${bootstrap.fingerprint}"`);
      const agent = spawn(['agent', '--dir', dir]);
      // The agent refuses the answer and says so (it stops, or waits for the operator: never connects).
      await agent.out.waitForLine((l) => /refus/i.test(l) && /(ws:\/\/|certificate|host)/i.test(l), 20_000).catch(async () => {
        await agent.err.waitForLine((l) => /refus/i.test(l), 5000);
      });
      expect(bootstrapped.length).toBeGreaterThanOrEqual(1);
      expect(existsSync(join(dir, 'data', 'pinned.json'))).toBe(false);
      expect(received).toEqual([]);
      agent.child.kill('SIGKILL');
      await agent.child.exited;
      expect(received).toEqual([]);
    } finally {
      attacker.stop(true);
      fake.stop(true);
    }
  }, 60_000);
});

describe('finding 2: the data path is out of an on-path attacker’s reach', () => {
  test('a proxy in front of the API port that swaps templates and rewrites manifests changes nothing the agent runs', async () => {
    // The on-path attacker: forwards to the API port, but poisons every template and state answer.
    const seen: string[] = [];
    const proxy = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (request) => {
        const url = new URL(request.url);
        seen.push(url.pathname);
        if (url.pathname.startsWith('/api/templates/')) return new Response('PK\u0003\u0004 not the template', { headers: { 'content-type': 'application/zip' } });
        if (url.pathname.includes('/state/')) return Response.json({ files: { 'start.sh': { sha256: '0'.repeat(64), size: 1 } } });
        const upstream = await fetch(apiUrl + url.pathname + url.search, { method: request.method, headers: request.headers, body: request.method === 'GET' ? undefined : await request.arrayBuffer() });
        return new Response(await upstream.arrayBuffer(), { status: upstream.status, headers: upstream.headers });
      },
    });
    cleanups.push(() => proxy.stop(true));
    const dir = agentDir('onpath', `controller = "http://127.0.0.1:${proxy.port}"\ntoken = "${CLUSTER}"\nnode_name = "onpath-node"\nfingerprint = "${bootstrap.fingerprint}"\npublic_host = "127.0.0.1"\nbackend_port_start = 41500`);
    const agent = spawn(['agent', '--dir', dir]);
    await waitFor(async () => ((await readJson(await api('/api/nodes'))).nodes as { nodeId: string; isConnected: boolean }[]).some((n) => n.nodeId === 'onpath-node' && n.isConnected), {
      what: 'the agent behind the proxy connected',
      timeoutMs: 20_000,
    });
    // A server that prints the template's marker file: it proves what the agent unpacked.
    const game = { name: 'Game', software: 'CUSTOM', version: '1.21.4', startCommand: ['/bin/sh', '-c', 'cat marker.txt; echo started; while read -r l; do [ "$l" = stop ] && exit 0; done'], readyPattern: 'started', minInstances: 0, placementNode: 'onpath-node', placementFallback: 'fail' };
    expect((await api('/api/groups', { method: 'POST', json: game })).status).toBe(201);
    expect((await api('/api/services/Game/start', { method: 'POST' })).status).toBe(201);
    await waitFor(async () => (await readJson(await api('/api/services/Game-1'))).state === 'READY', { what: 'Game-1 READY on the agent', timeoutMs: 30_000 });
    const lines = (await readJson(await api('/api/services/Game-1/logs?source=stdout'))).lines as string[];
    expect(lines).toContain(MARKER);
    // Through the proxy went only the bootstrap (the certificate, checked against the fingerprint).
    expect(seen.filter((p) => p !== '/api/cluster/bootstrap')).toEqual([]);
    expect((await api('/api/services/Game-1/stop', { method: 'POST' })).status).toBe(200);
    agent.child.kill('SIGTERM');
    await agent.child.exited;
  }, 90_000);
});

describe('the cluster token never crosses the REST port', () => {
  test('with cluster_url and a fingerprint the agent pins from the channel’s handshake and makes no bootstrap request', async () => {
    const seen: { path: string; authorization: string | null }[] = [];
    const rest = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) => {
        seen.push({ path: new URL(request.url).pathname, authorization: request.headers.get('authorization') });
        return new Response('an on-path listener', { status: 503 });
      },
    });
    cleanups.push(() => rest.stop(true));
    const dir = agentDir('direct', `controller = "http://127.0.0.1:${rest.port}"\ntoken = "${CLUSTER}"\nnode_name = "direct-node"\nfingerprint = "${bootstrap.fingerprint}"\ncluster_url = "${bootstrap.wsUrl}"\npublic_host = "127.0.0.1"`);
    const agent = spawn(['agent', '--dir', dir]);
    await waitFor(async () => ((await readJson(await api('/api/nodes'))).nodes as { nodeId: string; isConnected: boolean }[]).some((n) => n.nodeId === 'direct-node' && n.isConnected), {
      what: 'the agent connected through cluster_url',
      timeoutMs: 20_000,
    });
    expect(seen).toEqual([]);
    // The agent keeps the secret right after the login that handed it out.
    await waitFor(() => existsSync(join(dir, 'data', 'node.json')), { what: 'data/node.json' });
    agent.child.kill('SIGTERM');
    await agent.child.exited;
    await waitFor(async () => !((await readJson(await api('/api/nodes'))).nodes as { nodeId: string; isConnected: boolean }[]).some((n) => n.nodeId === 'direct-node' && n.isConnected), {
      what: 'the agent gone',
      timeoutMs: 20_000,
    });
    // Enrolled, the node no longer needs the cluster token at all: it leaves the agent's machine.
    writeFileSync(join(dir, 'agent.toml'), `[agent]\ncontroller = "http://127.0.0.1:${rest.port}"\nnode_name = "direct-node"\nfingerprint = "${bootstrap.fingerprint}"\ncluster_url = "${bootstrap.wsUrl}"\npublic_host = "127.0.0.1"\n[services]\nisolation = "none"\n`);
    const again = spawn(['agent', '--dir', dir]);
    await waitFor(async () => ((await readJson(await api('/api/nodes'))).nodes as { nodeId: string; isConnected: boolean; enrolment: string }[]).some((n) => n.nodeId === 'direct-node' && n.isConnected && n.enrolment === 'confirmed'), {
      what: 'the agent back with its own secret, without the cluster token',
      timeoutMs: 20_000,
    });
    expect(seen).toEqual([]);
    again.child.kill('SIGTERM');
    await again.child.exited;
  }, 60_000);

  test('a wrong fingerprint with cluster_url is refused before the token is sent', async () => {
    const dir = agentDir('direct-wrong', `controller = "http://127.0.0.1:9"\ntoken = "${CLUSTER}"\nnode_name = "direct-wrong"\nfingerprint = "${'AB:'.repeat(31)}AB"\ncluster_url = "${bootstrap.wsUrl}"`);
    const agent = spawn(['agent', '--dir', dir]);
    const refused = await Promise.race([
      agent.out.waitForLine((l) => l.includes('refused') && l.includes('agent.fingerprint'), 20_000),
      agent.err.waitForLine((l) => l.includes('refused') && l.includes('agent.fingerprint'), 20_000),
    ]);
    expect(refused).toContain('agent.fingerprint');
    expect(existsSync(join(dir, 'data', 'pinned.json'))).toBe(false);
    const nodes = (await readJson(await api('/api/nodes'))).nodes as { nodeId: string }[];
    expect(nodes.map((n) => n.nodeId)).not.toContain('direct-wrong');
    agent.child.kill('SIGKILL');
    await agent.child.exited;
  }, 60_000);
});

describe('finding 3: the cluster token alone is no node', () => {
  test('it reads no template and pushes no state, on either port', async () => {
    const dataUrl = bootstrap.wsUrl.replace(/^wss:/, 'https:').replace(/\/cluster$/, '');
    const tls = { ca: bootstrap.certPem };
    for (const base of [apiUrl, dataUrl]) {
      const options = (method: string) => ({ method, headers: { authorization: `Bearer ${CLUSTER}` }, tls }) as RequestInit;
      const template = await fetch(`${base}/api/templates/Game/download?software=CUSTOM`, options('GET'));
      expect(template.status).toBe(403);
      const push = await fetch(`${base}/api/services/Static-1/state/sync`, options('POST'));
      expect(push.status).toBe(403);
      expect(((await push.json()) as { error: string }).error).toBe('FORBIDDEN');
    }
  });
});

describe('a rogue node enrolled with the cluster token (findings 5, 6, 7)', () => {
  let rogue: FakeAgent;
  let secret: string;

  test('`local` is refused; a fresh id enrols and gets its own secret', async () => {
    const local = new FakeAgent(bootstrap.wsUrl, bootstrap.certPem, { token: CLUSTER, nodeName: 'local' });
    expect(await local.authResponse()).toMatchObject({ accepted: false });
    await local.closedWith();
    rogue = new FakeAgent(bootstrap.wsUrl, bootstrap.certPem, { token: CLUSTER, nodeName: 'rogue' });
    const answer = await rogue.authResponse();
    expect(answer).toMatchObject({ accepted: true, nodeId: 'rogue' });
    secret = String(answer.nodeSecret);
    expect(secret).toMatch(/^svcn_/);
  });

  test('a proxy placed on it gets a credential of its own, never the master token', async () => {
    const proxy = { name: 'Edge', software: 'VELOCITY', version: '3.4.0', startCommand: ['/bin/sh', '-c', 'echo started'], readyPattern: 'started', minInstances: 0, placementNode: 'rogue', placementFallback: 'fail' };
    expect((await api('/api/groups', { method: 'POST', json: proxy })).status).toBe(201);
    const started = api('/api/services/Edge/start', { method: 'POST' });
    const start = await rogue.frame('START_SERVICE', (f) => f.serviceName === 'Edge-1');
    const env = start.env as Record<string, string>;
    expect(env.SVC_API_TOKEN).toMatch(/^svcs_/);
    expect(env.SVC_API_TOKEN).not.toBe(TOKEN);
    expect(JSON.stringify(start)).not.toContain(TOKEN);
    expect(JSON.stringify(start)).not.toContain(CLUSTER);

    // Finding 6: a RUNNING reply that names another service binds nothing.
    rogue.send({ type: 'SERVICE_STATE_CHANGED', serviceName: 'Game-1', state: 'RUNNING', requestId: start.requestId, pid: 4242, port: 41999, startedAt: Date.now() });
    // The honest reply for the service it was asked for still counts afterwards: the wrong one was ignored.
    rogue.send({ type: 'SERVICE_STATE_CHANGED', serviceName: 'Edge-1', state: 'FAILED', requestId: start.requestId, reason: 'the rogue gives up' });
    const answer = await started;
    const body = (await answer.json()) as { message?: string; error?: string };
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(body.message).toContain('the rogue gives up');
    const game = await readJson(await api('/api/services/Game-1'));
    expect(game.nodeId).not.toBe('rogue');
    await controller.out.waitForLine((l) => l.includes('rogue') && /RUNNING/.test(l) && l.includes('Game-1'), 10_000);
  });

  test('its log text reaches the controller’s log without escapes or forged lines', async () => {
    rogue.send({ type: 'LOG_MESSAGE', level: 'error', message: 'tampered \u001b[2J\u001b[31mred\nFAKE {"level":50,"msg":"controller stopped"}\r' });
    const line = await controller.out.waitForLine((l) => l.includes('tampered'), 10_000);
    expect(line).not.toContain('\u001b');
    expect(line).not.toContain('\\u001b');
    const parsed = JSON.parse(line) as { msg: string };
    expect(parsed.msg).not.toContain('\n');
    expect(parsed.msg).not.toContain('\u001b');
    expect(controller.out.lines.filter((l) => l.includes('"msg":"controller stopped"'))).toEqual([]);
  });

  test('its own secret pushes state only for instances it runs: another node’s or an unknown name is refused', async () => {
    const dataUrl = bootstrap.wsUrl.replace(/^wss:/, 'https:').replace(/\/cluster$/, '');
    const push = (name: string) => fetch(`${dataUrl}/api/services/${name}/state/sync`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, tls: { ca: bootstrap.certPem } } as RequestInit);
    // A synced static instance on this machine: the rogue may not replace its start.sh.
    const statik = { name: 'Keep', type: 'STATIC', software: 'CUSTOM', version: '1.21.4', startCommand: ['/bin/sh', '-c', 'echo started; while read -r l; do [ "$l" = stop ] && exit 0; done'], readyPattern: 'started', minInstances: 0, syncEnabled: true, placementNode: 'local', placementFallback: 'fail' };
    expect((await api('/api/groups', { method: 'POST', json: statik })).status).toBe(201);
    expect((await api('/api/services/Keep/start', { method: 'POST' })).status).toBe(201);
    await waitFor(async () => (await readJson(await api('/api/services/Keep-1'))).state === 'READY', { what: 'Keep-1 READY here', timeoutMs: 20_000 });
    const refused = await push('Keep-1');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('FORBIDDEN');
    expect((await push('Game-1')).status).toBeGreaterThanOrEqual(400);
    expect((await push('Nowhere-1')).status).toBe(404);
    expect((await api('/api/services/Keep-1/stop', { method: 'POST' })).status).toBe(200);
    rogue.close();
  });
});

describe('the agents left nothing behind', () => {
  test('no pin was written for a refused bootstrap, and the on-path agent pinned the real certificate', () => {
    const pins = readdirSync(root).filter((name) => existsSync(join(root, name, 'data', 'pinned.json')));
    expect(pins.sort()).toEqual(['direct', 'onpath']);
    const pinned = JSON.parse(readFileSync(join(root, 'onpath', 'data', 'pinned.json'), 'utf8')) as { fingerprint: string };
    expect(pinned.fingerprint.replace(/[^0-9a-f]/gi, '').toUpperCase()).toBe(bootstrap.fingerprint.replace(/[^0-9a-f]/gi, '').toUpperCase());
  });
});
