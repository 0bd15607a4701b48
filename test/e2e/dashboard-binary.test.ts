/**
 * The dashboard embedded in the compiled executable (issue 41): the binary alone, in an empty
 * directory with no source tree, serves the page and its hashed assets, the app's own code.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
  test('GET / and its assets come from the binary: the app, its files named by hash and cached for good', async () => {
    const { dir, remove } = tempDir('svc-dashboard-bin-');
    cleanups.push(remove);
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\n[services]\nisolation = "none"\n');
    const { url, child } = await startBinaryController(svc, dir, TOKEN, cleanups);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    // The page is the app's, telling it what this controller offers: the modules this run loaded
    // (the default install's), the auth module's sign-in among them.
    expect(/<meta name="svc-features" content="([a-z -]*)" \/>/.exec(html)?.[1]?.split(' ')).toContain('auth');
    expect(html).toContain('<div id="root"></div>');
    const refs = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((ref) => !ref.startsWith('data:'));
    expect(refs.length).toBeGreaterThanOrEqual(2);
    let script = '';
    for (const ref of refs) {
      expect(ref).toMatch(/^\/assets\/[\w.-]+-[a-z0-9]{8}\.(js|css)$/);
      const asset = await fetch(`${url}${ref}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const text = await asset.text();
      expect(text.length).toBeGreaterThan(1000);
      if (ref.endsWith('.js')) script += text;
    }
    // The app's own code, embedded: the sign-in's words are in it.
    expect(script).toContain('API token');
    expect(script).toContain('Sign in with a passkey');
    expect((await fetch(`${url}/services`)).status).toBe(200);
    child.kill('SIGTERM');
    await child.exited;
  }, 60_000);
});
