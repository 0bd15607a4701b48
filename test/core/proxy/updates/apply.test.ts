/**
 * applyUpdate and the jar swap against the PaperMC fake: the template jar is replaced in one
 * rename (a reader never sees a partial jar, a service's hard link keeps the old one), and a
 * failed download, a checksum mismatch, an edit during the download or a stop leave the old
 * jar byte-identical and the version as it was.
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { linkSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defaultConfig } from '../../../../src/config/schema';
import { applyUpdate } from '../../../../src/core/proxy/updates/apply';
import { planUpdate, type ProxyUpdatePlan } from '../../../../src/core/proxy/updates/plan';
import { latestProxyRelease } from '../../../../src/core/proxy/updates/releases';
import { proxyTargets } from '../../../../src/core/proxy/updates/targets';
import { Upstreams } from '../../../../src/core/software/upstream/upstreams';
import { fakePaperMc } from '../../../fixtures/upstream/papermc';
import { digest, fakeJar, gate, type FakeUpstream } from '../../../fixtures/upstream/serve';
import { waitFor } from '../../../support/controller';
import { brokenVelocity, log, network, type Network } from './support';

const OLD = fakeJar('velocity 3.3.0-SNAPSHOT build 400', 256 * 1024);
const NEW = fakeJar('velocity 3.4.0-SNAPSHOT build 500', 512 * 1024);
const VERSIONS = { '3.0.0': ['3.4.0-SNAPSHOT', '3.3.0-SNAPSHOT'] };

const hold = gate();
const gated = fakePaperMc({ velocity: { versions: VERSIONS, builds: { '3.4.0-SNAPSHOT': [{ id: 500, jar: NEW, gate: hold.promise }] } } });
const tampered = fakePaperMc({ velocity: { versions: VERSIONS, builds: { '3.4.0-SNAPSHOT': [{ id: 500, jar: NEW, sha256: 'ab'.repeat(32) }] } } });
const plain = fakePaperMc({ velocity: { versions: VERSIONS, builds: { '3.4.0-SNAPSHOT': [{ id: 500, jar: NEW }] } } });
const failing = brokenVelocity('500', NEW);
const cut = brokenVelocity('cut', NEW);
afterAll(() => {
  hold.open();
  [gated, tampered, plain, failing, cut].forEach((f) => f.close());
});

let net: Network;
afterEach(() => net?.remove());

const options = { timeoutMs: 30_000, log, userAgent: 'svc-test' };

/** The plan for group Proxy (3.3.0-SNAPSHOT, OLD in its template) against `fake`. */
async function planFor(fake: FakeUpstream): Promise<{ plan: ProxyUpdatePlan; jar: string }> {
  net = network();
  const jar = net.proxyGroup('Proxy', '3.3.0-SNAPSHOT', OLD);
  const software = { ...defaultConfig().software, papermc_url: fake.url };
  const release = await latestProxyRelease(new Upstreams(() => software), 'VELOCITY');
  const [target] = proxyTargets({ groups: net.groups, dedicated: net.dedicated, templatesRoot: net.templates }).targets;
  expect(target!.jarPath).toBe(jar);
  return { plan: planUpdate(target!, release!, null)!, jar };
}

/** Old jar byte-identical, version unchanged (in memory and on disk), no temporaries left. */
function expectUntouched(jar: string): void {
  expect(Buffer.compare(readFileSync(jar), OLD)).toBe(0);
  expect(net.groups.get('Proxy')!.version).toBe('3.3.0-SNAPSHOT');
  expect(net.groupOnDisk('Proxy')!.version).toBe('3.3.0-SNAPSHOT');
  expect(net.leftovers(dirname(jar))).toEqual([]);
}

describe('applyUpdate', () => {
  test('the template jar is replaced in one rename: a reader sees the old or the new jar, never part of one', async () => {
    const { plan, jar } = await planFor(gated);
    // A running service's work dir shares the template jar through a hard link (provisioning does).
    const workDir = join(net.dir, 'services', 'Proxy-1');
    mkdirSync(workDir, { recursive: true });
    linkSync(jar, join(workDir, 'server.jar'));

    let done = false;
    const applying = applyUpdate(plan, net, options).finally(() => (done = true));
    // Half the new jar has arrived, in a temporary file beside the template jar.
    await waitFor(() => gated.hits('/v1/objects') > 0 && net.leftovers(dirname(jar)).some((f) => f.endsWith('.part')), { what: 'the download under way' });
    expect(Buffer.compare(readFileSync(jar), OLD)).toBe(0);

    const seen = new Set<string>();
    const reader = (async () => {
      while (!done) {
        seen.add(digest('sha256', readFileSync(jar)));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    hold.open();
    expect(await applying).toEqual({ versionWritten: true });
    await reader;

    const whole = new Set([digest('sha256', OLD), digest('sha256', NEW)]);
    for (const hash of seen) expect(whole.has(hash)).toBe(true);
    expect(digest('sha256', readFileSync(jar))).toBe(plan.file.checksum!.hex);
    expect(plan.file.checksum!.hex).toBe(digest('sha256', NEW));
    expect(net.leftovers(dirname(jar))).toEqual([]);
    expect(net.groupOnDisk('Proxy')!.version).toBe('3.4.0-SNAPSHOT');
    // The running service keeps the jar it started with until it restarts.
    expect(Buffer.compare(readFileSync(join(workDir, 'server.jar')), OLD)).toBe(0);
  });

  test('HTTP 500 on the download: the old jar and the version stay', async () => {
    const { plan, jar } = await planFor(failing);
    await expect(applyUpdate(plan, net, options)).rejects.toThrow('it answered HTTP 500');
    expect(failing.hits('/jar')).toBe(1);
    expectUntouched(jar);
  });

  test('the connection dropped halfway: the old jar and the version stay', async () => {
    const { plan, jar } = await planFor(cut);
    await expect(applyUpdate(plan, net, options)).rejects.toThrow('could not download velocity 3.4.0-SNAPSHOT build 500');
    expectUntouched(jar);
  });

  test('a jar that does not match the published SHA-256: the old jar and the version stay', async () => {
    const { plan, jar } = await planFor(tampered);
    await expect(applyUpdate(plan, net, options)).rejects.toThrow(`SHA256 mismatch: expected ${'ab'.repeat(32)}, got ${digest('sha256', NEW)}`);
    expectUntouched(jar);
  });

  test('an edit of the group unrelated to the update does not stop it', async () => {
    const { plan, jar } = await planFor(plain);
    const applying = applyUpdate(plan, net, options);
    net.groups.update('Proxy', { memory: '1G' });
    await expect(applying).resolves.toEqual({ versionWritten: true });
    expect(digest('sha256', readFileSync(jar))).toBe(digest('sha256', NEW));
    expect(net.groupOnDisk('Proxy')).toMatchObject({ version: '3.4.0-SNAPSHOT', memory: '1G' });
  });

  test('the version edited while the jar downloaded: the old jar is put back, the edit stays', async () => {
    const { plan, jar } = await planFor(plain);
    const applying = applyUpdate(plan, net, options);
    net.groups.update('Proxy', { version: '3.5.0-SNAPSHOT' });
    await expect(applying).rejects.toThrow('group Proxy changed while velocity 3.4.0-SNAPSHOT build 500 downloaded');
    expect(Buffer.compare(readFileSync(jar), OLD)).toBe(0);
    expect(net.groupOnDisk('Proxy')!.version).toBe('3.5.0-SNAPSHOT');
    expect(net.leftovers(dirname(jar))).toEqual([]);
  });

  test('a stop during the download abandons the swap', async () => {
    const { plan, jar } = await planFor(plain);
    await expect(applyUpdate(plan, net, { ...options, proceed: () => false })).rejects.toThrow('the controller is stopping');
    expectUntouched(jar);
  });
});
