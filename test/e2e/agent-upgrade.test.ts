/**
 * Upgrading a 0.13.0 cluster in place, through the real binaries of both versions: the 0.13.0
 * controller and agent run a service on the agent; the controller is replaced by this build
 * (the agent, still 0.13.0, logs in with the cluster token and is enrolled, its service adopted);
 * then the agent is replaced over the same folder (this build pins the old pin again, enrols on
 * its first connect, keeps its own secret, re-attaches the service the old agent started and
 * logs in with the secret after a restart); a new service on it gets its template over the
 * pinned channel. The game server keeps its pid throughout.
 *
 * The 0.13.0 binary is built from this repository's history (test/support/released-binary.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../../src/core/supervisor/process/pid-probe';
import { LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';
import { hasCommit, RELEASE_0_13_0, releasedBinary } from '../support/released-binary';

const TOKEN = 'e2e-upgrade-master-token-0123456789abcdef';
const CLUSTER = 'e2e-upgrade-cluster-token-0123456789abcdef';
const history = hasCommit(RELEASE_0_13_0);
if (!history) console.warn(`agent-upgrade: commit ${RELEASE_0_13_0} (0.13.0) is not in this checkout (a shallow clone?): the upgrade test cannot build the old release`);

let oldSvc: string;
let newSvc: string;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  if (!history) return;
  [oldSvc, newSvc] = await Promise.all([releasedBinary(RELEASE_0_13_0), svcBinary()]);
}, 240_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

function spawn(binary: string, args: string[]) {
  const child = Bun.spawn([binary, ...args], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', SVC_API_TOKEN: TOKEN }, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  return { child, out: new LineCollector(child.stdout), err: new LineCollector(child.stderr) };
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

describe('upgrading a 0.13.0 cluster in place (both binaries)', () => {
  test.skipIf(!history)('controller first, then the agent: enrolled on first connect, the running server adopted throughout', async () => {
    const { dir: root, remove } = tempDir('svc-e2e-upgrade-');
    cleanups.push(remove);
    cleanups.push(() => killTree(root));
    const controllerDir = join(root, 'controller');
    const agentDir = join(root, 'agent');
    mkdirSync(join(controllerDir, 'templates', 'Game'), { recursive: true });
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(join(controllerDir, 'templates', 'Game', 'marker.txt'), 'from the template\n');
    const apiPort = freePort();
    writeFileSync(
      join(controllerDir, 'svc.toml'),
      `[api]\nport = ${apiPort}\nrate_limit = 0\nservice_rate_limit = 0\n[cluster]\nenabled = true\ntoken = "${CLUSTER}"\nagent_port = ${freePort()}\nbind = "127.0.0.1"\npublic_host = "127.0.0.1"\nheartbeat_interval = 300\nnode_timeout = 8000\nreconciliation_delay = 15000\n`,
    );
    // A 0.13.0 agent.toml: no key of this build.
    writeFileSync(join(agentDir, 'agent.toml'), `[agent]\ncontroller = "http://127.0.0.1:${apiPort}"\ntoken = "${CLUSTER}"\nnode_name = "legacy"\npublic_host = "127.0.0.1"\nbackend_port_start = 41700\nauto_update = false\n`);
    const url = `http://127.0.0.1:${apiPort}`;
    const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
      fetch(url + path, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
    const startController = async (binary: string) => {
      const proc = spawn(binary, ['--dir', controllerDir]);
      await proc.out.waitForLine((l) => l.includes('API listening'), 20_000);
      return proc;
    };
    const node = async () => ((await readJson(await api('/api/nodes'))).nodes as { nodeId: string; isConnected: boolean; enrolment?: string }[]).find((n) => n.nodeId === 'legacy');
    const service = async (name: string) => readJson(await api(`/api/services/${name}`));

    // 0.13.0 everywhere: a server runs on the agent.
    let controller = await startController(oldSvc);
    let agent = spawn(oldSvc, ['agent', '--dir', agentDir]);
    await waitFor(async () => (await node())?.isConnected, { what: 'the 0.13.0 agent connected to the 0.13.0 controller', timeoutMs: 20_000, intervalMs: 100 });
    const game = {
      name: 'Game',
      software: 'CUSTOM',
      version: '1.21.4',
      startCommand: ['/bin/sh', '-c', 'cat marker.txt; echo ready; while IFS= read -r l; do [ "$l" = stop ] && exit 0; echo "console: $l"; done'],
      readyPattern: 'ready',
      minInstances: 0,
      placementNode: 'legacy',
      placementFallback: 'fail',
    };
    expect((await api('/api/groups', { method: 'POST', json: game })).status).toBe(201);
    expect((await api('/api/services/Game/start', { method: 'POST' })).status).toBe(201);
    await waitFor(async () => (await service('Game-1')).state === 'READY', { what: 'Game-1 READY under 0.13.0', timeoutMs: 30_000 });
    const pid = (await service('Game-1')).pid as number;
    expect(pidAlive(pid)).toBe(true);
    // READY is written to the state file a moment later (only a start is written at once): wait for it, or the next controller would recover it as STARTING.
    const stateFile = join(controllerDir, 'data', 'state', 'services.json');
    await waitFor(() => existsSync(stateFile) && (JSON.parse(readFileSync(stateFile, 'utf8')) as { services: { name: string; state: string }[] }).services.some((s) => s.name === 'Game-1' && s.state === 'READY'), {
      what: 'READY in the 0.13.0 controller\'s state file',
    });

    // The controller is replaced (killed, as a crash or an update leaves it): this build on the same folder.
    controller.child.kill('SIGKILL');
    await controller.child.exited;
    controller = await startController(newSvc);
    await waitFor(async () => (await node())?.isConnected, { what: 'the 0.13.0 agent back, enrolled with the cluster token', timeoutMs: 30_000, intervalMs: 100 });
    expect((await node())!.enrolment).toBe('unconfirmed');
    await waitFor(async () => (await service('Game-1')).state === 'READY' && (await service('Game-1')).pid === pid, { what: 'Game-1 adopted by the new controller', timeoutMs: 30_000 });

    // The agent is replaced over the same folder; its server keeps running meanwhile.
    agent.child.kill('SIGKILL');
    await agent.child.exited;
    writeFileSync(join(agentDir, 'agent.toml'), `${readFileSync(join(agentDir, 'agent.toml'), 'utf8')}[services]\nisolation = "none"\n`);
    agent = spawn(newSvc, ['agent', '--dir', agentDir]);
    await waitFor(async () => (await node())?.isConnected && existsSync(join(agentDir, 'data', 'node.json')), { what: 'the new agent enrolled on its first connect', timeoutMs: 30_000, intervalMs: 100 });
    await waitFor(async () => (await service('Game-1')).state === 'READY' && (await service('Game-1')).pid === pid, { what: 'Game-1 re-attached by the new agent', timeoutMs: 30_000 });
    expect(pidAlive(pid)).toBe(true);
    expect((await api('/api/services/Game-1/exec', { method: 'POST', json: { command: 'after the upgrade' } })).status).toBe(200);
    await waitFor(async () => ((await readJson(await api('/api/services/Game-1/logs?source=stdout'))).lines as string[]).includes('console: after the upgrade'), {
      what: "the old server's console through the new agent",
    });

    // A restart of the new agent logs in with its own secret: the enrolment is confirmed.
    agent.child.kill('SIGTERM');
    await agent.child.exited;
    agent = spawn(newSvc, ['agent', '--dir', agentDir]);
    await waitFor(async () => (await node())?.isConnected && (await node())?.enrolment === 'confirmed', { what: 'logged in with its own secret', timeoutMs: 30_000, intervalMs: 100 });

    // A new server on the upgraded node: its template over the pinned channel.
    expect((await api('/api/services/Game/start', { method: 'POST' })).status).toBe(201);
    await waitFor(async () => (await service('Game-2')).state === 'READY', { what: 'Game-2 READY on the upgraded agent', timeoutMs: 30_000 });
    expect(((await readJson(await api('/api/services/Game-2/logs?source=stdout'))).lines as string[])).toContain('from the template');
    for (const name of ['Game-1', 'Game-2']) expect((await api(`/api/services/${name}/stop`, { method: 'POST' })).status).toBe(200);
    await waitFor(() => !pidAlive(pid), { what: 'the old server stopped' });
  }, 240_000);
});
