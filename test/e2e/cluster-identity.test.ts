/**
 * Node identities through the compiled binary: an agent enrols on its first connect (its
 * secret in data/node.json, only a digest on the controller), logs in with it after a restart,
 * a holder of the cluster token cannot take its id (live or not), and once revoked the agent is
 * refused and does not fall back to the cluster token; forgotten, and its file deleted, it enrols again.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';

const TOKEN = 'e2e-identity-master-token-0123456789';
const CLUSTER = 'e2e-identity-cluster-token-0123456789';
let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

function spawn(args: string[]) {
  const child = Bun.spawn([svc, ...args], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', SVC_API_TOKEN: TOKEN }, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  return { child, out: new LineCollector(child.stdout), err: new LineCollector(child.stderr) };
}

describe('node identities (compiled binary)', () => {
  test('enrol, restart with the secret, no takeover, revocation without fallback, re-enrolment', async () => {
    const { dir: root, remove } = tempDir('svc-e2e-identity-');
    cleanups.push(remove);
    const controllerDir = join(root, 'controller');
    mkdirSync(controllerDir, { recursive: true });
    const apiPort = freePort();
    writeFileSync(
      join(controllerDir, 'svc.toml'),
      `[api]\nport = ${apiPort}\nrate_limit = 0\nservice_rate_limit = 0\n[cluster]\nenabled = true\ntoken = "${CLUSTER}"\nagent_port = ${freePort()}\nbind = "127.0.0.1"\npublic_host = "127.0.0.1"\nheartbeat_interval = 300\nnode_timeout = 2500\n[services]\nisolation = "none"\n`,
    );
    const url = `http://127.0.0.1:${apiPort}`;
    const api = (path: string, method = 'GET') => fetch(url + path, { method, headers: { authorization: `Bearer ${TOKEN}` } });
    const controller = spawn(['--dir', controllerDir]);
    await controller.out.waitForLine((l) => l.includes('API listening'), 20_000);

    const agentDir = join(root, 'agent');
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(join(agentDir, 'agent.toml'), `[agent]\ncontroller = "${url}"\ntoken = "${CLUSTER}"\nnode_name = "node-x"\npublic_host = "127.0.0.1"\n[services]\nisolation = "none"\n`);
    const node = async () => ((await readJson(await api('/api/nodes'))).nodes as { nodeId: string; isConnected: boolean; enrolment: string }[]).find((n) => n.nodeId === 'node-x');

    // First connect: enrolled, the secret kept owner-only on the agent, a digest on the controller.
    let agent = spawn(['agent', '--dir', agentDir]);
    await waitFor(async () => (await node())?.isConnected, { what: 'node-x connected', timeoutMs: 20_000, intervalMs: 100 });
    const nodeFile = join(agentDir, 'data', 'node.json');
    await waitFor(() => existsSync(nodeFile), { what: 'data/node.json' });
    const secret = JSON.parse(readFileSync(nodeFile, 'utf8')).secret as string;
    expect(secret).toMatch(/^svcn_/);
    expect(statSync(nodeFile).mode & 0o777).toBe(0o600);
    const registry = readFileSync(join(controllerDir, 'data', 'cluster', 'nodes.json'), 'utf8');
    expect(registry).not.toContain(secret);
    expect(registry).toContain(createHash('sha256').update(secret).digest('hex'));
    expect((await node())!.enrolment).toBe('unconfirmed');

    // A restart logs in with the secret: confirmed.
    agent.child.kill('SIGTERM');
    await agent.child.exited;
    agent = spawn(['agent', '--dir', agentDir]);
    await waitFor(async () => (await node())?.enrolment === 'confirmed' && (await node())?.isConnected, { what: 'node-x back, confirmed', timeoutMs: 20_000, intervalMs: 100 });

    // The cluster token does not take the id, live or not.
    const bootstrap = await readJson(await fetch(`${url}/api/cluster/bootstrap`, { headers: { authorization: `Bearer ${CLUSTER}` } }));
    const impostor = async () => {
      const ws = new WebSocket(bootstrap.wsUrl, { tls: { ca: bootstrap.certPem } } as unknown as ConstructorParameters<typeof WebSocket>[1]);
      const frames: { accepted: boolean; refusal?: string; reason: string }[] = [];
      let closed = false;
      ws.addEventListener('open', () =>
        ws.send(JSON.stringify({ type: 'AUTH_REQUEST', protocolVersion: 1, token: CLUSTER, nodeName: 'node-x', agentVersion: '0.13.0', maxMemory: 0, maxServices: 0, currentServices: 0, os: 'linux', arch: 'x64', hostname: 'h', osVersion: '', cpuModel: '', availableProcessors: 1, systemMemoryTotalMb: 1, publicHost: '203.0.113.66', runningServices: [] })),
      );
      ws.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data))));
      ws.addEventListener('close', () => (closed = true));
      await waitFor(() => closed, { what: 'impostor closed' });
      return frames[0]!;
    };
    expect(await impostor()).toMatchObject({ accepted: false, refusal: 'enrolled' });
    expect((await node())!.isConnected).toBe(true);

    // Revoked: refused, and the agent does not fall back to the cluster token.
    expect((await api('/api/nodes/node-x/revoke', 'POST')).status).toBe(200);
    await agent.out.waitForLine((l) => l.includes('was revoked by the operator') && l.includes('does not fall back to the cluster token'), 20_000);
    expect((await node())!.enrolment).toBe('revoked');
    expect(await impostor()).toMatchObject({ accepted: false, refusal: 'revoked' });
    const enrolments = (await readJson(await api('/api/audit?action=NODE_ENROLLED'))).entries as unknown[];
    expect(enrolments).toHaveLength(1);

    // Forgotten, and its file deleted: the same agent enrols afresh (it re-reads the file at its next try).
    agent.child.kill('SIGTERM');
    await agent.child.exited;
    expect((await api('/api/nodes/node-x', 'DELETE')).status).toBe(200);
    rmSync(nodeFile);
    agent = spawn(['agent', '--dir', agentDir]);
    await waitFor(async () => (await node())?.isConnected, { what: 'node-x enrolled again', timeoutMs: 20_000, intervalMs: 100 });
    await waitFor(() => existsSync(nodeFile), { what: 'a new data/node.json' });
    expect(JSON.parse(readFileSync(nodeFile, 'utf8')).secret).not.toBe(secret);
  }, 120_000);
});
