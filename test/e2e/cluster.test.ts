/**
 * The cluster through the compiled binary: one controller and two `svc agent` processes on
 * loopback. Services are placed on the agents, their console and logs come back through the
 * channel, an agent killed has its services placed again (and its orphan stopped when it
 * returns), a controller killed leaves the agents' services running and reconciled when it
 * comes back, wrong tokens and protocol versions are refused with their reasons, and a
 * certificate other than the pinned one is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../../src/core/supervisor/process/pid-probe';
import { LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const TOKEN = 'e2e-cluster-master-token-0123456789';
const CLUSTER = 'e2e-cluster-agent-token-0123456789';
let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

/** A port nothing listens on now (the controller must come back on the same one after a kill). */
function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

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

interface Proc {
  child: Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
  out: LineCollector;
  err: LineCollector;
}

function spawn(args: string[]): Proc {
  const child = Bun.spawn([svc, ...args], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', SVC_API_TOKEN: TOKEN }, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  return { child, out: new LineCollector(child.stdout), err: new LineCollector(child.stderr) };
}

describe('cluster (compiled binary)', () => {
  test('placement on agents, remote console, agent and controller failures, refusals, pinning', async () => {
    const { dir: root, remove } = tempDir('svc-e2e-cluster-');
    cleanups.push(remove);
    cleanups.push(() => killTree(root));
    const controllerDir = join(root, 'controller');
    const apiPort = freePort();
    const agentPort = freePort();
    Bun.spawnSync(['mkdir', '-p', controllerDir]);
    writeFileSync(
      join(controllerDir, 'svc.toml'),
      `[api]\nport = ${apiPort}\nrate_limit = 0\nservice_rate_limit = 0\n[controller]\nmax_services = 1\n[cluster]\nenabled = true\ntoken = "${CLUSTER}"\nagent_port = ${agentPort}\nbind = "127.0.0.1"\npublic_host = "127.0.0.1"\nheartbeat_interval = 300\nnode_timeout = 2500\nreconciliation_delay = 4000\n[services]\nisolation = "none"\n`,
    );
    const url = `http://127.0.0.1:${apiPort}`;
    const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
      fetch(url + path, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
    const startController = async () => {
      const proc = spawn(['--dir', controllerDir]);
      await proc.out.waitForLine((l) => l.includes('API listening'), 20_000);
      return proc;
    };
    let controller = await startController();

    const agentDir = (name: string) => join(root, name);
    const startAgentProc = (name: string, port: number) => {
      Bun.spawnSync(['mkdir', '-p', agentDir(name)]);
      writeFileSync(join(agentDir(name), 'agent.toml'), `[agent]\ncontroller = "${url}"\ntoken = "${CLUSTER}"\nnode_name = "${name}"\npublic_host = "127.0.0.1"\nbackend_port_start = ${port}\nmax_services = 5\n[services]\nisolation = "none"\n`);
      return spawn(['agent', '--dir', agentDir(name)]);
    };
    const connectedNodes = async () => {
      const body = await readJson(await api('/api/nodes'));
      if (!body.nodes) throw new Error(`GET /api/nodes: ${JSON.stringify(body)}`);
      return (body.nodes as { nodeId: string; isConnected: boolean }[]).filter((n) => n.isConnected).map((n) => n.nodeId).sort();
    };
    let agentA = startAgentProc('node-a', 41100);
    const agentB = startAgentProc('node-b', 41200);
    await waitFor(async () => (await connectedNodes()).length === 2, { what: 'both agents connected', timeoutMs: 20_000 });

    // Placement: the strategy spreads instances over the agents (the controller holds one service at most).
    const game = { name: 'Game', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0, maxInstances: 4, restartOnCrash: true };
    expect((await api('/api/groups', { method: 'POST', json: game })).status).toBe(201);
    const placed: Record<string, string> = {};
    for (let i = 0; i < 2; i++) {
      const body = await readJson(await api('/api/services/Game/start', { method: 'POST' }));
      placed[body.service.name] = body.service.nodeId;
    }
    expect(Object.values(placed).sort()).toEqual(['node-a', 'node-b']);
    const service = async (name: string) => readJson(await api(`/api/services/${name}`));
    for (const name of Object.keys(placed)) await waitFor(async () => (await service(name)).state === 'READY', { what: `${name} READY`, timeoutMs: 20_000 });
    const onA = Object.keys(placed).find((n) => placed[n] === 'node-a')!;
    const onB = Object.keys(placed).find((n) => placed[n] === 'node-b')!;

    // Console and logs of a remote service.
    expect((await api(`/api/services/${onA}/exec`, { method: 'POST', json: { command: 'say hello from afar' } })).status).toBe(200);
    await waitFor(async () => ((await readJson(await api(`/api/services/${onA}/logs?source=stdout`))).lines as string[]).some((l) => l.includes('hello from afar')), { what: 'the say line in the remote logs' });

    // Agent A killed: after node_timeout its service crashes and is placed again elsewhere.
    const orphanPid = (await service(onA)).pid as number;
    agentA.child.kill('SIGKILL');
    await waitFor(async () => {
      const s = await service(onA).catch(() => null);
      return s && s.state === 'READY' && s.nodeId !== 'node-a' ? s : null;
    }, { what: `${onA} placed again off node-a`, timeoutMs: 30_000 }).catch((error) => {
      console.log(controller.out.lines.slice(-40).join('\n'));
      throw error;
    });
    // The old process outlived its agent; when node-a returns it is stopped, not adopted twice.
    expect(pidAlive(orphanPid)).toBe(true);
    agentA = startAgentProc('node-a', 41100);
    await waitFor(async () => (await connectedNodes()).length === 2, { what: 'node-a back', timeoutMs: 20_000 });
    await waitFor(() => !pidAlive(orphanPid), { what: 'the orphan on node-a stopped', timeoutMs: 20_000 });

    // Controller killed: the agents keep their services; on its return they are reconciled, not duplicated.
    const before = (await readJson(await api('/api/services?group=Game'))).services as { name: string; pid: number; nodeId: string }[];
    const remotePid = before.find((s) => s.name === onB)!.pid;
    controller.child.kill('SIGKILL');
    await controller.child.exited;
    expect(pidAlive(remotePid)).toBe(true);
    controller = await startController();
    await waitFor(async () => (await connectedNodes()).length === 2, { what: 'agents reconnected', timeoutMs: 30_000 });
    await waitFor(async () => (await service(onB)).state === 'READY', { what: `${onB} recovered`, timeoutMs: 20_000 });
    const after = (await readJson(await api('/api/services?group=Game'))).services as { name: string; pid: number; nodeId: string }[];
    expect(after.find((s) => s.name === onB)).toMatchObject({ pid: remotePid, nodeId: 'node-b' });
    expect(after.map((s) => s.name).sort()).toEqual(before.map((s) => s.name).sort());

    // Refusals on the channel, with their reasons.
    const bootstrap = await readJson(await fetch(`${url}/api/cluster/bootstrap`, { headers: { authorization: `Bearer ${CLUSTER}` } }));
    const refusal = async (frame: Record<string, unknown>) => {
      const ws = new WebSocket(bootstrap.wsUrl, { tls: { ca: bootstrap.certPem } } as unknown as ConstructorParameters<typeof WebSocket>[1]);
      const messages: { accepted: boolean; reason: string }[] = [];
      let closeCode = 0;
      ws.addEventListener('open', () => ws.send(JSON.stringify(frame)));
      ws.addEventListener('message', (m) => messages.push(JSON.parse(String(m.data))));
      ws.addEventListener('close', (e) => (closeCode = e.code));
      await waitFor(() => closeCode !== 0, { what: 'refused connection closed' });
      return { response: messages[0]!, closeCode };
    };
    const auth = { type: 'AUTH_REQUEST', protocolVersion: 1, token: CLUSTER, nodeName: 'intruder', agentVersion: '0', maxMemory: 0, maxServices: 0, currentServices: 0, os: 'linux', arch: 'x64', hostname: 'h', osVersion: '', cpuModel: '', availableProcessors: 1, systemMemoryTotalMb: 1, publicHost: '', runningServices: [] };
    const wrongToken = await refusal({ ...auth, token: 'not-the-token' });
    expect(wrongToken.response).toMatchObject({ accepted: false, reason: 'the cluster token is not valid' });
    expect(wrongToken.closeCode).toBe(1008);
    const wrongVersion = await refusal({ ...auth, protocolVersion: 99, token: 'not-the-token' });
    expect(wrongVersion.response.accepted).toBe(false);
    expect(wrongVersion.response.reason).toContain('protocol version 99 is not supported');

    // A controller with another certificate (keystore replaced) is refused by the pinned agents.
    controller.child.kill('SIGKILL');
    await controller.child.exited;
    rmSync(join(controllerDir, 'data', 'cluster'), { recursive: true, force: true });
    controller = await startController();
    await agentB.out.waitForLine((l) => l.includes('cluster connection failed') && l.includes('certificate'), 30_000);
    expect(await connectedNodes()).toEqual([]);
  }, 180_000);
});
