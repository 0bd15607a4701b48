import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { join } from 'node:path';
import { startAgent, type RunningAgent } from '../../src/agent/run';
import { templateArchiveHash, templateDigest } from '../../src/cluster/template-archive';
import { CLUSTER_TOKEN, readJson, startController, tempDir, waitFor, type TestController } from '../support/controller';

/**
 * A controller and an agent in one process, over a real TLS socket: the agent pins the
 * certificate, logs in, and runs a group's instance; READY, console lines, exec and stop
 * work through the channel as for a local service.
 */
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
let c: TestController;
const agents: RunningAgent[] = [];
const agentDirs = new Map<string, string>();
const cleanups: (() => void)[] = [];

async function agent(nodeName: string): Promise<RunningAgent> {
  const { dir, remove } = tempDir('svc-agent-');
  cleanups.push(remove);
  agentDirs.set(nodeName, dir);
  writeFileSync(join(dir, 'agent.toml'), `[agent]\ncontroller = "${c.url}"\ntoken = "${CLUSTER_TOKEN}"\nnode_name = "${nodeName}"\npublic_host = "127.0.0.1"\nbackend_port_start = ${nodeName === 'node-a' ? 41000 : 42000}\n[services]\nisolation = "none"\n`);
  const running = await startAgent({ dir, configPath: join(dir, 'agent.toml'), env: {}, timing: { backoffMs: 100, maxBackoffMs: 500 } });
  agents.push(running);
  return running;
}

beforeAll(async () => {
  c = await startController({
    clusterToml: 'enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"',
    timing: { stopTimeoutMs: 3000 },
    cluster: { heartbeatIntervalMs: 200, nodeTimeoutMs: 1500, reconciliationDelayMs: 1500 },
  });
});
afterAll(async () => {
  for (const a of agents) await a.stop({ stopServices: true });
  await c.stop();
  for (const f of cleanups) f();
});

describe('cluster with an in-process agent', () => {
  test('the agent connects and a pinned group runs on it', async () => {
    const a = await agent('node-a');
    await waitFor(() => a.connection.connected, { what: 'agent connected' });
    const nodes = await readJson(await c.api('/api/nodes'));
    expect(nodes.nodes.map((n: { nodeId: string }) => n.nodeId)).toEqual(['node-a']);
    // The agent reports the Bun it runs on (the same binary as this test here).
    expect(nodes.nodes[0].system.runtimeVersion).toBe(`Bun ${Bun.version}`);
    mkdirSync(join(c.controller.kernel.paths.templates, 'Remote'), { recursive: true });
    writeFileSync(join(c.controller.kernel.paths.templates, 'Remote', 'motd.txt'), 'from the controller');
    const group = { name: 'Remote', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0, maxInstances: 2, placementNode: 'node-a', placementFallback: 'fail' };
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
    const res = await c.api('/api/services/Remote/start', { method: 'POST' });
    const body = await readJson(res);
    expect(res.status).toBe(201);
    expect(body.service).toMatchObject({ name: 'Remote-1', nodeId: 'node-a', host: '127.0.0.1' });
    await waitFor(() => c.controller.kernel.services.get('Remote-1')?.state === 'READY', { what: 'Remote-1 READY', timeoutMs: 10_000 });
    expect(c.controller.kernel.services.get('Remote-1')!.port).toBeGreaterThanOrEqual(41000);
    // The template came by hash into the agent's cache, and from there into the work dir.
    const cached = readdirSync(join(agentDirs.get('node-a')!, 'cache', 'templates'));
    expect(cached).toEqual([expect.stringMatching(/^Remote@[0-9a-f]{64}$/)]);
    const workDirs = readdirSync(join(agentDirs.get('node-a')!, 'services', 'temp'));
    expect(readFileSync(join(agentDirs.get('node-a')!, 'services', 'temp', workDirs[0]!, 'motd.txt'), 'utf8')).toBe('from the controller');
    expect((await c.api('/api/services/Remote-1/stop', { method: 'POST' })).status).toBe(200);
    await waitFor(() => !c.controller.kernel.services.get('Remote-1'), { what: 'Remote-1 gone', timeoutMs: 10_000 });
    expect(a.services.count).toBe(0);
  });

  test('migrate: to this machine by name, then back by the strategy; same name, new node', async () => {
    const a = agents[0]!;
    const group = { name: 'Mover', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0, maxInstances: 1, placementNode: 'node-a', placementFallback: 'fail' };
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
    expect((await c.api('/api/services/Mover/start', { method: 'POST' })).status).toBe(201);
    await waitFor(() => c.controller.kernel.services.get('Mover-1')?.state === 'READY', { what: 'Mover-1 READY', timeoutMs: 10_000 });
    const unknown = await c.api('/api/services/Mover-1/migrate', { method: 'POST', json: { target: 'node-zz' } });
    expect(unknown.status).toBe(404);
    expect((await readJson(unknown)).error).toBe('NODE_NOT_FOUND');
    const here = await c.api('/api/services/Mover-1/migrate', { method: 'POST', json: { target: 'local' }, token: c.service });
    const moved = await readJson(here);
    expect(here.status).toBe(200);
    expect(moved.service).toMatchObject({ name: 'Mover-1', nodeId: 'local', host: '127.0.0.1' });
    expect(moved.message).toBe('Mover-1 moved from node node-a to node local');
    expect(a.services.running().map((s) => s.serviceName)).not.toContain('Mover-1');
    await waitFor(() => c.controller.kernel.services.get('Mover-1')?.state === 'READY', { what: 'Mover-1 READY here', timeoutMs: 10_000 });
    const back = await readJson(await c.api('/api/services/Mover-1/migrate', { method: 'POST', json: {} }));
    expect(back.service).toMatchObject({ name: 'Mover-1', nodeId: 'node-a' });
    const same = await c.api('/api/services/Mover-1/migrate', { method: 'POST', json: { target: 'node-a' } });
    expect(same.status).toBe(409);
    expect((await c.api('/api/services/Nope-1/migrate', { method: 'POST', json: {} })).status).toBe(404);
    expect((await c.api('/api/services/Mover-1/migrate', { method: 'POST', json: {}, token: null })).status).toBe(401);
  });

  test('templates: a ZIP with the overlay laid over it, its hash, ?token= accepted (an operator here; the cluster token opens none of it)', async () => {
    const templates = c.controller.kernel.paths.templates;
    mkdirSync(join(templates, 'lobby', 'plugins'), { recursive: true });
    mkdirSync(join(templates, 'global'), { recursive: true });
    writeFileSync(join(templates, 'lobby', 'plugins', 'a.txt'), 'from lobby');
    writeFileSync(join(templates, 'lobby', 'shared.txt'), 'lobby version');
    writeFileSync(join(templates, 'global', 'shared.txt'), 'global version');
    const res = await c.api(`/api/templates/lobby/download?software=PAPER&token=${c.master}`, { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const text = (name: string) => new TextDecoder().decode(files[name]);
    expect(Object.keys(files).sort()).toEqual(['plugins/a.txt', 'shared.txt']);
    expect(text('plugins/a.txt')).toBe('from lobby');
    expect(text('shared.txt')).toBe('global version');
    const hash = await readJson(await c.api(`/api/templates/lobby/hash?software=PAPER&token=${c.master}`, { token: null }));
    // /hash keeps the reference's format (what its agents compare); the download names the
    // content digest of exactly what the ZIP carries, which svc agents check what they unpack against.
    expect(hash).toEqual({ name: 'lobby', software: 'PAPER', hash: await templateArchiveHash(templates, 'lobby', 'PAPER') });
    expect(res.headers.get('x-template-hash')).toBe(await templateDigest(templates, 'lobby', 'PAPER'));
    // CUSTOM has no overlay: another file set, another hash.
    const custom = await readJson(await c.api('/api/templates/lobby/hash?software=CUSTOM', { token: c.master }));
    expect(custom.hash).not.toBe(hash.hash);
    writeFileSync(join(templates, 'lobby', 'plugins', 'a.txt'), 'changed');
    expect((await readJson(await c.api('/api/templates/lobby/hash?software=PAPER', { token: c.master }))).hash).not.toBe(hash.hash);
    const missing = await c.api('/api/templates/nope/download', { token: c.master });
    expect(missing.status).toBe(404);
    expect((await readJson(missing)).error).toBe('TEMPLATE_NOT_FOUND');
    expect((await c.api('/api/templates/..%2Fetc/hash', { token: c.master })).status).toBe(400);
    expect((await c.api('/api/templates/lobby/hash', { token: c.cluster })).status).toBe(403);
    expect((await c.api('/api/templates/lobby/hash?token=wrong', { token: null })).status).toBe(401);
    expect((await c.api('/api/templates/lobby/hash', { token: c.service })).status).toBe(403);
  });

  test('state sync: a static instance moved to another agent takes its files along', async () => {
    const b = await agent('node-b');
    await waitFor(() => b.connection.connected, { what: 'node-b connected' });
    const group = { name: 'Keep', type: 'STATIC', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0, maxInstances: 1, placementNode: 'node-a', placementFallback: 'fail', syncEnabled: true, syncExcludes: ['cache'] };
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
    expect((await c.api('/api/services/Keep/start', { method: 'POST' })).status).toBe(201);
    await waitFor(() => c.controller.kernel.services.get('Keep-1')?.state === 'READY', { what: 'Keep-1 READY on node-a', timeoutMs: 10_000 });
    const onA = join(agentDirs.get('node-a')!, 'services', 'static', 'Keep-1');
    mkdirSync(join(onA, 'world'), { recursive: true });
    mkdirSync(join(onA, 'cache'), { recursive: true });
    writeFileSync(join(onA, 'world', 'level.dat'), 'the world as players left it');
    writeFileSync(join(onA, 'cache', 'skip.bin'), 'not synced');
    const moved = await readJson(await c.api('/api/services/Keep-1/migrate', { method: 'POST', json: { target: 'node-b' } }));
    expect(moved.service).toMatchObject({ name: 'Keep-1', nodeId: 'node-b' });
    const onB = join(agentDirs.get('node-b')!, 'services', 'static', 'Keep-1');
    expect(readFileSync(join(onB, 'world', 'level.dat'), 'utf8')).toBe('the world as players left it');
    expect(existsSync(join(onB, 'cache', 'skip.bin'))).toBe(false);
    const view = await readJson(await c.api('/api/services/Keep-1'));
    expect(view.sync.lastPushFiles).toBeGreaterThanOrEqual(1);
    // To this machine and back: the controller pulls before a local start and pushes after a local stop.
    writeFileSync(join(onB, 'world', 'level.dat'), 'changed on node-b');
    expect((await readJson(await c.api('/api/services/Keep-1/migrate', { method: 'POST', json: { target: 'local' } }))).service.nodeId).toBe('local');
    const local = c.controller.kernel.services.get('Keep-1')!.workDir;
    expect(readFileSync(join(local, 'world', 'level.dat'), 'utf8')).toBe('changed on node-b');
    writeFileSync(join(local, 'world', 'level.dat'), 'changed here');
    expect((await readJson(await c.api('/api/services/Keep-1/migrate', { method: 'POST', json: { target: 'node-a' } }))).service.nodeId).toBe('node-a');
    expect(readFileSync(join(onA, 'world', 'level.dat'), 'utf8')).toBe('changed here');
    await c.api('/api/services/Keep-1/stop', { method: 'POST' });
    await waitFor(() => !c.controller.kernel.services.get('Keep-1'), { what: 'Keep-1 stopped' });
  });
});

describe('an agent started before its controller', () => {
  test('waits for the controller (backoff), then pins and connects; a refused token is not retried', async () => {
    const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const { dir, remove } = tempDir('svc-agent-early-');
    cleanups.push(remove);
    writeFileSync(join(dir, 'agent.toml'), `[agent]\ncontroller = "http://127.0.0.1:${port}"\ntoken = "${CLUSTER_TOKEN}"\nnode_name = "early"\npublic_host = "127.0.0.1"\n[services]\nisolation = "none"\n`);
    const starting = startAgent({ dir, configPath: join(dir, 'agent.toml'), env: {}, timing: { backoffMs: 50, maxBackoffMs: 200 } });
    const late = await startController({ port, clusterToml: 'enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"' });
    try {
      const early = await starting;
      agents.push(early);
      await waitFor(() => early.connection.connected, { what: 'the early agent connected' });
      expect(late.controller.kernel.cluster!.cluster.isConnected('early')).toBe(true);
      // A wrong token is the operator's to fix: refused at once, not retried forever.
      const other = tempDir('svc-agent-wrong-');
      cleanups.push(other.remove);
      writeFileSync(join(other.dir, 'agent.toml'), `[agent]\ncontroller = "${late.url}"\ntoken = "wrong-token"\nnode_name = "wrong"\n`);
      await expect(startAgent({ dir: other.dir, configPath: join(other.dir, 'agent.toml'), env: {} })).rejects.toThrow('the controller refused the bootstrap request (401)');
    } finally {
      await late.stop();
    }
  });
});
