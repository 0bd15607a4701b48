import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readJson, startController, waitFor, type TestController } from '../support/controller';
import { join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');

/** /api/controller/info and /changelog on a real controller, the update check against a local fake release feed. */
let c: TestController;
let feed: ReturnType<typeof Bun.serve>;
let hits = 0;
beforeAll(async () => {
  feed = Bun.serve({
    port: 0,
    fetch: () => {
      hits++;
      return Response.json({ tag_name: 'v99.0.0', name: 'svc 99', html_url: 'https://github.com/example/svc/releases/tag/v99.0.0' });
    },
  });
  c = await startController({ toml: `[controller]\nupdate_check_url = "http://127.0.0.1:${feed.port}/releases/latest"\n` });
});
afterAll(async () => {
  await c.stop();
  feed.stop(true);
});

describe('GET /api/controller/info', () => {
  test('runtime, system and the update check, which never holds the answer up', async () => {
    const first = await readJson(await c.api('/api/controller/info', { token: c.service }));
    expect(first).toMatchObject({ version: pkg.version, runningServices: 0, servicesMaxMemoryMb: 10240, servicesUsedMemoryMb: 0 });
    expect(first.runtimeMemoryUsedMb).toBeGreaterThan(10);
    expect(first.system.availableProcessors).toBeGreaterThan(0);
    expect(first.system.runtimeVersion).toBe(`Bun ${Bun.version}`);
    // The dashboard's names for the same figures (it reads the reference's JVM fields).
    expect(first.system).toMatchObject({ javaVersion: `Bun ${Bun.version}`, javaVendor: 'Oven' });
    expect(first.jvmMemoryUsedMb).toBe(first.runtimeMemoryUsedMb);
    expect(first.jvmMemoryMaxMb).toBeGreaterThanOrEqual(first.jvmMemoryUsedMb);
    expect(first.jvmMemoryAllocatedMb).toBeGreaterThan(0);
    expect(first.servicesAllocatedMemoryMb).toBe(0);
    expect(first.releaseUrl).toBeNull();
    expect(first.system.systemCpuLoad).toBeGreaterThanOrEqual(0);
    expect(first.system.systemCpuLoad).toBeLessThanOrEqual(1);
    // The first answer did not wait for the feed; a later one carries its result.
    const later = await waitFor(async () => {
      const body = await readJson(await c.api('/api/controller/info', { token: c.service }));
      return body.latestVersion ? body : null;
    }, { what: 'the update check result' });
    expect(later).toMatchObject({ updateAvailable: true, latestVersion: '99.0.0', updateType: 'MAJOR', releaseUrl: 'https://github.com/example/svc/releases/tag/v99.0.0' });
    expect(hits).toBe(1);
  });

  test('servicesAllocatedMemoryMb: what a running service is budgeted (heap + JVM overhead), the figure max_memory is checked against', async () => {
    const group = { name: 'Budget', software: 'CUSTOM', version: '1.21.1', memory: '512M', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0, maxInstances: 1 };
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
    expect((await c.api('/api/services/Budget/start', { method: 'POST' })).status).toBe(201);
    try {
      const info = await waitFor(async () => {
        const body = await readJson(await c.api('/api/controller/info'));
        return body.runningServices === 1 ? body : null;
      }, { what: 'the instance counted' });
      // 512 MB heap + max(384, 256) MB overhead.
      expect(info.servicesAllocatedMemoryMb).toBe(896);
    } finally {
      await c.api('/api/services/Budget-1/stop', { method: 'POST' });
    }
    expect((await readJson(await c.api('/api/controller/info'))).servicesAllocatedMemoryMb).toBe(0);
  });

  test('auth: service level', async () => {
    expect((await c.api('/api/controller/info', { token: null })).status).toBe(401);
  });
});

describe('GET /api/controller/changelog', () => {
  test('the embedded CHANGELOG.md, newest first', async () => {
    const body = await readJson(await c.api('/api/controller/changelog', { token: c.service }));
    expect(body.entries[0].version).toBe(pkg.version);
    expect(body.entries[0].body).toContain('Cluster');
    expect((await c.api('/api/controller/changelog', { token: null })).status).toBe(401);
  });
});
