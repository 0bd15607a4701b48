import { describe, expect, test } from 'bun:test';
import { defaultConfig } from '../../../src/config/schema';
import { configurationFindings } from '../../../src/core/doctor/configuration';
import { environmentFindings } from '../../../src/core/doctor/environment';
import type { JavaProbe } from '../../../src/core/doctor/java-probe';
import { fail, ok, runDoctor, warn } from '../../../src/core/doctor/model';
import { clusterFindings, serviceFindings } from '../../../src/core/doctor/runtime-checks';
import { storageFindings } from '../../../src/core/doctor/storage';
import { groupDefaults, type Group } from '../../../src/core/groups/model';
import { newRecord, ServiceRegistry } from '../../../src/core/services/registry';
import { tempDir } from '../../support/controller';

const group = (fields: Partial<Group>): Group => ({ ...groupDefaults(), name: 'G', software: 'PAPER', version: '1.21.1', ...fields });
const levels = (findings: { level: string }[]) => findings.map((f) => f.level);

describe('runDoctor', () => {
  test('counts and status; a section that throws is one FAIL, the rest still run', async () => {
    const report = await runDoctor([
      { name: 'A', run: () => [ok('fine'), warn('hmm')] },
      { name: 'B', run: () => { throw new Error('boom'); } },
      { name: 'C', run: async () => [ok('still ran')] },
    ]);
    expect(report.sections.map((s) => s.name)).toEqual(['A', 'B', 'C']);
    expect(report.sections[1]!.findings[0]).toMatchObject({ level: 'FAIL', message: 'the B check itself failed: boom' });
    expect(report).toMatchObject({ warnCount: 1, failCount: 1, status: 'fail' });
    expect((await runDoctor([{ name: 'A', run: () => [warn('w')] }])).status).toBe('warn');
    expect((await runDoctor([{ name: 'A', run: () => [ok('o')] }])).status).toBe('ok');
    expect((await runDoctor([{ name: 'A', run: () => [ok('o'), fail('f')] }])).status).toBe('fail');
  });
});

describe('Environment: Java for the groups that need it', () => {
  const java = defaultConfig().java;
  const probeOf = (answers: Record<string, ReturnType<JavaProbe>>): JavaProbe => (binary) => answers[binary] ?? { error: 'not found' };

  test('a group on 1.21 with Java 17 on PATH fails, naming the key to set', () => {
    const findings = environmentFindings([group({})], java, probeOf({ java: { major: 17, version: '17.0.2' } }));
    expect(findings[0]).toMatchObject({ level: 'FAIL', message: 'Java "java" is 17.0.2; group G need Java 21' });
    expect(findings[0]!.hint).toContain('java_21');
  });

  test('the configured binary per major is probed; a good one is OK', () => {
    const config = { ...java, java_17: '/opt/jdk17/bin/java', java_21: '/opt/jdk21/bin/java' };
    const findings = environmentFindings([group({ name: 'Old', version: '1.19.4' }), group({ name: 'New' })], config, probeOf({ '/opt/jdk17/bin/java': { major: 17, version: '17.0.9' }, '/opt/jdk21/bin/java': { major: 21, version: '21.0.1' } }));
    expect(levels(findings).slice(0, 2)).toEqual(['OK', 'OK']);
  });

  test('a missing binary fails; groups with their own command need none', () => {
    expect(environmentFindings([group({})], java, probeOf({}))[0]!.level).toBe('FAIL');
    const own = environmentFindings([group({ software: 'CUSTOM', jarName: 'x.jar' }), group({ startCommand: ['run.sh'] })], java, probeOf({}));
    // Informational: OK (the dashboard knows only OK/WARN/FAIL), its message says why.
    expect(own[0]).toMatchObject({ level: 'OK', message: 'no group runs a Java server; no java on PATH either' });
  });
});

describe('Configuration', () => {
  test('bind 0.0.0.0 without JWTs warns; a cluster without a token fails', () => {
    const config = defaultConfig();
    config.api.bind = '0.0.0.0';
    config.cluster.enabled = true;
    config.cluster.tls_enabled = false;
    const findings = configurationFindings(config, 'config', tempDir().dir);
    expect(findings.map((f) => `${f.level} ${f.message.slice(0, 31)}`)).toEqual([
      'OK the master token comes from [ap',
      'WARN [api] bind = 0.0.0.0 without jw',
      'FAIL [cluster] enabled without a tok',
      'WARN [cluster] tls_enabled = false: ',
    ]);
    expect(findings.at(-1)?.message).toContain('allow_insecure = true');
  });

  test('a cluster with TLS but no certificate yet fails', () => {
    const config = defaultConfig();
    config.cluster.enabled = true;
    config.cluster.token = 'x';
    expect(configurationFindings(config, 'environment', tempDir().dir).some((f) => f.level === 'FAIL' && f.message.includes('no certificate'))).toBe(true);
  });
});

describe('Storage', () => {
  test('a missing folder warns; existing ones report the free space once per file system', () => {
    const { dir } = tempDir();
    const findings = storageFindings({ data: dir, config: dir, logs: dir, templates: dir, services: dir, dedicated: `${dir}/nope` });
    expect(findings.filter((f) => f.message.includes('free under'))).toHaveLength(1);
    expect(findings.find((f) => f.message.includes('nope'))!.level).toBe('WARN');
  });
});

describe('Services and Cluster', () => {
  test('crashed, slow, stuck and looping services each warn', () => {
    const registry = new ServiceRegistry();
    const add = (name: string, patch: Record<string, unknown>) => registry.add(Object.assign(newRecord({ name, group: 'G', port: 1, workDir: '', isStatic: false, isProxy: false, memoryMaxMb: 1, restartCount: 0 }), patch));
    add('G-1', { state: 'CRASHED', diagnosis: 'out of memory' });
    add('G-2', { state: 'READY', tps: 9.5 });
    add('G-3', { state: 'STARTING', startedAt: new Date(Date.now() - 11 * 60_000) });
    add('G-4', { state: 'READY', restartCount: 4 });
    add('G-5', { state: 'READY', tps: 20 });
    const messages = serviceFindings(registry).map((f) => `${f.level} ${f.message}`);
    expect(messages).toEqual(['WARN G-1 crashed: out of memory', 'WARN G-2 runs at 9.5 TPS', 'WARN G-3 has been STARTING for 11 min', 'WARN G-4 was restarted 4 times']);
    expect(serviceFindings(new ServiceRegistry())[0]).toMatchObject({ level: 'OK', message: 'no services run' });
  });

  test('cluster: none online fails, some away warns, disabled is only information', () => {
    expect(clusterFindings({ list: () => [] })[0]!.level).toBe('FAIL');
    expect(levels(clusterFindings({ list: () => [{ nodeId: 'a', connected: true }, { nodeId: 'b', connected: false }] }))).toEqual(['OK', 'WARN']);
    expect(clusterFindings(null)).toEqual([{ level: 'OK', message: 'the cluster is not enabled: every service runs on this machine', hint: null }]);
  });
});
