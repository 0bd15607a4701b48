/**
 * ProxyUpdates against the PaperMC fake: what a check finds, the events in order, applying to
 * groups and dedicated proxies, the background timer and its off switch, checks one at a time.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ProxyUpdates } from '../../../../src/core/proxy/updates';
import { fakePaperMc } from '../../../fixtures/upstream/papermc';
import { digest, fakeJar, gate } from '../../../fixtures/upstream/serve';
import { waitFor } from '../../../support/controller';
import { brokenVelocity, network, updateEvents, updater, type Network } from './support';

const BUILD_450 = fakeJar('velocity 3.4.0-SNAPSHOT build 450');
const BUILD_500 = fakeJar('velocity 3.4.0-SNAPSHOT build 500');
const BUILD_510 = fakeJar('velocity 3.4.0-SNAPSHOT build 510 (beta)');
const OLD = fakeJar('velocity 3.3.0-SNAPSHOT build 400');
const project = {
  // 3.5.0-SNAPSHOT has only a beta build yet: the latest stable build is 3.4.0-SNAPSHOT build 500.
  versions: { '3.0.0': ['3.5.0-SNAPSHOT', '3.4.0-SNAPSHOT', '3.3.0-SNAPSHOT'] },
  builds: {
    '3.5.0-SNAPSHOT': [{ id: 1, jar: fakeJar('3.5 alpha'), channel: 'BETA' as const }],
    '3.4.0-SNAPSHOT': [
      { id: 450, jar: BUILD_450 },
      { id: 500, jar: BUILD_500 },
      { id: 510, jar: BUILD_510, channel: 'BETA' as const },
    ],
    '3.3.0-SNAPSHOT': [{ id: 400, jar: OLD }],
  },
};
const papermc = fakePaperMc({ velocity: project });
const hold = gate();
const gated = fakePaperMc({ velocity: { ...project, builds: { ...project.builds, '3.4.0-SNAPSHOT': [{ id: 500, jar: BUILD_500, gate: hold.promise }] } } });
const failing = brokenVelocity('500', BUILD_500);
afterAll(() => {
  hold.open();
  [papermc, gated, failing].forEach((f) => f.close());
});

let net: Network;
let updates: ProxyUpdates | undefined;
beforeEach(() => (net = network()));
afterEach(() => {
  updates?.stop();
  updates = undefined;
  net.remove();
});

const sha = (path: string) => digest('sha256', readFileSync(path));

describe('a check', () => {
  test('applying: PROXY_UPDATE_AVAILABLE, GROUP_UPDATED, then PROXY_UPDATE_APPLIED once the jar and the version are written', async () => {
    const jar = net.proxyGroup('Proxy', '3.3.0-SNAPSHOT', OLD);
    let atApplied: { sha: string; version: string } | undefined;
    net.bus.subscribe((event) => {
      if (event.type === 'PROXY_UPDATE_APPLIED') atApplied = { sha: sha(jar), version: net.groupOnDisk('Proxy')!.version };
    });
    updates = updater(net, papermc.url);
    const results = await updates.checkNow({ apply: true, actor: 'console' });

    expect(updateEvents(net.events)).toEqual([
      ['PROXY_UPDATE_AVAILABLE', { currentVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }],
      ['GROUP_UPDATED', { group: 'Proxy' }],
      ['PROXY_UPDATE_APPLIED', { oldVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }],
    ]);
    expect(net.events.find((e) => e.type === 'PROXY_UPDATE_APPLIED')!.actor).toBe('console');
    expect(atApplied).toEqual({ sha: digest('sha256', BUILD_500), version: '3.4.0-SNAPSHOT' });
    expect(results).toEqual([
      {
        kind: 'group',
        name: 'Proxy',
        outcome: 'applied',
        currentVersion: '3.3.0-SNAPSHOT',
        newVersion: '3.4.0-SNAPSHOT',
        message: 'group Proxy: VELOCITY 3.3.0-SNAPSHOT → 3.4.0-SNAPSHOT applied; instances started from now on run it; running ones keep theirs until they restart',
      },
    ]);

    // Now current: a second check publishes nothing.
    const again = await updates.checkNow({ apply: true });
    expect(again[0]).toMatchObject({ outcome: 'current', message: 'group Proxy: VELOCITY 3.4.0-SNAPSHOT is current (latest stable: 3.4.0-SNAPSHOT build 500)' });
    expect(updateEvents(net.events)).toHaveLength(3);
  });

  test('without applying: PROXY_UPDATE_AVAILABLE once per new version, nothing changed', async () => {
    const jar = net.proxyGroup('Proxy', '3.3.0-SNAPSHOT', OLD);
    updates = updater(net, papermc.url);
    expect((await updates.checkNow({ apply: false }))[0]).toMatchObject({ outcome: 'available', newVersion: '3.4.0-SNAPSHOT' });
    expect((await updates.checkNow({ apply: false }))[0]).toMatchObject({ outcome: 'available' });
    expect(updateEvents(net.events)).toEqual([['PROXY_UPDATE_AVAILABLE', { currentVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }]]);
    expect(sha(jar)).toBe(digest('sha256', OLD));
    expect(net.groupOnDisk('Proxy')!.version).toBe('3.3.0-SNAPSHOT');
    // Applying later publishes APPLIED without announcing the same version again.
    await updates.checkNow({ apply: true });
    expect(updateEvents(net.events).map(([type]) => type)).toEqual(['PROXY_UPDATE_AVAILABLE', 'GROUP_UPDATED', 'PROXY_UPDATE_APPLIED']);
  });

  test('the same version with an older build: the jar is replaced, the version stays, the events name the builds', async () => {
    const jar = net.proxyGroup('Proxy', '3.4.0-SNAPSHOT', BUILD_450);
    updates = updater(net, papermc.url);
    await updates.checkNow({ apply: true });
    expect(updateEvents(net.events)).toEqual([
      ['PROXY_UPDATE_AVAILABLE', { currentVersion: '3.4.0-SNAPSHOT build 450', newVersion: '3.4.0-SNAPSHOT build 500' }],
      ['PROXY_UPDATE_APPLIED', { oldVersion: '3.4.0-SNAPSHOT build 450', newVersion: '3.4.0-SNAPSHOT build 500' }],
    ]);
    expect(sha(jar)).toBe(digest('sha256', BUILD_500));
    expect(net.groupOnDisk('Proxy')!.version).toBe('3.4.0-SNAPSHOT');
  });

  test('a newer beta build, a jar upstream never published, or no jar yet is left alone', async () => {
    const beta = net.proxyGroup('Beta', '3.4.0-SNAPSHOT', BUILD_510);
    const fork = net.proxyGroup('Fork', '3.4.0-SNAPSHOT', fakeJar('our own velocity fork'));
    net.proxyGroup('Fresh', '3.4.0-SNAPSHOT');
    updates = updater(net, papermc.url);
    const results = await updates.checkNow({ apply: true });
    expect(results.map((r) => [r.name, r.outcome])).toEqual([
      ['Beta', 'current'],
      ['Fork', 'current'],
      ['Fresh', 'current'],
    ]);
    expect(sha(beta)).toBe(digest('sha256', BUILD_510));
    expect(sha(fork)).toBe(digest('sha256', fakeJar('our own velocity fork')));
    expect(existsSync(join(net.templates, 'Fresh', 'server.jar'))).toBe(false);
    expect(updateEvents(net.events)).toEqual([]);
  });

  test('a failed download: no PROXY_UPDATE_APPLIED, the old jar byte-identical, the version unchanged', async () => {
    const jar = net.proxyGroup('Proxy', '3.3.0-SNAPSHOT', OLD);
    updates = updater(net, failing.url);
    const [result] = await updates.checkNow({ apply: true });
    expect(result).toMatchObject({ outcome: 'failed', newVersion: '3.4.0-SNAPSHOT' });
    expect(result!.message).toContain('not applied, the old jar and version stay');
    expect(result!.message).toContain('HTTP 500');
    expect(updateEvents(net.events)).toEqual([['PROXY_UPDATE_AVAILABLE', { currentVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }]]);
    expect(Buffer.compare(readFileSync(jar), OLD)).toBe(0);
    expect(net.groupOnDisk('Proxy')!.version).toBe('3.3.0-SNAPSHOT');
    expect(net.leftovers(dirname(jar))).toEqual([]);
  });

  test('an upstream that cannot be asked fails the check for its proxies, named', async () => {
    net.proxyGroup('Proxy', '3.3.0-SNAPSHOT', OLD);
    updates = updater(net, 'http://127.0.0.1:1');
    const [result] = await updates.checkNow({ apply: true });
    expect(result).toMatchObject({ outcome: 'failed' });
    expect(result!.message).toStartWith('group Proxy: could not ask for the latest VELOCITY build: ');
    expect(result!.message).toContain('PaperMC downloads service');
  });

  test('a dedicated proxy gets the jar in its directory and its version through the dedicated store', async () => {
    net.dedicated.create({ name: 'Edge', port: 25577, software: 'VELOCITY', version: '3.3.0-SNAPSHOT' });
    const jar = join(net.dedicated.directoryOf('Edge'), 'server.jar');
    writeFileSync(jar, OLD);
    updates = updater(net, papermc.url);
    const [result] = await updates.checkNow({ apply: true });
    expect(result).toMatchObject({ kind: 'dedicated', name: 'Edge', outcome: 'applied' });
    expect(result!.message).toEndWith('it runs the new jar from its next start');
    expect(sha(jar)).toBe(digest('sha256', BUILD_500));
    expect(net.dedicatedOnDisk('Edge')!.version).toBe('3.4.0-SNAPSHOT');
    expect(updateEvents(net.events).map(([type]) => type)).toEqual(['PROXY_UPDATE_AVAILABLE', 'PROXY_UPDATE_APPLIED']);
  });

  test('groups that share a template jar: it is downloaded once, both versions are written', async () => {
    net.proxyGroup('ProxyA', '3.3.0-SNAPSHOT', undefined, { template: 'proxy' });
    net.proxyGroup('ProxyB', '3.3.0-SNAPSHOT', undefined, { template: 'proxy' });
    const shared = join(net.templates, 'proxy', 'server.jar');
    mkdirSync(dirname(shared), { recursive: true });
    writeFileSync(shared, OLD);
    const downloads = papermc.hits('/v1/objects');
    updates = updater(net, papermc.url);
    const results = await updates.checkNow({ apply: true });
    expect(results.map((r) => [r.name, r.outcome])).toEqual([
      ['ProxyA', 'applied'],
      ['ProxyB', 'applied'],
    ]);
    expect(papermc.hits('/v1/objects') - downloads).toBe(1);
    expect(sha(shared)).toBe(digest('sha256', BUILD_500));
    expect([net.groupOnDisk('ProxyA')!.version, net.groupOnDisk('ProxyB')!.version]).toEqual(['3.4.0-SNAPSHOT', '3.4.0-SNAPSHOT']);
  });

  test('a jar in the global overlay is the one replaced: later layers win', async () => {
    net.proxyGroup('Proxy', '3.3.0-SNAPSHOT', OLD);
    const overlay = join(net.templates, 'global_proxy', 'server.jar');
    mkdirSync(dirname(overlay), { recursive: true });
    writeFileSync(overlay, OLD);
    updates = updater(net, papermc.url);
    await updates.checkNow({ apply: true });
    expect(sha(overlay)).toBe(digest('sha256', BUILD_500));
    expect(sha(join(net.templates, 'Proxy', 'server.jar'))).toBe(digest('sha256', OLD));
  });

  test('proxies svc cannot update are reported and left alone', async () => {
    net.proxyGroup('Scripted', '3.3.0-SNAPSHOT', OLD, { startCommand: ['./start.sh'] });
    net.groups.create({ name: 'Lobby', software: 'PAPER', version: '1.21.4', minInstances: 0 });
    updates = updater(net, papermc.url);
    expect(await updates.checkNow({ apply: true })).toEqual([
      { kind: 'group', name: 'Scripted', outcome: 'skipped', currentVersion: '3.3.0-SNAPSHOT', message: 'group Scripted is left alone: its own startCommand does not run server.jar' },
    ]);
  });
});

describe('checks', () => {
  test('never overlap: a second check waits for the first', async () => {
    const jar = net.proxyGroup('Proxy', '3.3.0-SNAPSHOT', OLD);
    updates = updater(net, gated.url);
    const first = updates.checkNow({ apply: true });
    const second = updates.checkNow({ apply: true });
    expect(updates.busy).toBe(true);
    await waitFor(() => gated.hits('/v1/objects') > 0, { what: 'the first download under way' });
    hold.open();
    const [a, b] = await Promise.all([first, second]);
    expect(a![0]!.outcome).toBe('applied');
    expect(b![0]!.outcome).toBe('current');
    expect(gated.hits('/v1/objects')).toBe(1);
    expect(sha(jar)).toBe(digest('sha256', BUILD_500));
    expect(updates.busy).toBe(false);
  });

  test('run in the background with auto_update: applied without anyone asking', async () => {
    const jar = net.proxyGroup('Proxy', '3.3.0-SNAPSHOT', OLD);
    updates = updater(net, papermc.url, { auto_update: true }, { firstCheckMs: 0, intervalMs: 3_600_000 });
    expect(updates.start()).toBe(true);
    await waitFor(() => net.events.some((e) => e.type === 'PROXY_UPDATE_APPLIED'), { what: 'PROXY_UPDATE_APPLIED' });
    expect(sha(jar)).toBe(digest('sha256', BUILD_500));
  });

  test('in the background without auto_update: PROXY_UPDATE_AVAILABLE only, again at each interval but announced once', async () => {
    const jar = net.proxyGroup('Proxy', '3.3.0-SNAPSHOT', OLD);
    const checks: number[] = [];
    updates = updater(net, papermc.url, { auto_update: false }, { firstCheckMs: 0, intervalMs: 20 });
    const original = updates.checkNow.bind(updates);
    updates.checkNow = (options) => {
      checks.push(Date.now());
      return original(options);
    };
    expect(updates.start()).toBe(true);
    await waitFor(() => checks.length >= 3 && !updates!.busy, { what: 'three background checks' });
    expect(updateEvents(net.events)).toEqual([['PROXY_UPDATE_AVAILABLE', { currentVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }]]);
    expect(sha(jar)).toBe(digest('sha256', OLD));
  });

  test('update_check = false: no background check', () => {
    updates = updater(net, papermc.url, { update_check: false }, { firstCheckMs: 0 });
    expect(updates.start()).toBe(false);
    expect(updates.busy).toBe(false);
  });
});
