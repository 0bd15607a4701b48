/**
 * The cluster across real network addresses: each agent in its own network namespace (a
 * veth on a bridge), the controller in the root namespace. Services are placed on both
 * agents, carry their node's address, and are reachable there from the controller's side.
 * Needs root and `ip netns`; elsewhere the test is reported as skipped, with the reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pingServer } from '../../src/core/net/server-list-ping';
import { LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const TOKEN = 'e2e-netns-master-token-0123456789';
const CLUSTER = 'e2e-netns-cluster-token-0123456789';

function sh(args: string[]): { ok: boolean; out: string } {
  const run = Bun.spawnSync(args, { stdout: 'pipe', stderr: 'pipe' });
  return { ok: run.exitCode === 0, out: run.stdout.toString() + run.stderr.toString() };
}

/** Whether this machine lets us make namespaces (root, `ip netns` present and working). */
function netnsProblem(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not root';
  const probe = `svcp${process.pid % 100000}`;
  const added = sh(['ip', 'netns', 'add', probe]);
  if (!added.ok) return `ip netns does not work here: ${added.out.trim()}`;
  sh(['ip', 'netns', 'del', probe]);
  return null;
}

const problem = netnsProblem();
if (problem) console.warn(`cluster-netns: skipped (${problem})`);

const id = (process.pid % 10000).toString(36);
const subnet = `10.${77 + (process.pid % 100)}.${process.pid % 250}`;
const bridge = `svcbr${id}`;
const nodes = [
  { name: 'node-a', ns: `svca${id}`, veth: `sva${id}`, peer: `spa${id}`, ip: `${subnet}.2`, ports: 41300 },
  { name: 'node-b', ns: `svcb${id}`, veth: `svb${id}`, peer: `spb${id}`, ip: `${subnet}.3`, ports: 41400 },
];
const controllerIp = `${subnet}.1`;
const cleanups: (() => void)[] = [];

function setUpNetwork(): void {
  cleanups.push(() => sh(['ip', 'link', 'del', bridge]));
  const steps: string[][] = [
    ['ip', 'link', 'add', bridge, 'type', 'bridge'],
    ['ip', 'addr', 'add', `${controllerIp}/24`, 'dev', bridge],
    ['ip', 'link', 'set', bridge, 'up'],
  ];
  for (const node of nodes) {
    cleanups.push(() => sh(['ip', 'netns', 'del', node.ns]));
    steps.push(
      ['ip', 'netns', 'add', node.ns],
      ['ip', 'link', 'add', node.peer, 'type', 'veth', 'peer', 'name', node.veth],
      ['ip', 'link', 'set', node.veth, 'netns', node.ns],
      ['ip', 'link', 'set', node.peer, 'master', bridge],
      ['ip', 'link', 'set', node.peer, 'up'],
      ['ip', 'netns', 'exec', node.ns, 'ip', 'addr', 'add', `${node.ip}/24`, 'dev', node.veth],
      ['ip', 'netns', 'exec', node.ns, 'ip', 'link', 'set', node.veth, 'up'],
      ['ip', 'netns', 'exec', node.ns, 'ip', 'link', 'set', 'lo', 'up'],
    );
  }
  for (const step of steps) {
    const result = sh(step);
    if (!result.ok) throw new Error(`${step.join(' ')}: ${result.out}`);
  }
}

let svc: string;
beforeAll(async () => {
  if (problem) return;
  svc = await svcBinary();
  setUpNetwork();
}, 120_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

describe('cluster in network namespaces (compiled binary)', () => {
  test.skipIf(problem !== null)('each agent has its own address; services run and answer there', async () => {
    const { dir: root, remove } = tempDir('svc-e2e-netns-');
    cleanups.push(remove);
    const spawned: Bun.Subprocess[] = [];
    cleanups.push(() => spawned.forEach((p) => p.kill('SIGKILL')));
    cleanups.push(() => {
      // Everything that ran in the namespaces (agents and their game servers) ends with the test.
      for (const node of nodes) for (const pid of sh(['ip', 'netns', 'pids', node.ns]).out.split(/\s+/).filter(Boolean)) sh(['kill', '-9', pid]);
    });
    const env = { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', SVC_API_TOKEN: TOKEN };
    const controllerDir = join(root, 'controller');
    mkdirSync(controllerDir, { recursive: true });
    writeFileSync(
      join(controllerDir, 'svc.toml'),
      `[api]\nbind = "0.0.0.0"\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[controller]\nmax_services = 1\n[cluster]\nenabled = true\ntoken = "${CLUSTER}"\nagent_port = 0\nbind = "${controllerIp}"\npublic_host = "${controllerIp}"\nheartbeat_interval = 500\n[services]\nisolation = "none"\n`,
    );
    const controller = Bun.spawn([svc, '--dir', controllerDir], { env, stdout: 'pipe', stderr: 'pipe' });
    spawned.push(controller);
    const out = new LineCollector(controller.stdout);
    const port = (JSON.parse(await out.waitForLine((l) => l.includes('API listening'), 20_000)) as { port: number }).port;
    const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
      fetch(`http://${controllerIp}:${port}${path}`, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: init.json === undefined ? undefined : JSON.stringify(init.json) });

    for (const node of nodes) {
      const dir = join(root, node.name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'agent.toml'), `[agent]\ncontroller = "http://${controllerIp}:${port}"\ntoken = "${CLUSTER}"\nnode_name = "${node.name}"\npublic_host = "${node.ip}"\nbackend_port_start = ${node.ports}\n[services]\nisolation = "none"\n`);
      const agent = Bun.spawn(['ip', 'netns', 'exec', node.ns, svc, 'agent', '--dir', dir], { env, stdout: 'pipe', stderr: 'pipe' });
      spawned.push(agent);
    }
    await waitFor(async () => ((await readJson(await api('/api/nodes'))).nodes as { isConnected: boolean }[]).filter((n) => n.isConnected).length === 2, { what: 'both agents connected', timeoutMs: 20_000 });
    const listed = (await readJson(await api('/api/nodes'))).nodes as { nodeId: string; host: string }[];
    expect(listed.map((n) => [n.nodeId, n.host])).toEqual(nodes.map((n) => [n.name, n.ip]));

    const group = { name: 'Net', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--host', '0.0.0.0', '--port', '{port}'], minInstances: 0, maxInstances: 2 };
    expect((await api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
    for (let i = 0; i < 2; i++) expect((await api('/api/services/Net/start', { method: 'POST' })).status).toBe(201);
    for (const name of ['Net-1', 'Net-2']) await waitFor(async () => (await readJson(await api(`/api/services/${name}`))).state === 'READY', { what: `${name} READY`, timeoutMs: 20_000 });
    const services = ((await readJson(await api('/api/services?group=Net'))).services as { name: string; host: string; port: number; nodeId: string }[]).sort((a, b) => a.nodeId.localeCompare(b.nodeId));
    expect(services.map((s) => [s.nodeId, s.host])).toEqual(nodes.map((n) => [n.name, n.ip]));
    // Each answers a Server List Ping at its node's address, from the controller's namespace.
    for (const service of services) {
      const status = await pingServer(service.host, service.port, { timeoutMs: 3000, measureLatency: false });
      expect(status.version.name).toContain('1.21');
    }
  }, 120_000);
});
