/**
 * The dashboard embedded in the compiled executable (issue 41): the binary alone, in an empty
 * directory with no source tree, serves the page and its hashed assets; the page's files are
 * the ones the source builds to (same names: same content).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDashboard } from '../../src/dashboard/bundle';
import { startBinaryController, svcBinary } from '../support/binary';
import { tempDir } from '../support/controller';

const TOKEN = 'dashboard-binary-token-0123456789';
let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

describe('the dashboard in the executable', () => {
  test('GET / and its assets come from the binary, identical to a build of the source', async () => {
    const { dir, remove } = tempDir('svc-dashboard-bin-');
    cleanups.push(remove);
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\n[services]\nisolation = "none"\n');
    const { url, child } = await startBinaryController(svc, dir, TOKEN, cleanups);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    const source = await buildDashboard();
    // The page is the built one, telling the app what this controller offers (the auth module's sign-in).
    expect(html).toContain('<meta name="svc-features" content="auth" />');
    expect(html.replace('<meta name="svc-features" content="auth" />', '')).toBe(source.index);
    const refs = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    for (const ref of refs) {
      const asset = await fetch(`${url}${ref}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(new Uint8Array(await asset.arrayBuffer())).toEqual(new Uint8Array(await source.assets.get(ref)!.body.arrayBuffer()));
    }
    expect((await fetch(`${url}/services`)).status).toBe(200);
    child.kill('SIGTERM');
    await child.exited;
  }, 60_000);
});
