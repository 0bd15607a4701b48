/**
 * The Players page (the players module's) in a real browser (issue 42) against the compiled
 * binary, with a real flying-squid server started as a service and real minecraft-protocol bots
 * logging in to it, each login reported through the proxy-event feed with the service token as
 * a proxy's bridge does (no proxy runs here):
 * - the statistics are GET /api/players/stats's, before and after players come and go (live);
 * - the online list follows connects and disconnects live; a name opens the player's record;
 * - after a connect, a disconnect and a second connect, the player's sessions are GET
 *   /api/players/history's (the open one marked), their record says online or offline;
 * - the search of all known players answers GET /api/players/all's; Send and Kick from the
 *   record answer the API's 503 in words;
 * - with the module uninstalled and the controller restarted (its own POST /api/shutdown, then
 *   the binary again on the same directory), the Players link is gone, /players says the
 *   module does not run, and the Network page lists from core's route instead.
 * Screenshots at 1280 and 390 px, light and dark; nothing scrolls sideways at 390.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type Client } from 'minecraft-protocol';
import type { Browser, Locator, Page } from 'playwright-core';
import { deriveServiceToken } from '../../src/core/auth';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { readJson, tempDir, waitFor } from '../support/controller';
import { offlineUuid, waitForPackets } from '../support/minecraft-client';
import { flyingSquidGroup } from '../fixtures/flying-squid-group';

const TOKEN = 'dashboard-players-token-0123456789abcdef';
const SERVICE_TOKEN = deriveServiceToken(TOKEN);
const VERSION = '1.21.4';
const LOBBY = flyingSquidGroup('Lobby', { minInstances: 0, maxInstances: 1, drainTimeout: 0, restartOnCrash: false });
const CAROL = offlineUuid('Carol');

interface Stats {
  online: number;
  totalUnique: number;
  perService: Record<string, number>;
}
interface Session {
  service: string;
  group: string;
  connectedAt: string;
  disconnectedAt: string | null;
}

let svc: string;
let browser: Browser;
let dir: string;
let controller: Awaited<ReturnType<typeof startBinaryController>>;
let port = 0;
const clients: Client[] = [];
const cleanups: (() => void)[] = [];

const api = (path: string, init?: RequestInit) => controller.api(path, init);
const json = async <T>(path: string) => (await readJson(await api(path))) as T;

async function report(body: Record<string, string>): Promise<void> {
  const response = await fetch(`${controller.url}/api/proxy/events`, { method: 'POST', headers: { authorization: `Bearer ${SERVICE_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`${body.type} of ${body.player} answered ${response.status}: ${await response.text()}`);
}

/** A real bot logs in to Lobby-1 and is reported as the bridge reports a first post-connect. */
async function arrive(name: string): Promise<Client> {
  const client = createClient({ host: '127.0.0.1', port, username: name, auth: 'offline', version: VERSION });
  clients.push(client);
  await waitForPackets(client, ['login'], { what: `${name} logged in`, failure: `${name} could not log in`, timeoutMs: 20_000 });
  expect(client.uuid).toBe(offlineUuid(name));
  await report({ type: 'PLAYER_CONNECTED', player: name, uuid: client.uuid, service: 'Lobby-1' });
  return client;
}

/** The bot leaves its server, and the bridge reports it. */
async function depart(client: Client): Promise<void> {
  const ended = new Promise((resolve) => client.once('end', resolve));
  client.end('leaving');
  await ended;
  await report({ type: 'PLAYER_DISCONNECTED', player: client.username, uuid: client.uuid, service: 'Lobby-1' });
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Pages' });
/** A figure's value (a dl of term and value). */
const figure = (page: Page, name: string) => page.locator('dl.figures > div', { has: page.getByRole('term').filter({ hasText: new RegExp(`^${name}$`) }) }).getByRole('definition');
const onlineRow = (page: Page, name: string) =>
  page.getByRole('table', { name: 'Online players' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
const record = (page: Page) => page.getByRole('region', { name: /^(Carol|Player)$/ });
const sessionRows = (page: Page) => record(page).getByRole('table', { name: 'Sessions' }).locator('tbody tr');

/** Whether the page's statistics are the API's now. */
async function statsShown(page: Page): Promise<boolean> {
  const stats = await json<Stats>('/api/players/stats');
  const perService = await page.getByRole('table', { name: 'Online by server' }).locator('tbody tr').evaluateAll((rows) =>
    rows.filter((r) => r.querySelector('th')).map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent]),
  );
  return (
    (await figure(page, 'Online now').textContent()) === String(stats.online) &&
    (await figure(page, 'Players ever seen').textContent()) === String(stats.totalUnique) &&
    (await figure(page, 'Servers with players').textContent()) === String(Object.keys(stats.perService).length) &&
    JSON.stringify(perService) === JSON.stringify(Object.entries(stats.perService).map(([s, n]) => [s, String(n)]))
  );
}

/** Whether the record's sessions are the API's (servers, and which one is open, newest first). */
async function sessionsShown(page: Page, count: number): Promise<boolean> {
  const history = await json<Session[]>(`/api/players/history/${CAROL}`);
  if (history.length !== count) return false;
  const shown = await sessionRows(page).evaluateAll((rows) => rows.map((r) => [r.querySelector('th')?.textContent, r.getAttribute('data-open') === 'true']));
  return JSON.stringify(shown) === JSON.stringify(history.map((s) => [s.service, s.disconnectedAt === null]));
}

beforeAll(async () => {
  svc = await svcBinary();
  const temp = tempDir('svc-browser-players-');
  dir = temp.dir;
  cleanups.push(temp.remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Players Test"\n[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  controller = await startBinaryController(svc, dir, TOKEN, cleanups);
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(LOBBY) })).status).toBe(201);
  const started = await api('/api/services/Lobby/start', { method: 'POST' });
  expect(started.status).toBe(201);
  port = ((await readJson(started)) as { service: { port: number } }).service.port;
  await waitFor(async () => (await json<{ state: string }>('/api/services/Lobby-1')).state === 'READY', { what: 'Lobby-1 READY', timeoutMs: 45_000, intervalMs: 200 });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const client of clients) client.end('test over');
  await api('/api/services/Lobby-1/stop', { method: 'POST' }).catch(() => undefined);
  if (dir) killGameServers(dir, []);
  cleanups.splice(0).reverse().forEach((f) => f());
}, 30_000);

describe('the Players page', () => {
  test('online now, statistics equal to the API’s, a player’s record and sessions after a connect and a disconnect, the search of all players, send and kick; 1280 and 390 px', async () => {
    const carol = await arrive('Carol');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, controller.url, TOKEN);
    await nav(page).getByRole('link', { name: 'Players', exact: true }).click();
    await page.getByRole('heading', { name: 'Players', level: 1 }).waitFor();

    // Carol online, with her server and group; the statistics are the API's.
    const carolRow = onlineRow(page, 'Carol');
    await carolRow.waitFor();
    expect(await carolRow.getByRole('cell').nth(0).textContent()).toBe('Lobby-1');
    expect(await carolRow.getByRole('cell').nth(1).textContent()).toBe('Lobby');
    await waitFor(() => statsShown(page), { what: 'the statistics of one player', timeoutMs: 10_000, intervalMs: 100 });
    expect(await figure(page, 'Online now').textContent()).toBe('1');

    // Dave arrives while the page is open: the list and the statistics follow.
    const dave = await arrive('Dave');
    await onlineRow(page, 'Dave').waitFor();
    await figure(page, 'Online now').filter({ hasText: /^2$/ }).waitFor();
    await waitFor(() => statsShown(page), { what: 'the statistics of two players', timeoutMs: 10_000, intervalMs: 100 });

    // Carol's name opens her record: online on Lobby-1, one open session.
    await carolRow.getByRole('link', { name: 'Carol' }).click();
    expect(new URL(page.url()).search).toBe(`?player=${CAROL}`);
    await record(page).getByText('Online on Lobby-1').waitFor();
    expect(await page.evaluate<string>('document.activeElement?.id')).toBe('pl-detail-title');
    expect(await record(page).getByRole('definition').first().textContent()).toBe(CAROL);
    await waitFor(() => sessionsShown(page, 1), { what: 'one open session', timeoutMs: 10_000, intervalMs: 100 });
    expect(await sessionRows(page).first().textContent()).toContain('online now');

    // Send and Kick from the record: no proxy is READY, so the API refuses, in its words.
    problems.expect(/^503 POST \/api\/players\/Carol\/(kick|send)$/);
    problems.expect(/status of 503/);
    const refusal = (await readJson(await api('/api/players/Carol/kick', { method: 'POST', body: JSON.stringify({ reason: '' }) }))) as { error: string; message: string };
    expect(refusal.error).toBe('PROXY_NOT_AVAILABLE');
    await record(page).getByRole('button', { name: 'Kick Carol' }).click();
    const kick = page.getByRole('dialog', { name: 'Kick Carol' });
    await kick.getByRole('button', { name: 'Kick', exact: true }).click();
    expect(await kick.getByRole('alert').textContent()).toBe(`The controller refused: ${refusal.message} (503 PROXY_NOT_AVAILABLE)`);
    await kick.getByRole('button', { name: 'Cancel' }).click();
    await record(page).getByRole('button', { name: 'Send Carol' }).click();
    const send = page.getByRole('dialog', { name: 'Send Carol' });
    // Lobby-1 is the only READY backend (and Carol's own).
    expect(await send.getByLabel('Target server').inputValue()).toBe('Lobby-1');
    await send.getByRole('button', { name: 'Send', exact: true }).click();
    await send.getByRole('alert').filter({ hasText: refusal.message }).waitFor();
    await page.screenshot({ path: join(screenshotDir(), 'players-send-1280.png') });
    await send.getByRole('button', { name: 'Cancel' }).click();
    await send.waitFor({ state: 'detached' });

    // Carol leaves: her record turns offline, the session closes, the list and the statistics follow.
    await depart(carol);
    await record(page).getByText('Offline', { exact: true }).waitFor();
    await onlineRow(page, 'Carol').waitFor({ state: 'detached' });
    await waitFor(() => sessionsShown(page, 1), { what: 'one closed session', timeoutMs: 10_000, intervalMs: 100 });
    expect(await sessionRows(page).first().textContent()).not.toContain('online now');
    await waitFor(() => statsShown(page), { what: 'the statistics after Carol left', timeoutMs: 10_000, intervalMs: 100 });
    expect(await figure(page, 'Players ever seen').textContent()).toBe('2');
    expect(await record(page).getByRole('button', { name: 'Kick Carol' }).count()).toBe(0);

    // She comes back: a second session, the open one first.
    const carolAgain = await arrive('Carol');
    await record(page).getByText('Online on Lobby-1').waitFor();
    await waitFor(() => sessionsShown(page, 2), { what: 'a second session', timeoutMs: 10_000, intervalMs: 100 });
    expect(await sessionRows(page).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-open')))).toEqual(['true', null]);

    // All known players: the search answers what GET /api/players/all answers.
    const known = page.getByRole('table', { name: 'Known players' });
    const names = (t: Locator) => t.locator('tbody th').allTextContents();
    await waitFor(async () => JSON.stringify(await names(known)) === JSON.stringify((await json<{ name: string }[]>('/api/players/all?limit=100')).map((p) => p.name)), { what: 'the known players', timeoutMs: 10_000, intervalMs: 100 });
    expect((await names(known)).sort()).toEqual(['Carol', 'Dave']);
    await page.getByRole('search', { name: 'Search all players' }).getByLabel('Name').fill('AV');
    await page.getByTestId('known-count').filter({ hasText: '1 whose name contains “AV”' }).waitFor();
    expect(await names(known)).toEqual((await json<{ name: string }[]>('/api/players/all?q=AV&limit=100')).map((p) => p.name));
    expect(await names(known)).toEqual(['Dave']);
    expect(await known.locator('tbody tr').first().getByText('Online').count()).toBe(1);
    await page.getByRole('search', { name: 'Search all players' }).getByLabel('Name').fill('');
    await page.getByTestId('known-count').filter({ hasText: '2 most recently seen' }).waitFor();
    await page.screenshot({ path: join(screenshotDir(), 'players-1280.png'), fullPage: true });

    // Closing the record: back to /players.
    await record(page).getByRole('link', { name: 'Close' }).click();
    await record(page).waitFor({ state: 'detached' });
    expect(new URL(page.url()).search).toBe('');

    // 390 px: cards, nothing sideways; the record too.
    await page.setViewportSize({ width: 390, height: 844 });
    await onlineRow(page, 'Dave').getByRole('link', { name: 'Dave' }).click();
    await page.getByRole('region', { name: 'Dave' }).getByText('Online on Lobby-1').waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'players-390.png'), fullPage: true });

    expect(problems.problems).toEqual([]);
    await page.close();
    await depart(dave);
    await depart(carolAgain);
  }, 120_000);

  test('dark at 1280 and 390 px: the record of a player who left', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    const problems = new PageProblems(page);
    await signIn(page, controller.url, TOKEN);
    await page.goto(`${controller.url}/players?player=${CAROL}`);
    await record(page).getByText('Offline', { exact: true }).waitFor();
    await waitFor(() => sessionsShown(page, 2), { what: 'two closed sessions', timeoutMs: 10_000, intervalMs: 100 });
    await page.getByText('No player is online.').waitFor();
    await page.screenshot({ path: join(screenshotDir(), 'players-dark-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'players-dark-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('uninstalled and restarted: no Players link, /players says the module does not run, Network lists from core', async () => {
    const uninstalled = await api('/api/modules/uninstall/players', { method: 'POST' });
    expect(uninstalled.status).toBe(200);
    expect(await readJson(uninstalled)).toMatchObject({ success: true, restartRequired: true });
    // The controller's own stop (its services with it), then the binary again on the same directory.
    expect((await api('/api/shutdown', { method: 'POST' })).status).toBe(202);
    expect(await controller.child.exited).toBe(0);
    controller = await startBinaryController(svc, dir, TOKEN, cleanups);
    expect((await api('/api/players/online')).status).toBe(404);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, controller.url, TOKEN);
    await nav(page).getByRole('link', { name: 'Network', exact: true }).waitFor();
    expect(await nav(page).getByRole('link', { name: 'Players', exact: true }).count()).toBe(0);

    await page.goto(`${controller.url}/players`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('The players module does not run on this controller: install it (POST /api/modules/install/players) and restart the controller.');
    await page.screenshot({ path: join(screenshotDir(), 'players-uninstalled-1280.png') });

    // The Network page still lists, from core's GET /api/players, and names no player's history.
    let coreListRead = false;
    page.on('request', (r) => (coreListRead ||= new URL(r.url()).pathname === '/api/players'));
    await nav(page).getByRole('link', { name: 'Network', exact: true }).click();
    await page.getByText('The players module does not run: this list is').waitFor();
    await page.getByText('No player is online.').waitFor();
    expect(coreListRead).toBe(true);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
