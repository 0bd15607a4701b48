/**
 * The Resource packs page (issue 42) in headless Chromium against the compiled binary, each
 * action checked through the API: a 50 MiB pack (a stored zip of random bytes) uploads with its
 * progress seen moving (the upload throttled through the DevTools protocol) and is stored with
 * the SHA-1 of its bytes, and a stopped upload leaves nothing; a pack hosted elsewhere (a local
 * HTTP server) is added with the SHA-1 the page works out from a copy, and the bytes at its
 * address match it; packs assigned to a group from the page come in an order changed by drag
 * and drop and by the keyboard (Move up / Move down, the focus kept), and the API's order is
 * the page's; the resolved stack for a service of that group is what the controller answers
 * its backend; Delete asks first and takes the pack's assignments with it; a session holding
 * only .view is told beforehand and refused in words, and its stack (worked out on the page,
 * the route being machine-only) is the API's. With the module uninstalled and the controller
 * restarted, the link is gone and /resource-packs says the module does not run. 1280 and
 * 390 px, light and dark, nothing scrolling sideways.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { deriveServiceToken } from '../../src/core/auth';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir, waitFor, type TestController } from '../support/controller';
import { bringOnline, grant, loginCode, testPlayer } from '../support/dashboard-login';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { expectModulePageAbsent } from '../support/module-page';

const TOKEN = 'dashboard-resource-packs-token-0123456789ab';
const SERVICE = deriveServiceToken(TOKEN);
const MiB = 1024 * 1024;

interface Pack {
  id: number;
  packUuid: string;
  name: string;
  source: string;
  url: string;
  sha1Hash: string;
  promptMessage: string;
  force: boolean;
  fileSize: number;
}
interface Assignment {
  id: number;
  packId: number;
  scope: string;
  target: string;
  priority: number;
}
interface StackPack {
  packUuid: string;
  name: string;
  priority: number;
}

let browser: Browser;
let url: string;
let dir: string;
let child: { kill: (signal?: number | NodeJS.Signals) => void; exited: Promise<number> };
let c: TestController;
const cleanups: (() => void)[] = [];

/** The 50 MiB pack: pack.mcmeta and 50 MiB of random bytes, stored (no compressor shrinks them). */
let bigPath: string;
let bigSha1: string;
let bigSize: number;
/** The pack a local server hosts (the "elsewhere" of a URL pack). */
const cityBytes = zipSync({ 'pack.mcmeta': new TextEncoder().encode('{"pack":{"pack_format":34,"description":"City"}}'), 'assets/minecraft/textures/block/stone.png': new Uint8Array(randomBytes(64 * 1024)) }, { level: 0 });
const sha1 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha1').update(bytes).digest('hex');
let host: ReturnType<typeof Bun.serve>;
let hostHits = 0;

function apiOf(base: string) {
  return (path: string, init: { method?: string; json?: unknown; token?: string | null } = {}) =>
    fetch(base + path, {
      method: init.method ?? 'GET',
      headers: { ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? TOKEN}` }), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
}

async function json<T>(path: string, init: { method?: string; json?: unknown; token?: string | null } = {}, status = 200): Promise<T> {
  const response = await c.api(path, init);
  const text = await response.text();
  if (response.status !== status) throw new Error(`${init.method ?? 'GET'} ${path} answered ${response.status} (wanted ${status}): ${text}`);
  return JSON.parse(text) as T;
}

const packs = async () => (await json<{ packs: Pack[]; total: number }>('/api/resourcepacks')).packs;
const packNamed = async (name: string) => (await packs()).find((p) => p.name === name);
/** The pack names assigned to a group, in the controller's order (priority, then id). */
async function groupOrder(group: string): Promise<string[]> {
  const all = await json<Assignment[]>('/api/resourcepacks/assignments');
  const names = new Map((await packs()).map((p) => [p.id, p.name]));
  return all
    .filter((a) => a.scope === 'GROUP' && a.target.toLowerCase() === group.toLowerCase())
    .sort((a, b) => a.priority - b.priority || a.id - b.id)
    .map((a) => names.get(a.packId)!);
}
/** What the backend plugin gets on a player's join (its service token). */
const backendStack = async (group: string, service = '') =>
  (await json<{ packs: StackPack[] }>(`/api/resourcepacks/for-group/${group}${service ? `?service=${service}` : ''}`, { token: SERVICE })).packs;
const createUrlPack = (name: string, extra: Record<string, unknown> = {}) =>
  json<Pack>('/api/resourcepacks', { method: 'POST', json: { name, url: `http://127.0.0.1:${host.port}/packs/${name}.zip`, sha1Hash: sha1(new TextEncoder().encode(name)), ...extra } }, 201);

beforeAll(async () => {
  const svc = await svcBinary();
  const made = tempDir('svc-browser-resource-packs-');
  dir = made.dir;
  cleanups.push(made.remove);
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  // 50 MiB of data in the zip, stored.
  const big = zipSync({ 'pack.mcmeta': new TextEncoder().encode('{"pack":{"pack_format":34,"description":"Big"}}'), 'assets/minecraft/textures/big.bin': new Uint8Array(randomBytes(50 * MiB)) }, { level: 0 });
  bigPath = join(dir, 'big-pack.zip');
  writeFileSync(bigPath, big);
  bigSha1 = sha1(big);
  bigSize = big.length;
  host = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      hostHits++;
      return new URL(request.url).pathname === '/packs/city.zip' ? new Response(cityBytes, { headers: { 'content-type': 'application/zip' } }) : new Response('not here', { status: 404 });
    },
  });
  cleanups.push(() => void host.stop(true));
  const started = await startBinaryController(svc, dir, TOKEN, cleanups);
  ({ url, child } = started);
  c = { api: apiOf(url), service: SERVICE, master: TOKEN } as unknown as TestController;
  // The group, and one service of it running (a fake Paper server): the stack is asked for it.
  await json('/api/groups', { method: 'POST', json: fakePaperGroup('Lobby', { minInstances: 0, maxInstances: 1 }) }, 201);
  await json('/api/groups', { method: 'POST', json: fakePaperGroup('Arena', { minInstances: 0, maxInstances: 1 }) }, 201);
  const start = await c.api('/api/services/Lobby/start', { method: 'POST' });
  if (start.status >= 300) throw new Error(`starting a Lobby service answered ${start.status}: ${await start.text()}`);
  await waitFor(async () => (await json<{ services: { name: string }[] }>('/api/services')).services.some((s) => s.name === 'Lobby-1'), { what: 'Lobby-1 listed', timeoutMs: 20_000, intervalMs: 50 });
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await c?.api('/api/services/Lobby-1/stop', { method: 'POST' }).catch(() => undefined);
  cleanups.splice(0).reverse().forEach((f) => f());
});

/** Signs in with the API token and opens the page through the navigation. */
async function openPage(page: Page): Promise<void> {
  await signIn(page, url, TOKEN);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Resource packs', exact: true }).click();
  await page.getByRole('heading', { name: 'Resource packs', level: 1 }).waitFor();
  await packsSection(page).getByText(/^(No pack yet|\d+ packs?, newest first)/).waitFor();
}

const packsSection = (page: Page) => page.getByRole('region', { name: 'Packs', exact: true });
const uploadForm = (page: Page) => page.getByRole('form', { name: 'Upload a zip' });
const urlForm = (page: Page) => page.getByRole('form', { name: 'A pack hosted elsewhere' });
const assignments = (page: Page) => page.getByRole('region', { name: 'Assignments' });
const stack = (page: Page) => page.getByRole('region', { name: 'Resolved stack' });
const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: join(screenshotDir(), `resource-packs-${name}.png`), fullPage });

/** The names in an ordered list of the page, top to bottom. */
const orderOnPage = (page: Page, label: string) => page.getByRole('list', { name: label }).locator('li .rp-order-name strong').allTextContents();
const stackOnPage = (page: Page) => stack(page).locator('ol.rp-stack > li .rp-stack-name').allTextContents();

/** The progress bar's value and maximum (page-side code as a string: this file has no DOM types). */
const progressOf = (page: Page) => page.evaluate<[number, number] | null>(`(() => { const p = document.querySelector('progress[aria-label="Upload progress"]'); return p ? [p.value, p.max] : null; })()`);
/** Until the upload's progress is past `above` bytes and below `fraction` of the whole (read every 20 ms); its value and maximum then. */
const progressWithin = (page: Page, above: number, fraction: number) =>
  waitFor(
    async () => {
      const seen = await progressOf(page);
      return seen && seen[0] > above && seen[0] < seen[1] * fraction ? seen : null;
    },
    { what: `the upload’s progress past ${above} bytes and below ${fraction * 100}%`, intervalMs: 20, timeoutMs: 20_000 },
  );

describe('packs', () => {
  test('a 50 MiB pack uploads with its progress seen moving; the controller holds its bytes’ SHA-1; a stopped upload leaves nothing', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPage(page);
    const form = uploadForm(page);
    await form.getByLabel('Pack file').setInputFiles(bigPath);
    // The name comes from the file's.
    expect(await form.getByLabel('Name', { exact: true }).inputValue()).toBe('big-pack');
    await form.getByLabel('Name', { exact: true }).fill('Big Pack');
    await form.getByLabel('Prompt players see (optional)').fill('The network’s textures');
    await form.getByLabel('Required: kick a player who declines it').check();

    // Throttled to 4 MiB/s (about 12 s for the whole): the progress is seen between its ends, twice.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 4 * MiB });
    const request = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/resourcepacks/upload');
    await form.getByRole('button', { name: 'Upload', exact: true }).click();
    expect(Object.fromEntries(new URL((await request).url()).searchParams)).toEqual({ name: 'Big Pack', force: 'true', prompt: 'The network’s textures' });
    const [first] = await progressWithin(page, 0, 0.5);
    const [second, max] = await progressWithin(page, first, 1);
    expect(second).toBeGreaterThan(first);
    expect(max).toBe(bigSize);
    expect(await form.getByRole('status').first().textContent()).toMatch(/^Uploading big-pack\.zip: [\d.]+ (KiB|MiB) of 50\.0 MiB \(\d+%\)$/);
    await shot(page, 'upload-progress-1280', false);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const done = form.getByRole('status').filter({ hasText: 'Big Pack is uploaded' });
    await done.waitFor({ timeout: 60_000 });
    const stored = (await packNamed('Big Pack'))!;
    expect(stored).toMatchObject({ source: 'LOCAL', sha1Hash: bigSha1, fileSize: bigSize, force: true, promptMessage: 'The network’s textures', url: `/api/resourcepacks/files/${stored.packUuid}.zip` });
    expect(await done.textContent()).toBe(`Big Pack is uploaded (50.0 MiB, SHA-1 ${bigSha1}). Assign it below so players get it.`);
    // The list shows it (read again on its event).
    const row = packsSection(page).locator(`tbody tr[data-id="${stored.id}"]`);
    await row.waitFor();
    expect(await row.locator('td[data-label="SHA-1"]').textContent()).toBe(bigSha1);
    expect(await row.getByRole('link', { name: 'Download Big Pack' }).getAttribute('href')).toBe(stored.url);

    // Stopped midway: said so, and the controller keeps nothing of it.
    await form.getByLabel('Pack file').setInputFiles(bigPath);
    await form.getByLabel('Name', { exact: true }).fill('Stopped Pack');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 2 * MiB });
    await form.getByRole('button', { name: 'Upload', exact: true }).click();
    await progressWithin(page, 0, 0.5);
    await form.getByRole('button', { name: 'Stop the upload' }).click();
    const stopped = form.getByRole('alert');
    await stopped.waitFor();
    expect(await stopped.textContent()).toBe('The upload of big-pack.zip was stopped: the controller keeps nothing of it.');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    expect(await packNamed('Stopped Pack')).toBeUndefined();
    expect((await packs()).length).toBe(1);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 120_000);

  test('a pack hosted elsewhere is added with the SHA-1 worked out from a copy; its address serves bytes of that SHA-1', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPage(page);
    const form = urlForm(page);
    const address = `http://127.0.0.1:${host.port}/packs/city.zip`;
    await form.getByLabel('Name', { exact: true }).fill('City');
    await form.getByLabel('Address (URL)').fill('ftp://127.0.0.1/city.zip');
    await form.getByLabel('SHA-1 of the file').fill('not-a-hash');
    // Checked as the route checks it, before anything is sent.
    await form.getByRole('button', { name: 'Add the pack' }).click();
    await form.getByText('Clients download packs over http or https only, not ftp.').waitFor();
    await form.getByText('A SHA-1 is exactly 40 hexadecimal characters (0–9, a–f); this is 10 characters with others among them.').waitFor();
    expect(await form.getByLabel('Address (URL)').getAttribute('aria-invalid')).toBe('true');
    expect(await packNamed('City')).toBeUndefined();

    await form.getByLabel('Address (URL)').fill(address);
    await form.getByLabel('Or work the SHA-1 out from a copy of the file').setInputFiles({ name: 'city.zip', mimeType: 'application/zip', buffer: Buffer.from(cityBytes) });
    await form.getByText(/^The SHA-1 of city\.zip \([\d.]+ KiB\) is filled in\./).waitFor();
    expect(await form.getByLabel('SHA-1 of the file').inputValue()).toBe(sha1(cityBytes));
    await form.getByLabel('Prompt players see (optional)').fill('City textures');
    await form.getByRole('button', { name: 'Add the pack' }).click();
    const status = form.getByRole('status').filter({ hasText: 'City is added' });
    await status.waitFor();
    const pack = (await packNamed('City'))!;
    expect(pack).toMatchObject({ source: 'URL', url: address, sha1Hash: sha1(cityBytes), promptMessage: 'City textures', force: false, fileSize: 0 });
    expect(await status.textContent()).toBe(`City is added: players’ clients download it from ${address} and check it against SHA-1 ${pack.sha1Hash}. Assign it below so players get it.`);
    // The controller stored what it was given without fetching the address (the page says so)…
    expect(hostHits).toBe(0);
    // …and a client downloading it gets bytes of that SHA-1.
    expect(sha1(new Uint8Array(await (await fetch(pack.url)).arrayBuffer()))).toBe(pack.sha1Hash);
    await packsSection(page).locator(`tbody tr[data-id="${pack.id}"]`).getByRole('link', { name: address }).waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('assignments', () => {
  test('packs assigned to a group come in the order set by drag and drop and by the keyboard; the API’s order is the page’s', async () => {
    for (const name of ['Alpha', 'Bravo', 'Charlie']) await createUrlPack(name);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPage(page);
    const section = assignments(page);
    await section.getByLabel('A group', { exact: true }).check();
    await section.getByLabel('Group', { exact: true }).selectOption('Lobby');
    const add = section.getByRole('form', { name: 'Add a pack to group Lobby' });
    for (const name of ['Alpha', 'Bravo', 'Charlie']) {
      await add.getByLabel('Pack to add to group Lobby').selectOption({ label: name });
      await add.getByRole('button', { name: 'Add at the end' }).click();
      await section.getByRole('status').filter({ hasText: `${name} is assigned to group Lobby, last in its order.` }).waitFor();
    }
    const label = 'Order of the packs of group Lobby';
    const list = section.getByRole('list', { name: label });
    await waitFor(async () => (await orderOnPage(page, label)).length === 3, { what: 'three packs listed', intervalMs: 20 });
    expect(await orderOnPage(page, label)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(await groupOrder('Lobby')).toEqual(['Alpha', 'Bravo', 'Charlie']);

    // Drag and drop: Charlie's grip onto Alpha's row puts Charlie first.
    const row = (name: string) => list.locator('li', { has: page.getByText(name, { exact: true }) });
    await row('Charlie').locator('.rp-grip').dragTo(row('Alpha'));
    await section.getByRole('status').filter({ hasText: 'Order saved for group Lobby: 1. Charlie, 2. Alpha, 3. Bravo.' }).waitFor();
    expect(await groupOrder('Lobby')).toEqual(['Charlie', 'Alpha', 'Bravo']);
    expect(await orderOnPage(page, label)).toEqual(await groupOrder('Lobby'));
    await shot(page, 'assignments-1280');

    // The keyboard: Move up on Bravo, twice with Enter; the focus stays on Bravo's buttons.
    await section.getByRole('button', { name: 'Move Bravo up' }).focus();
    await page.keyboard.press('Enter');
    await section.getByRole('status').filter({ hasText: 'Order saved for group Lobby: 1. Charlie, 2. Bravo, 3. Alpha.' }).waitFor();
    expect(await groupOrder('Lobby')).toEqual(['Charlie', 'Bravo', 'Alpha']);
    expect(await orderOnPage(page, label)).toEqual(await groupOrder('Lobby'));
    expect(await page.evaluate<string | undefined>('document.activeElement?.getAttribute("aria-label")')).toBe('Move Bravo up');
    await page.keyboard.press('Enter');
    await section.getByRole('status').filter({ hasText: 'Order saved for group Lobby: 1. Bravo, 2. Charlie, 3. Alpha.' }).waitFor();
    expect(await groupOrder('Lobby')).toEqual(['Bravo', 'Charlie', 'Alpha']);
    expect(await orderOnPage(page, label)).toEqual(await groupOrder('Lobby'));
    // First now: Move up is gone, the keyboard is on Move down.
    expect(await section.getByRole('button', { name: 'Move Bravo up' }).isDisabled()).toBe(true);
    expect(await page.evaluate<string | undefined>('document.activeElement?.getAttribute("aria-label")')).toBe('Move Bravo down');
    // Alpha to the middle, from its own Move up.
    await section.getByRole('button', { name: 'Move Alpha up' }).focus();
    await page.keyboard.press('Enter');
    await section.getByRole('status').filter({ hasText: 'Order saved for group Lobby: 1. Bravo, 2. Alpha, 3. Charlie.' }).waitFor();
    expect(await groupOrder('Lobby')).toEqual(['Bravo', 'Alpha', 'Charlie']);
    expect(await orderOnPage(page, label)).toEqual(await groupOrder('Lobby'));

    // Everywhere: the big pack; on the service Lobby-1: City (typed, as a service's name is).
    await section.getByLabel('Everywhere', { exact: true }).check();
    await section.getByRole('form', { name: 'Add a pack to everywhere' }).getByLabel('Pack to add everywhere').selectOption({ label: 'Big Pack' });
    await section.getByRole('form', { name: 'Add a pack to everywhere' }).getByRole('button', { name: 'Add at the end' }).click();
    await section.getByRole('status').filter({ hasText: 'Big Pack is assigned to everywhere' }).waitFor();
    await section.getByLabel('A service', { exact: true }).check();
    await section.getByLabel('Service', { exact: true }).fill('Lobby-1');
    await section.getByLabel('Pack to add to service Lobby-1').selectOption({ label: 'City' });
    await section.getByRole('form', { name: 'Add a pack to service Lobby-1' }).getByRole('button', { name: 'Add at the end' }).click();
    await section.getByRole('status').filter({ hasText: 'City is assigned to service Lobby-1' }).waitFor();
    // The places with packs, each one button away.
    const places = section.getByRole('group', { name: 'Places with packs' });
    await places.getByRole('button', { name: 'service Lobby-1 (1)' }).waitFor();
    await places.getByRole('button', { name: 'group Lobby (3)' }).click();
    expect(await orderOnPage(page, label)).toEqual(['Bravo', 'Alpha', 'Charlie']);
    const all = await json<Assignment[]>('/api/resourcepacks/assignments');
    expect(all.map((a) => `${a.scope}:${a.target}`).sort()).toEqual(['GLOBAL:', 'GROUP:Lobby', 'GROUP:Lobby', 'GROUP:Lobby', 'SERVICE:Lobby-1']);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);

  test('the resolved stack for a service of that group is what the controller answers its backend', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPage(page);
    const section = stack(page);
    await section.getByLabel('Group', { exact: true }).selectOption('Lobby');
    const forGroup = (await backendStack('Lobby')).map((p) => p.name);
    expect(forGroup).toEqual(['Big Pack', 'Bravo', 'Alpha', 'Charlie']);
    await section.getByText('A player on a server of group Lobby gets 4 packs', { exact: false }).waitFor();
    expect(await stackOnPage(page)).toEqual(forGroup);

    await section.getByLabel('Service (optional)').fill('Lobby-1');
    await section.getByText('Lobby-1 runs now, in group Lobby.').waitFor();
    const forService = await backendStack('Lobby', 'Lobby-1');
    expect(forService.map((p) => p.name)).toEqual(['Big Pack', 'Bravo', 'Alpha', 'Charlie', 'City']);
    await section.getByText('A player on Lobby-1 (group Lobby) gets 5 packs', { exact: false }).waitFor();
    expect(await stackOnPage(page)).toEqual(forService.map((p) => p.name));
    // Where each comes from, with the priority the controller answers.
    const facts = await section.locator('ol.rp-stack > li > span.rp-muted').allTextContents();
    const places = ['assigned everywhere', 'assigned to group Lobby', 'assigned to group Lobby', 'assigned to group Lobby', 'assigned to service Lobby-1'];
    expect(facts).toEqual(forService.map((p, i) => `${places[i]}, priority ${p.priority}`));
    await shot(page, 'stack-1280');

    // Another group: only what is assigned everywhere.
    await section.getByLabel('Service (optional)').fill('');
    await section.getByLabel('Group', { exact: true }).selectOption('Arena');
    await section.getByText('A player on a server of group Arena gets one pack', { exact: false }).waitFor();
    expect(await stackOnPage(page)).toEqual((await backendStack('Arena')).map((p) => p.name));
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('a dashboard session holding only svc.dashboard.resourcepacks.view', () => {
  test('is told beforehand, refused in words, and sees the stack worked out on the page', async () => {
    const viewer = testPlayer(0x201, 'Viewer');
    // Online on a server of another network part: Lobby-1 has no player to wait for when it stops.
    await bringOnline(c, viewer, 'Hub-1');
    await grant(c, viewer, ['svc.dashboard.resourcepacks.view']);
    const before = { packs: await packs(), order: await groupOrder('Lobby') };
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    problems.expect(/^403 (POST|DELETE) \/api\/resourcepacks(\/.*)?$|status of 403 \(Forbidden\)/);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, viewer));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Resource packs', exact: true }).click();
    await page.getByRole('heading', { name: 'Resource packs', level: 1 }).waitFor();
    await packsSection(page).locator('tbody tr[data-id]').first().waitFor();
    // Told before trying.
    await urlForm(page).getByText('Your account may not add packs: it needs the permission svc.dashboard.resourcepacks.manage, so the controller will refuse it.').waitFor();
    await assignments(page).getByText('Your account may not change assignments: it needs the permission svc.dashboard.resourcepacks.assign, so the controller will refuse it.').waitFor();

    // Adding a pack: refused in words.
    const form = urlForm(page);
    await form.getByLabel('Name', { exact: true }).fill('Sneaky');
    await form.getByLabel('Address (URL)').fill(`http://127.0.0.1:${host.port}/packs/sneaky.zip`);
    await form.getByLabel('SHA-1 of the file').fill('a'.repeat(40));
    await form.getByRole('button', { name: 'Add the pack' }).click();
    const refused = form.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).toBe(
      'Sneaky was not added: your account may not do this. Missing permission: svc.dashboard.resourcepacks.manage (this dashboard session does not hold it). Ask an admin of this network for that permission.',
    );

    // Deleting: the dialog says the refusal.
    await packsSection(page).getByRole('button', { name: 'Delete Alpha' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Alpha?' });
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    const deleteRefusal = dialog.getByRole('alert');
    await deleteRefusal.waitFor();
    expect(await deleteRefusal.textContent()).toBe(
      'Alpha was not deleted: your account may not do this. Missing permission: svc.dashboard.resourcepacks.manage (this dashboard session does not hold it). Ask an admin of this network for that permission.',
    );
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    // A new order: refused at its first step, nothing changed.
    const section = assignments(page);
    await section.getByLabel('A group', { exact: true }).check();
    await section.getByLabel('Group', { exact: true }).fill('Lobby'); // no svc.dashboard.groups.view: typed
    await section.getByRole('button', { name: 'Move Alpha up' }).click();
    const orderRefusal = section.getByRole('alert');
    await orderRefusal.waitFor();
    expect(await orderRefusal.textContent()).toBe(
      'The order was not saved (Alpha could not be moved): your account may not do this. Missing permission: svc.dashboard.resourcepacks.assign (this dashboard session does not hold it). Ask an admin of this network for that permission.',
    );
    expect(await orderOnPage(page, 'Order of the packs of group Lobby')).toEqual(before.order);
    expect(await packs()).toEqual(before.packs);
    expect(await groupOrder('Lobby')).toEqual(before.order);

    // The stack: the backend's route is machine-only; the page works it out and says so.
    const stackSection = stack(page);
    await stackSection.getByLabel('Group', { exact: true }).fill('Lobby');
    await stackSection.getByLabel('Service (optional)').fill('Lobby-1');
    await stackSection.getByText('Worked out on this page from the assignments, by the controller’s rules', { exact: false }).waitFor();
    await stackSection.getByText('A player on Lobby-1 (group Lobby) gets 5 packs', { exact: false }).waitFor();
    expect(await stackOnPage(page)).toEqual((await backendStack('Lobby', 'Lobby-1')).map((p) => p.name));
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await shot(page, 'session-390');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('deleting', () => {
  test('Delete asks first; the pack and its assignments are gone', async () => {
    const doomed = await createUrlPack('Doomed');
    await json('/api/resourcepacks/' + doomed.id + '/assignments', { method: 'POST', json: { scope: 'GROUP', target: 'Arena' } }, 201);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPage(page);
    await packsSection(page).getByRole('button', { name: 'Delete Doomed' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Doomed?' });
    await dialog.getByText('Its assignments go with it: group Arena.').waitFor();
    // Escape leaves it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await packNamed('Doomed')).toBeDefined();
    await packsSection(page).getByRole('button', { name: 'Delete Doomed' }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await packsSection(page).getByRole('status').filter({ hasText: "Pack 'Doomed' deleted. Its assignment went with it." }).waitFor();
    await packsSection(page).locator(`tbody tr[data-id="${doomed.id}"]`).waitFor({ state: 'detached' });
    expect(await packNamed('Doomed')).toBeUndefined();
    expect((await json<Assignment[]>('/api/resourcepacks/assignments')).some((a) => a.packId === doomed.id)).toBe(false);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('layout', () => {
  for (const [width, height] of [
    [1280, 900],
    [390, 844],
  ] as const) {
    test(`${width} px, light and dark: nothing scrolls sideways`, async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      const problems = new PageProblems(page);
      await openPage(page);
      await packsSection(page).locator('tbody tr[data-id]').first().waitFor();
      await assignments(page).getByRole('group', { name: 'Places with packs' }).getByRole('button', { name: 'group Lobby (3)' }).click();
      await stack(page).getByLabel('Group', { exact: true }).selectOption('Lobby');
      await stack(page).getByLabel('Service (optional)').fill('Lobby-1');
      await stack(page).getByText('A player on Lobby-1 (group Lobby) gets 5 packs', { exact: false }).waitFor();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
        await shot(page, `${width}-${scheme}`);
      }
      if (width === 390) {
        await packsSection(page).getByRole('button', { name: 'Delete City' }).click();
        await page.getByRole('dialog').waitFor();
        expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
        await shot(page, 'delete-390-dark', false);
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });
      }
      expect(problems.problems).toEqual([]);
      await page.close();
    }, 60_000);
  }
});

describe('uninstalled', () => {
  test('after POST /api/modules/uninstall/resourcepacks and a restart, the link is gone and /resource-packs says the module does not run', async () => {
    await json('/api/modules/uninstall/resourcepacks', { method: 'POST' });
    await c.api('/api/services/Lobby-1/stop', { method: 'POST' });
    child.kill('SIGTERM');
    await child.exited;
    const svc = await svcBinary();
    ({ url, child } = await startBinaryController(svc, dir, TOKEN, cleanups));
    c = { api: apiOf(url), service: SERVICE, master: TOKEN } as unknown as TestController;
    expect((await c.api('/api/resourcepacks')).status).toBe(404);
    await expectModulePageAbsent(browser, url, TOKEN, { link: 'Resource packs', path: '/resource-packs', module: 'resourcepacks', screenshot: 'resource-packs-uninstalled-1280.png' });
  }, 60_000);
});
