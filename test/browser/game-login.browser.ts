/**
 * Game-account sign-in in headless Chromium against the binary (issue 41, auth module): the
 * in-game code, then the TOTP step once the account has it on (an authenticator's code, as
 * otplib computes it), a magic link opened as ?link=, a wrong code said in words; signing out
 * ends the session at the controller. The code and link are minted the way the in-game command
 * does (the service token on the auth routes).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, screenshotDir } from '../support/browser';
import { tempDir, type TestController } from '../support/controller';
import { binaryController, bringOnline, grant, loginCode, testPlayer } from '../support/dashboard-login';
import { totpCode } from '../modules/auth/harness';

const TOKEN = 'dashboard-game-login-token-0123456789abcdef';
let browser: Browser;
let url: string;
/** What the dashboard-login helpers need of a controller, over HTTP to the binary. */
let c: TestController;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-game-login-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Game Login"\n[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  ({ url } = await startBinaryController(svc, dir, TOKEN, cleanups));
  c = binaryController(url, TOKEN);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

const overview = (page: Page) => page.getByRole('heading', { name: 'Game Login' }).waitFor();

describe('game-account sign-in', () => {
  test('the in-game code signs in; Sign out ends the session at the controller', async () => {
    const player = testPlayer(1, 'Alex');
    await bringOnline(c, player);
    await grant(c, player, ['svc.dashboard.overview']);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = new PageProblems(page);
    await page.goto(`${url}/`);
    await page.screenshot({ path: join(screenshotDir(), 'login-auth-1280.png'), fullPage: true });
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, player));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await overview(page);
    expect(await page.evaluate(() => localStorage.getItem('svc.signin'))).toBe('session');
    const session = await page.evaluate(() => localStorage.getItem('svc.token'));
    expect((await c.api('/api/auth/me', { token: session })).status).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect((await c.api('/api/auth/me', { token: session })).status).toBe(401);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('with TOTP on, the code leads to the authentication code step', async () => {
    const player = testPlayer(2, 'Bea');
    await bringOnline(c, player);
    await grant(c, player, ['svc.dashboard.overview']);
    // A session enrols TOTP through the API, as the Profile page would.
    const first = (await (await c.api('/api/auth/consume-challenge', { method: 'POST', token: null, json: { challenge: await loginCode(c, player) } })).json()) as { token: string };
    const { secret } = (await (await c.api('/api/profile/totp/enroll', { method: 'POST', token: first.token })).json()) as { secret: string };
    expect((await c.api('/api/profile/totp/confirm', { method: 'POST', token: first.token, json: { code: totpCode(secret, 0) } })).status).toBe(200);

    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, player));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await page.getByLabel('Authentication code').fill(totpCode(secret, 1));
    await page.screenshot({ path: join(screenshotDir(), 'login-totp-390.png'), fullPage: true });
    await page.getByRole('button', { name: 'Verify' }).click();
    await overview(page);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a magic link opens the dashboard signed in, and leaves the address', async () => {
    const player = testPlayer(3, 'Cato');
    await bringOnline(c, player);
    await grant(c, player, ['svc.dashboard.overview']);
    const link = (await (await c.api('/api/auth/request-magic-link', { method: 'POST', token: c.service, json: player })).json()) as { token: string; url: string };
    // The controller's link, on this dashboard's address (with [api] port = 0 it cannot know its port).
    const sent = new URL(link.url);
    expect(sent.pathname).toBe('/login');
    expect(sent.searchParams.get('link')).toBe(link.token);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = new PageProblems(page);
    await page.goto(`${url}${sent.pathname}${sent.search}`);
    await overview(page);
    expect(new URL(page.url()).pathname).toBe('/');
    expect(new URL(page.url()).search).toBe('');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a session sees only the pages its nodes open; another page says which node it needs and asks nothing of the API', async () => {
    const player = testPlayer(4, 'Dana');
    await bringOnline(c, player);
    await grant(c, player, ['svc.dashboard.overview']);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = new PageProblems(page);
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, player));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await overview(page);
    const nav = page.getByRole('navigation', { name: 'Pages' });
    await nav.getByRole('link', { name: 'Profile', exact: true }).waitFor();
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Profile']);
    await page.goto(`${url}/audit`);
    await page.getByRole('alert').filter({ hasText: 'svc.dashboard.audit.view' }).waitFor();
    expect(asked).not.toContain('/api/audit');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a session ended elsewhere takes the page back to the login, saying so', async () => {
    const player = testPlayer(5, 'Eli');
    await bringOnline(c, player);
    await grant(c, player, ['svc.dashboard.overview']);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = new PageProblems(page);
    problems.expect(/^401 GET \/api\/status$/);
    problems.expect(/status of 401/);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, player));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await overview(page);
    expect((await c.api(`/api/auth/logout-all?uuid=${player.uuid}`, { method: 'POST' })).status).toBe(200);
    // The Overview reads the status again within 5 s: refused, the page signs out.
    await page.getByRole('status').filter({ hasText: 'You were signed out' }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => localStorage.getItem('svc.token'))).toBeNull();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a wrong code is refused in words; nothing is kept', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = new PageProblems(page);
    problems.expect(/^4\d\d POST \/api\/auth\/consume-challenge$/);
    problems.expect(/status of 4\d\d/);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill('NOPE1234');
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await page.getByRole('alert').waitFor();
    expect((await page.getByRole('alert').textContent())!.length).toBeGreaterThan(10);
    expect(await page.evaluate(() => localStorage.getItem('svc.token'))).toBeNull();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
