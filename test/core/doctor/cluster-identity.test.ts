import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig } from '../../../src/config/schema';
import { clusterTokenFindings, configurationFindings } from '../../../src/core/doctor/configuration';
import { offlineDoctor } from '../../../src/core/doctor/offline';
import { clusterFindings } from '../../../src/core/doctor/runtime-checks';
import { NodeRegistry } from '../../../src/cluster/identity/registry';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((f) => f()));
const STRONG = 'Qm9v-7hX2_pLr8sT1uVw3yZa5bC6dE';

describe('the cluster token in the doctor', () => {
  test.each([
    ['a strong token', STRONG, []],
    ['a short one', 'a-long-random-secret', ['WARN [cluster] token is weak: 20 characters (at least 24 wanted)']],
    ['one of little variety', 'abababababababababababababababab', ['WARN [cluster] token is weak: only 2 different characters']],
    ['the master token itself', 'master-token-0123456789abcdefgh', ["FAIL [cluster] token equals the master token: every agent machine holds the operator's key to the whole API"]],
  ])('%s', (_what, token, expected) => {
    const findings = clusterTokenFindings(token, 'master-token-0123456789abcdefgh');
    expect(findings.map((f) => `${f.level} ${f.message}`)).toEqual(expected);
    for (const f of findings) expect(f.hint).toContain('openssl rand');
  });

  test('part of the Configuration section when the cluster is enabled', () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const config = defaultConfig();
    config.cluster.enabled = true;
    config.cluster.tls_enabled = false;
    config.api.token = 'same-token-as-the-cluster-0123456789';
    config.cluster.token = config.api.token;
    expect(configurationFindings(config, 'config', dir).some((f) => f.level === 'FAIL' && f.message.startsWith('[cluster] token equals the master token'))).toBe(true);
    config.cluster.enabled = false;
    expect(configurationFindings(config, 'config', dir).some((f) => f.message.includes('[cluster] token'))).toBe(false);
  });
});

describe('enrolments in the doctor', () => {
  const overviewOf = (entries: { nodeId: string; connected: boolean | null; confirmed: boolean; revokedAt?: string }[]) => ({
    list: () => entries.filter((e) => e.connected !== null).map((e) => ({ nodeId: e.nodeId, connected: e.connected === true })),
    overview: () =>
      entries.map((e) => ({
        nodeId: e.nodeId,
        node: e.connected === null ? null : { connected: e.connected },
        enrolment: { confirmed: e.confirmed, revokedAt: e.revokedAt ?? null, lastSeenAt: '2026-01-01T00:00:00.000Z' },
      })),
  });

  test('unconfirmed enrolments are listed; revoked ones and enrolled nodes long offline are named', () => {
    const findings = clusterFindings(
      overviewOf([
        { nodeId: 'fresh', connected: true, confirmed: false },
        { nodeId: 'old-agent', connected: true, confirmed: false },
        { nodeId: 'good', connected: true, confirmed: true },
        { nodeId: 'gone', connected: null, confirmed: true },
        { nodeId: 'bad', connected: null, confirmed: true, revokedAt: '2026-01-02T00:00:00.000Z' },
      ]),
    );
    const lines = findings.map((f) => `${f.level} ${f.message}`);
    expect(lines).toContain('WARN enrolment unconfirmed for node(s) fresh, old-agent: they have not logged in with their own secret yet');
    expect(lines).toContain('OK node bad is revoked (since 2026-01-02T00:00:00.000Z)');
    expect(lines).toContain('WARN node gone is enrolled but offline (last seen 2026-01-01T00:00:00.000Z)');
    expect(lines.some((l) => l.includes('good'))).toBe(false);
  });

  test('the offline doctor reads the registry: unconfirmed nodes, and a broken file is a FAIL', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    writeFileSync(join(dir, 'svc.toml'), `[cluster]\nenabled = true\ntoken = "${STRONG}"\n[api]\ntoken = "master-token-0123456789abcdefgh"\n`);
    const registry = new NodeRegistry(join(dir, 'data', 'cluster', 'nodes.json'));
    registry.enrol('pending', 'h');
    registry.enrol('done', 'h');
    registry.confirm('done');
    const probe = () => ({ error: 'not found' });
    const cluster = async () => (await offlineDoctor(dir, join(dir, 'svc.toml'), {}, probe)).sections.find((s) => s.name === 'Cluster')!.findings;
    const lines = (await cluster()).map((f) => `${f.level} ${f.message}`);
    expect(lines).toContain('WARN enrolment unconfirmed for node(s) pending: they have not logged in with their own secret yet');
    expect(lines.some((l) => l.startsWith('OK 2 node(s) enrolled'))).toBe(true);
    mkdirSync(join(dir, 'data', 'cluster'), { recursive: true });
    writeFileSync(join(dir, 'data', 'cluster', 'nodes.json'), 'garbage');
    expect((await cluster()).some((f) => f.level === 'FAIL' && f.message.includes('not valid JSON'))).toBe(true);
  });
});
