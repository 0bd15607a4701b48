/**
 * The dashboard served by the controller (issue 41): the page at / and at the app's page paths
 * (any other path is ROUTE_NOT_FOUND), its assets under /assets/ with content hashes and a year's caching, a strict
 * Content-Security-Policy, nothing from another origin; the API untouched; [dashboard]
 * enabled = false turns it off. Run from source, the controller builds the app at the first
 * request (test/e2e/dashboard-binary.test.ts checks the copy embedded in the executable).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { APP_PAGES } from '../../src/dashboard/serve';
import { readJson, startController, type TestController } from '../support/controller';

let c: TestController;
beforeAll(async () => {
  c = await startController();
});
afterAll(() => c.stop());

const get = (path: string, init: RequestInit = {}) => fetch(`${c.url}${path}`, init);

/** The src and href attributes of the page: what the browser will load (a `data:` URL loads nothing). */
function referencesOf(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((ref) => !ref.startsWith('data:'));
}

describe('the page', () => {
  test('GET / is the app: HTML, a strict policy, no inline script, asked again on every load', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html;charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const policy = page.headers.get('content-security-policy') ?? '';
    for (const rule of ["default-src 'self'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "object-src 'none'"]) expect(policy).toContain(rule);
    expect(policy).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).toContain('<div id="root">');
    // Every script has a src (nothing inline for the policy to refuse).
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="/);
    expect((html.match(/<script\b/g) ?? []).length).toBeGreaterThan(0);
  });

  test('every page path of the app is the same page (the app routes in the browser)', async () => {
    const root = await (await get('/')).text();
    for (const path of ['/services', '/services/Lobby-1', '/groups?x=1', '/profile', '/files?scope=templates&path=lobby']) {
      const page = await get(path);
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(root);
    }
  });

  test('the page names the modules this run loaded (auth’s game-account sign-in among them), as GET /api/modules lists them', async () => {
    const content = /<meta name="svc-features" content="([a-z -]*)" \/>/.exec(await (await get('/')).text())?.[1];
    const modules = (await (await c.api('/api/modules')).json()) as { modules: { id: string; status: string }[] };
    const active = modules.modules.filter((m) => m.status === 'active').map((m) => m.id).sort();
    expect(active).toContain('auth');
    expect(content?.split(' ')).toEqual(active);
  });

  test('HEAD / answers the headers without a body', async () => {
    const head = await get('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html;charset=utf-8');
    expect(await head.text()).toBe('');
  });
});

describe('the assets', () => {
  test('the page loads only this origin’s /assets/, each named by its hash and cached for a year', async () => {
    const refs = referencesOf(await (await get('/')).text());
    expect(refs.length).toBeGreaterThanOrEqual(2); // the script and the stylesheet
    const types = new Set<string>();
    for (const ref of refs) {
      expect(ref).toMatch(/^\/assets\/[\w.-]+-[a-z0-9]{8}\.(js|css)$/);
      const asset = await get(ref);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
      types.add(asset.headers.get('content-type')!.split(';')[0]!);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect([...types].sort()).toEqual(['text/css', 'text/javascript']);
  });

  test('the app’s code names no other origin (no CDN, no web font, no telemetry)', async () => {
    for (const ref of referencesOf(await (await get('/')).text())) {
      const text = await (await get(ref)).text();
      expect(text).not.toMatch(/https?:\/\/(?!www\.w3\.org\/)[a-z0-9.-]+\.[a-z]{2,}/i);
    }
  });

  test('an asset that does not exist is ROUTE_NOT_FOUND, not the page', async () => {
    const missing = await get('/assets/nothing-12345678.js');
    expect(missing.status).toBe(404);
    expect((await readJson(missing)).error).toBe('ROUTE_NOT_FOUND');
  });
});

describe('only the app’s own paths are the page', () => {
  test('a path no page answers, or one that leaves /api/ by its dot segments, is ROUTE_NOT_FOUND', async () => {
    for (const path of ['/etc/passwd', '/nothing', '/favicon.ico', '/api/files/templates/../../../../etc/passwd']) {
      const answer = await get(path);
      expect(answer.status).toBe(404);
      expect((await readJson(answer)).error).toBe('ROUTE_NOT_FOUND');
    }
  });

  test('the server’s list of page paths is the app’s routes', async () => {
    const main = await Bun.file(join(import.meta.dir, '../../src/dashboard/app/main.tsx')).text();
    const routed = new Set([...main.matchAll(/<Route path="\/([^"/]*)/g)].map((m) => m[1]!).filter((segment) => segment !== ''));
    expect([...routed].sort()).toEqual([...APP_PAGES].sort());
  });
});

describe('the API is untouched', () => {
  test('API routes answer as before; an unknown /api/ path is still ROUTE_NOT_FOUND', async () => {
    expect((await readJson(await get('/api/health'))).status).toBe('ok');
    for (const path of ['/api/nothing-here', '/api', '/api/services/x/start']) {
      const answer = await get(path);
      expect(answer.status).toBe(404);
      expect((await readJson(answer)).error).toBe('ROUTE_NOT_FOUND');
    }
  });
});

describe('[dashboard] enabled = false', () => {
  test('nothing is served outside the API', async () => {
    const off = await startController({ toml: '[dashboard]\nenabled = false\n' });
    try {
      for (const path of ['/', '/services', '/assets/x-12345678.js']) {
        const answer = await fetch(`${off.url}${path}`);
        expect(answer.status).toBe(404);
        expect((await readJson(answer)).error).toBe('ROUTE_NOT_FOUND');
      }
      expect((await fetch(`${off.url}/api/health`)).status).toBe(200);
    } finally {
      await off.stop();
    }
  });
});

describe('without the auth module', () => {
  test('the page offers no game-account sign-in', async () => {
    const bare = await startController({ modules: [] });
    try {
      const html = await (await fetch(`${bare.url}/`)).text();
      expect(html).toContain('<meta name="svc-features" content="" />');
    } finally {
      await bare.stop();
    }
  });
});
