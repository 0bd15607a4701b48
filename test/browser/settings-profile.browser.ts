/**
 * The Settings and Profile pages in headless Chromium against the binary (issue 41): the network
 * name saved live (GET /api/config and the Overview's heading show it), global and group
 * maintenance switched, a whitelist entry refused in the API's words and another added, a MOTD
 * saved (GET /api/proxy/motd shows it); the Profile of a master-token sign-in and its note on
 * game-account sign-ins; the Profile of a player's dashboard session (their sessions, one logged
 * out; TOTP enrolled and confirmed with a live code). Screenshots at 1280 and 390 px; nothing
 * scrolls sideways at 390.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSync } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir, waitFor } from '../support/controller';

const TOKEN = 'dashboard-settings-token-0123456789abcdef';
let browser: Browser;
let url: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];
const json = async <T>(path: string) => (await (await api(path)).json()) as T;

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-settings-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Before Network"\n[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
  ({ url, api } = await startBinaryController(svc, dir, TOKEN, cleanups));
  const lobby = { name: 'Lobby', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: ['true'], minInstances: 0, maxInstances: 1 };
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(lobby) })).status).toBe(201);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();

describe('Settings', () => {
  test('network name, maintenance, whitelist and MOTD saved through the page; the API and the Overview show them', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await nav(page, 'Settings');
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();

    // The network name, live.
    const live = page.getByRole('form', { name: 'Live settings' });
    await live.getByLabel('Network name').fill('After Network');
    await live.getByRole('button', { name: 'Save' }).click();
    await live.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect((await json<{ networkName: string }>('/api/config')).networkName).toBe('After Network');

    // Global maintenance on, with a reason.
    const global = page.getByRole('form', { name: 'Global maintenance' });
    await global.getByLabel('Reason (for operators)').fill('database move');
    await global.getByRole('button', { name: 'Start maintenance' }).click();
    await global.getByRole('button', { name: 'End maintenance' }).waitFor();
    expect((await json<{ global: { enabled: boolean; reason: string } }>('/api/maintenance')).global).toMatchObject({ enabled: true, reason: 'database move' });

    // A group's maintenance.
    const lobby = page.getByRole('article', { name: 'Group Lobby' });
    await lobby.getByRole('button', { name: 'Start maintenance of Lobby' }).click();
    await lobby.getByRole('button', { name: 'End maintenance of Lobby' }).waitFor();
    expect((await json<{ groups: Record<string, { enabled: boolean }> }>('/api/maintenance')).groups.Lobby?.enabled).toBe(true);

    // A whitelist entry the API refuses, in its words; then one it takes.
    problems.expect(/^400 POST \/api\/maintenance\/whitelist$/);
    problems.expect(/status of 400/); // Chromium's console line for the refused request
    const add = page.getByRole('form', { name: 'Add to the whitelist' });
    await add.getByLabel('Player name or UUID').fill('not a name!');
    await add.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('alert').filter({ hasText: 'Refused (VALIDATION_FAILED)' }).waitFor();
    await add.getByLabel('Player name or UUID').fill('Notch');
    await add.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('list', { name: 'Whitelisted players' }).getByText('Notch').waitFor();
    expect((await json<{ global: { whitelist: string[] } }>('/api/maintenance')).global.whitelist).toEqual(['Notch']);

    // The MOTD, through its own route.
    const motd = page.getByRole('form', { name: 'MOTD' });
    await motd.getByLabel('MOTD line 1').fill('<green>Welcome to After Network</green>');
    await motd.getByLabel('Slots shown').fill('500');
    await motd.getByRole('button', { name: 'Save' }).click();
    await motd.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect(await json<{ line1: string; maxPlayers: number }>('/api/proxy/motd')).toMatchObject({ line1: '<green>Welcome to After Network</green>', maxPlayers: 500 });

    await page.screenshot({ path: join(screenshotDir(), 'settings-1280.png'), fullPage: true });

    // Global maintenance off again.
    await global.getByRole('button', { name: 'End maintenance' }).click();
    await global.getByRole('button', { name: 'Start maintenance' }).waitFor();
    expect((await json<{ global: { enabled: boolean } }>('/api/maintenance')).global.enabled).toBe(false);

    // The Overview's heading is the new name.
    await nav(page, 'Overview');
    await page.getByRole('heading', { level: 1, name: 'After Network' }).waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a change made elsewhere shows on the page by the live events', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await nav(page, 'Settings');
    const chat = page.getByRole('form', { name: 'Chat' });
    await chat.getByLabel('Chat format').waitFor();
    await waitFor(async () => (await chat.getByLabel('Chat format').inputValue()) !== '', { what: 'the chat format loaded' });
    expect((await api('/api/proxy/chat', { method: 'PUT', body: JSON.stringify({ format: '{player}: {message}' }) })).status).toBe(200);
    await waitFor(async () => (await chat.getByLabel('Chat format').inputValue()) === '{player}: {message}', { timeoutMs: 10_000, what: 'CHAT_FORMAT_UPDATED on the page' });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('Profile', () => {
  test('a master-token sign-in: who it is and the note on sessions, TOTP and passkeys', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await nav(page, 'Profile');
    await page.getByText('master API token').waitFor();
    const note = page.getByRole('note');
    expect(await note.textContent()).toContain('Sessions, two-factor codes (TOTP) and passkeys belong to game-account sign-ins');
    await page.screenshot({ path: join(screenshotDir(), 'profile-1280.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

/** A dashboard session for a player, the way the game gets one: online through the bridge, an admin by a permission group, a login code consumed. */
async function playerSessions(uuid: string, name: string, count: number): Promise<string[]> {
  const service = createHmac('sha256', TOKEN).update('svc-service-token').digest('hex');
  const asService = (path: string, body: unknown) => api(path, { method: 'POST', headers: { authorization: `Bearer ${service}` }, body: JSON.stringify(body) });
  expect((await asService('/api/proxy/events', { type: 'PLAYER_CONNECTED', player: name, uuid, service: 'Lobby-1' })).status).toBe(200);
  expect((await api('/api/permissions/groups', { method: 'POST', body: JSON.stringify({ name: 'staff' }) })).status).toBe(201);
  expect((await api('/api/permissions/groups/staff/permissions', { method: 'POST', body: JSON.stringify({ permission: 'svc.dashboard.admin' }) })).status).toBe(200);
  expect((await api(`/api/permissions/players/${uuid}/groups`, { method: 'POST', body: JSON.stringify({ group: 'staff' }) })).status).toBe(200);
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const { code } = (await (await asService('/api/auth/generate-code', { uuid, name })).json()) as { code: string };
    const login = await fetch(`${url}/api/auth/consume-challenge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: code }) });
    tokens.push(((await login.json()) as { token: string }).token);
  }
  return tokens;
}

describe('Profile of a dashboard session', () => {
  test('the player, their sessions (another logged out), TOTP enrolled and confirmed', async () => {
    const uuid = '00000000-0000-4000-8000-00000000a11c';
    const [mine, other] = await playerSessions(uuid, 'Alice', 2);
    const asMe = async <T>(path: string) => (await (await fetch(url + path, { headers: { authorization: `Bearer ${mine}` } })).json()) as T;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    // A session token pasted into the API token field: the sign-in tells it from an API token by
    // the route only API tokens may call (core's socket tickets), which refuses it.
    problems.expect(/^403 GET \/api\/ws-ticket$/);
    problems.expect(/status of 403/); // Chromium's console line for it
    await signIn(page, url, mine!);
    await nav(page, 'Profile');
    await page.getByRole('definition').filter({ hasText: /^Alice$/ }).waitFor();
    await page.getByText('No passkey yet.').waitFor();

    const sessions = page.locator('section', { has: page.getByRole('heading', { name: 'Sessions' }) }).locator('tbody tr');
    await sessions.nth(1).waitFor();
    expect(await sessions.count()).toBe(2);
    await sessions.filter({ hasNotText: 'this session' }).getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('status').filter({ hasText: 'That session is logged out.' }).waitFor();
    expect(await sessions.count()).toBe(1);
    const left = await asMe<{ sessions: { sessionId: string }[]; currentSessionId: string }>('/api/auth/my-sessions');
    expect(left.sessions.map((s) => s.sessionId)).toEqual([left.currentSessionId]);
    expect((await fetch(`${url}/api/auth/me`, { headers: { authorization: `Bearer ${other}` } })).status).toBe(401);

    await page.getByRole('button', { name: 'Set up two-factor codes' }).click();
    const secret = (await page.locator('code.pr-secret').textContent())!;
    expect(await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count()).toBe(10);
    await page.screenshot({ path: join(screenshotDir(), 'profile-session-1280.png'), fullPage: true });
    await page.getByLabel('The code your app shows').fill(generateSync({ secret, epoch: Math.floor(Date.now() / 30_000) * 30 }));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'TOTP enabled.' }).waitFor();
    expect((await asMe<{ enabled: boolean }>('/api/profile/totp/status')).enabled).toBe(true);
    await page.getByLabel('A code or a recovery code').waitFor(); // now the switch-off form

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'profile-session-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('390 px', () => {
  test('Settings and Profile fit without horizontal scrolling', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await nav(page, 'Settings');
    await page.getByRole('form', { name: 'Tab list' }).waitFor();
    await page.getByRole('article', { name: 'Group Lobby' }).waitFor();
    // Open the read-only sections too: their long values must wrap.
    for (const summary of await page.locator('.st-config-section summary').all()) await summary.click();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'settings-390.png'), fullPage: true });
    await nav(page, 'Profile');
    await page.getByRole('note').waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'profile-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
