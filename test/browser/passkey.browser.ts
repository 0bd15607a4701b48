/**
 * Passkeys in headless Chromium against the binary (issue 41, auth module), with Chromium's
 * virtual authenticator (DevTools WebAuthn domain) standing in for the person's device: a
 * signed-in player adds a passkey on the Profile page, signs out, and signs back in with
 * `Sign in with a passkey` alone. The page is opened at http://localhost:<port> because
 * WebAuthn refuses an IP address as the relying party; the controller is told so in
 * config/modules/auth/auth.toml (rp_id localhost, the port left open).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir } from '../support/browser';
import { tempDir, type TestController } from '../support/controller';
import { binaryController, bringOnline, grant, loginCode, testPlayer } from '../support/dashboard-login';

const TOKEN = 'dashboard-passkey-token-0123456789abcdef';
let browser: Browser;
/** The dashboard's address by name (http://localhost:<port>). */
let url: string;
let c: TestController;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-passkey-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Passkey Network"\n[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  mkdirSync(join(dir, 'config/modules/auth'), { recursive: true });
  writeFileSync(join(dir, 'config/modules/auth/auth.toml'), '[webauthn]\nrp_id = "localhost"\norigins = ["http://localhost"]\nallow_origin_port = true\n');
  const started = await startBinaryController(svc, dir, TOKEN, cleanups);
  url = started.url.replace('://127.0.0.1:', '://localhost:');
  c = binaryController(started.url, TOKEN);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

describe('passkeys', () => {
  test('added on the Profile page, then the only thing needed to sign in', async () => {
    const player = testPlayer(7, 'Kira');
    await bringOnline(c, player);
    await grant(c, player, ['svc.dashboard.overview']);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    // The person's device: a platform authenticator that verifies them and answers at once.
    const devtools = await page.context().newCDPSession(page);
    await devtools.send('WebAuthn.enable');
    const { authenticatorId } = await devtools.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });

    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, player));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await page.getByRole('heading', { name: 'Passkey Network' }).waitFor();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Profile', exact: true }).click();
    await page.getByText('No passkey yet.').waitFor();
    const add = page.getByRole('form', { name: 'Add a passkey' });
    await add.getByLabel('Name of the new passkey').fill('Kira’s laptop');
    await add.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Passkey added.' }).waitFor({ timeout: 10_000 });
    await page.getByText('Kira’s laptop').waitFor();
    // The authenticator holds it, and the controller lists it for this player.
    const held = await devtools.send('WebAuthn.getCredentials', { authenticatorId });
    expect(held.credentials).toHaveLength(1);
    const session = await page.evaluate(() => localStorage.getItem('svc.token'));
    const listed = (await (await c.api('/api/auth/passkey/credentials', { token: session })).json()) as { credentials: { label: string }[] };
    expect(listed.credentials.map((p) => p.label)).toEqual(['Kira’s laptop']);
    await page.screenshot({ path: join(screenshotDir(), 'profile-passkey-1280.png'), fullPage: true });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect((await c.api('/api/auth/me', { token: session })).status).toBe(401);
    // No name, no code: the passkey says who it is.
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // Back where the player signed out, in a session the page says came from the passkey.
    const sessions = page.locator('section', { has: page.getByRole('heading', { name: 'Sessions' }) }).locator('tbody tr');
    await sessions.filter({ hasText: 'this session' }).filter({ hasText: 'passkey' }).waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe('/profile');
    const again = await page.evaluate(() => localStorage.getItem('svc.token'));
    expect(again).not.toBe(session);
    const me = (await (await c.api('/api/auth/me', { token: again })).json()) as { uuid?: string; name?: string };
    expect(me).toMatchObject({ uuid: player.uuid });
    const used = (await (await c.api('/api/auth/passkey/credentials', { token: again })).json()) as { credentials: { lastUsedAt: number | null }[] };
    expect(used.credentials[0]!.lastUsedAt).not.toBeNull();

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${url}/profile`);
    await page.getByText('Kira’s laptop').waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'profile-passkey-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
