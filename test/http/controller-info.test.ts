import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readJson, startController, waitFor, type TestController } from '../support/controller';
import pkg from '../../package.json' with { type: 'json' };

/** /api/controller/info and /changelog on a real controller, the update check against a local fake release feed. */
let c: TestController;
let feed: ReturnType<typeof Bun.serve>;
let hits = 0;
beforeAll(async () => {
  feed = Bun.serve({
    port: 0,
    fetch: () => {
      hits++;
      return Response.json({ tag_name: 'v99.0.0', name: 'svc 99' });
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
    expect(first.system.systemCpuLoad).toBeGreaterThanOrEqual(0);
    expect(first.system.systemCpuLoad).toBeLessThanOrEqual(1);
    // The first answer did not wait for the feed; a later one carries its result.
    const later = await waitFor(async () => {
      const body = await readJson(await c.api('/api/controller/info', { token: c.service }));
      return body.latestVersion ? body : null;
    }, { what: 'the update check result' });
    expect(later).toMatchObject({ updateAvailable: true, latestVersion: '99.0.0', updateType: 'MAJOR' });
    expect(hits).toBe(1);
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
