/**
 * Pinning cannot be downgraded (issue 37, finding 1). A fake bootstrap (plain HTTP, as an
 * on-path attacker can answer it) offers the controller's real certificate with a channel
 * address of its own choosing, or no certificate, or an extra one; a fake channel server (plain
 * ws:// and TLS with a certificate of its own) records whether anything reached it. Each
 * downgrade is refused when pinned (bootstrap), when pinned.json is loaded, and at connect;
 * the cluster token never reaches the attacker.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../src/log';
import { AgentConnection } from '../../src/agent/agent';
import { loadAgentConfig } from '../../src/agent/config';
import type { LocalServices } from '../../src/agent/local-services';
import { startAgent } from '../../src/agent/run';
import { establishTrust, openChannel, pinProblem, type Pinned } from '../../src/agent/trust';
import { loadOrCreateCertificate } from '../../src/cluster/certificate';
import { CLUSTER_TOKEN, tempDir, waitFor } from '../support/controller';

const tmp = tempDir('svc-trust-');
afterAll(() => {
  attacker.stop(true);
  attackerTls.stop(true);
  bootstrap.stop(true);
  tmp.remove();
});

const { certificate } = await loadOrCreateCertificate(join(tmp.dir, 'controller-tls'), ['localhost', '127.0.0.1', 'controller.example']);
const { certificate: other } = await loadOrCreateCertificate(join(tmp.dir, 'attacker-tls'), ['localhost', '127.0.0.1', 'attacker.example']);

/** Everything that reached the attacker's channel servers: connections and frames (an AUTH_REQUEST would carry the token). */
const reached: string[] = [];
const channelServer = (tls?: { cert: string; key: string }) =>
  Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    tls,
    fetch(request, server) {
      reached.push(`${tls ? 'wss' : 'ws'} ${new URL(request.url).pathname}`);
      return server.upgrade(request) ? undefined : new Response('no');
    },
    websocket: { message: (_ws, message) => void reached.push(String(message)) },
  });
const attacker = channelServer();
const attackerTls = channelServer({ cert: other.certPem, key: other.keyPem });

/** The bootstrap answer the test wants served next. */
let answer: Record<string, unknown> = {};
const bootstrap = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json(answer) });

const genuine = { fingerprint: certificate.fingerprint, certPem: certificate.certPem };
const fine = `wss://127.0.0.1:${attackerTls.port}/cluster`;
const DOWNGRADES: [string, Record<string, unknown>, RegExp][] = [
  ['the real certificate with a plain ws:// address', { ...genuine, wsUrl: `ws://127.0.0.1:${attacker.port}/cluster` }, /is not wss:\/\/ although a certificate is pinned/],
  ['the real certificate with a host it does not name', { ...genuine, wsUrl: `wss://attacker.example:${attackerTls.port}/cluster` }, /host attacker\.example is not one the pinned certificate names/],
  ['an empty certificate', { fingerprint: '', certPem: '', wsUrl: `ws://127.0.0.1:${attacker.port}/cluster` }, /offers no certificate/],
  ['the real certificate followed by another', { ...genuine, certPem: certificate.certPem + other.certPem, wsUrl: fine }, /exactly one certificate/],
  ['another certificate under the real fingerprint', { fingerprint: certificate.fingerprint, certPem: other.certPem, wsUrl: fine }, /does not match its own fingerprint/],
];

let dirs = 0;
function agentDir(extra = ''): { dir: string; dataDir: string; config: string } {
  const dir = join(tmp.dir, `agent-${++dirs}`);
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const config = join(dir, 'agent.toml');
  writeFileSync(config, `[agent]\ncontroller = "${bootstrap.url.href}"\ntoken = "${CLUSTER_TOKEN}"\nnode_name = "n${dirs}"\n${extra}[services]\nisolation = "none"\n`);
  return { dir, dataDir, config };
}

describe('a bootstrap answer that downgrades the pin', () => {
  for (const [what, served, reason] of DOWNGRADES) {
    test(`${what}: refused with agent.fingerprint set and without it, nothing pinned`, async () => {
      answer = served;
      for (const fingerprint of [certificate.fingerprint, '']) {
        const { dataDir } = agentDir();
        const pinning = establishTrust({ dataDir, controller: bootstrap.url.href, token: CLUSTER_TOKEN, fingerprint });
        await expect(pinning).rejects.toThrow(what === 'an empty certificate' && fingerprint ? /agent\.fingerprint is set, but the controller offers no certificate/ : reason);
        expect(existsSync(join(dataDir, 'pinned.json'))).toBe(false);
      }
    });
  }

  test('startAgent refuses to start: nothing reaches the attacker, the token least of all', async () => {
    for (const [, served] of DOWNGRADES) {
      answer = served;
      const { dir, config } = agentDir(`fingerprint = "${certificate.fingerprint}"\n`);
      await expect(startAgent({ dir, configPath: config, env: {}, timing: { backoffMs: 10, maxBackoffMs: 20 } })).rejects.toThrow(/the bootstrap answer from .* is refused/);
    }
    expect(reached).toEqual([]);
  });

  test('a controller without TLS needs allow_insecure = true, and never with a fingerprint', async () => {
    answer = { fingerprint: '', certPem: '', wsUrl: `ws://127.0.0.1:${attacker.port}/cluster` };
    const plain = agentDir();
    await expect(establishTrust({ dataDir: plain.dataDir, controller: bootstrap.url.href, token: CLUSTER_TOKEN, fingerprint: '' })).rejects.toThrow(/set allow_insecure = true in agent\.toml/);
    const allowed = await establishTrust({ dataDir: plain.dataDir, controller: bootstrap.url.href, token: CLUSTER_TOKEN, fingerprint: '', allowInsecure: true });
    expect(allowed.wsUrl).toBe(`ws://127.0.0.1:${attacker.port}/cluster`);
    expect(openChannel(allowed, { fingerprint: '', allowInsecure: true })).toMatchObject({ insecure: true, tls: null, dataOrigin: `http://127.0.0.1:${attacker.port}` });
    // With allow_insecure, still no wss:// without a certificate to check it with.
    expect(pinProblem({ ...allowed, wsUrl: 'wss://127.0.0.1:1/cluster' }, { fingerprint: '', allowInsecure: true })).toContain('only a plain ws:// address');
    const pinnedPlain = agentDir();
    await expect(establishTrust({ dataDir: pinnedPlain.dataDir, controller: bootstrap.url.href, token: CLUSTER_TOKEN, fingerprint: certificate.fingerprint, allowInsecure: true })).rejects.toThrow(/agent\.fingerprint is set/);
    // The key is off by default, documented in the default agent.toml.
    const fresh = join(tmp.dir, 'fresh-agent.toml');
    const loaded = loadAgentConfig(fresh, { SVC_CLUSTER_TOKEN: CLUSTER_TOKEN });
    expect(loaded.config.agent.allow_insecure).toBe(false);
  });

  test('the genuine answer is pinned: wss:// to a host the certificate names, data over https on the same port', async () => {
    answer = { ...genuine, wsUrl: `wss://controller.example:8443/cluster` };
    const { dataDir } = agentDir();
    const pinned = await establishTrust({ dataDir, controller: bootstrap.url.href, token: CLUSTER_TOKEN, fingerprint: certificate.fingerprint.toLowerCase().replaceAll(':', '') });
    const channel = openChannel(pinned, { fingerprint: certificate.fingerprint, allowInsecure: false });
    expect(channel).toMatchObject({ wsUrl: 'wss://controller.example:8443/cluster', dataOrigin: 'https://controller.example:8443', insecure: false });
    expect(channel.tls?.ca).toBe(certificate.certPem);
  });
});

describe('pinned.json that breaks the rules (an old pin, or one edited by hand)', () => {
  const pinnedFile = (pinned: Partial<Pinned>, extra = '') => {
    const paths = agentDir(extra);
    writeFileSync(join(paths.dataDir, 'pinned.json'), JSON.stringify({ pinnedAt: 'then', ...pinned }));
    return paths;
  };

  test('refused when loaded, before anything is sent anywhere', async () => {
    for (const [, served, reason] of DOWNGRADES) {
      const { dataDir } = pinnedFile(served as Partial<Pinned>);
      await expect(establishTrust({ dataDir, controller: bootstrap.url.href, token: CLUSTER_TOKEN, fingerprint: '' })).rejects.toThrow(reason);
    }
    const { dir, config } = pinnedFile({ ...genuine, wsUrl: `ws://127.0.0.1:${attacker.port}/cluster` });
    await expect(startAgent({ dir, configPath: config, env: {} })).rejects.toThrow(/pinned\.json: the channel address .* is not wss:\/\//);
    expect(reached).toEqual([]);
  });

  test('at connect: a pin that breaks the rules opens no socket, a stranger\'s certificate gets no AUTH_REQUEST', async () => {
    const quiet = { info() {}, warn() {}, error() {}, child: () => quiet } as unknown as Logger;
    const services = { count: 0, isolation: 'none', running: () => [] } as unknown as LocalServices;
    const { config } = loadAgentConfig(agentDir().config, {});
    const downgraded = new AgentConnection(config, { ...genuine, wsUrl: `ws://127.0.0.1:${attacker.port}/cluster`, pinnedAt: '' }, services, quiet, { backoffMs: 10, maxBackoffMs: 20 });
    downgraded.start();
    expect(downgraded.lastRefusal).toContain('is not wss://');
    downgraded.close();
    // A well-formed pin whose host answers with another certificate: the TLS handshake fails, nothing is sent.
    const pinnedElsewhere = new AgentConnection(config, { ...genuine, wsUrl: `wss://127.0.0.1:${attackerTls.port}/cluster`, pinnedAt: '' }, services, quiet, { backoffMs: 10, maxBackoffMs: 20 });
    const errors: string[] = [];
    const watching = { ...quiet, warn: (...args: unknown[]) => void errors.push(String(args.at(-1))) } as unknown as Logger;
    Object.assign(pinnedElsewhere, { log: watching });
    pinnedElsewhere.start();
    await waitFor(() => errors.some((e) => e.includes('cluster connection failed')), { what: 'the handshake refused' });
    pinnedElsewhere.close();
    expect(errors.join('\n')).toContain('the controller did not present the pinned certificate');
    expect(reached).toEqual([]);
  });
});

describe('agent.cluster_url: pinning from the channel itself', () => {
  test('needs a wss:// address and a fingerprint', () => {
    const write = (body: string) => {
      const { config } = agentDir();
      writeFileSync(config, `[agent]\ncontroller = "http://127.0.0.1:1"\ntoken = "${CLUSTER_TOKEN}"\n${body}\n`);
      return config;
    };
    expect(() => loadAgentConfig(write('cluster_url = "wss://controller.example:8443/cluster"'), {})).toThrow(/needs agent\.fingerprint/);
    expect(() => loadAgentConfig(write(`cluster_url = "ws://controller.example:8443/cluster"\nfingerprint = "${certificate.fingerprint}"`), {})).toThrow(/must be a wss:\/\/ address/);
    expect(loadAgentConfig(write(`cluster_url = "wss://controller.example:8443/cluster"\nfingerprint = "${certificate.fingerprint}"`), {}).config.agent.cluster_url).toBe('wss://controller.example:8443/cluster');
  });
});
