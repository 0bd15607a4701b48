/**
 * The Performance, Plugins and Stress pages in headless Chromium against the binary (issue 41),
 * with one fake-paper Lobby instance READY and local fakes of Modrinth and Hangar:
 * - Performance shows the API's figures (services ready, players) and draws the players chart;
 * - Plugins searches both repositories, installs a plugin with its dependency into a group's
 *   template and removes one, as the files API then lists them;
 * - Stress starts, ramps and stops a test (the page's counts are the API's), says how many of the
 *   5 actions a minute of each route are available, and says so in words when the controller refuses one.
 * Screenshots at 1280 and 390 px; nothing scrolls sideways at 390.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir, waitFor } from '../support/controller';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { fakeHangar } from '../fixtures/upstream/hangar';
import { fakeModrinth } from '../fixtures/upstream/modrinth';
import { fakeJar } from '../fixtures/upstream/serve';

const TOKEN = 'dashboard-operations-token-0123456789abcdef';
const modrinth = fakeModrinth([
  {
    id: 'Vebnzrzj',
    slug: 'luckperms',
    title: 'LuckPerms',
    author: 'Luck',
    downloads: 900_000,
    description: 'A permissions plugin',
    versions: [
      {
        id: 'lp541',
        version_number: '5.4.141',
        game_versions: ['1.21.4'],
        loaders: ['paper'],
        files: [{ filename: 'LuckPerms-Bukkit-5.4.141.jar', bytes: fakeJar('LuckPerms') }],
        dependencies: [{ project_id: 'papi0001', dependency_type: 'required' }],
      },
    ],
  },
  { id: 'papi0001', slug: 'placeholderapi', title: 'PlaceholderAPI', author: 'clip', downloads: 500, versions: [{ id: 'papi2116', version_number: '2.11.6', game_versions: ['1.21.4'], loaders: ['paper'], files: [{ filename: 'PlaceholderAPI-2.11.6.jar', bytes: fakeJar('PAPI') }] }] },
]);
const hangar = fakeHangar([
  { id: 2, name: 'LuckPerms', owner: 'Luck', slug: 'LuckPerms', downloads: 100, description: 'Permissions on Hangar', versions: [{ name: '5.4.141', platforms: { PAPER: ['1.21.4'] }, file: { name: 'LuckPerms-Paper.jar', bytes: fakeJar('lp hangar') } }] },
]);

let browser: Browser;
let url: string;
let dir: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];
const json = async <T>(path: string) => (await (await api(path)).json()) as T;
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
/** The value of a figure on the page (a dl of term and value). */
const figure = (page: Page, name: string) => page.locator('dl.figures > div', { has: page.getByRole('term').filter({ hasText: new RegExp(`^${name}$`) }) }).getByRole('definition');

beforeAll(async () => {
  const svc = await svcBinary();
  const temp = tempDir('svc-browser-operations-');
  dir = temp.dir;
  cleanups.push(temp.remove, () => modrinth.close(), () => hangar.close());
  writeFileSync(
    join(dir, 'svc.toml'),
    `[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n[software]\nmodrinth_url = "${modrinth.url}"\nhangar_url = "${hangar.url}"\n`,
  );
  ({ url, api } = await startBinaryController(svc, dir, TOKEN, cleanups));
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(fakePaperGroup('Lobby', { minInstances: 1, maxInstances: 1 })) })).status).toBe(201);
  const survival = { name: 'Survival', software: 'PAPER', version: '1.21.4', minInstances: 0, maxInstances: 1 };
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(survival) })).status).toBe(201);
  await waitFor(async () => (await json<{ services: { name: string; state: string }[] }>('/api/services')).services?.some((s) => s.state === 'READY'), { timeoutMs: 30_000, what: 'Lobby-1 READY' });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await api?.('/api/services/Lobby-1/stop', { method: 'POST' }).catch(() => undefined);
  killGameServers(dir, []);
  cleanups.splice(0).reverse().forEach((f) => f());
});

describe('Performance', () => {
  test('the network figures are the API’s; the groups and the players chart show', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await nav(page, 'Performance');
    const perf = await json<{ readyServiceCount: number; serviceCount: number; networkPlayers: number }>('/api/metrics/performance');
    expect(perf.readyServiceCount).toBe(1);
    await figure(page, 'Services ready').filter({ hasText: `${perf.readyServiceCount} of ${perf.serviceCount}` }).waitFor();
    expect(await figure(page, 'Players').textContent()).toBe(String(perf.networkPlayers));
    await page.getByRole('rowheader', { name: 'Lobby', exact: true }).waitFor();
    // Samples come every 10 s and the chart needs two: bounded wait for it.
    await page.getByRole('figure', { name: /^Players over the last 60 minutes/ }).locator('canvas').waitFor({ timeout: 40_000 });
    await page.screenshot({ path: join(screenshotDir(), 'performance-1280.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('Plugins', () => {
  test('search both repositories, install with the dependency, remove one; the files API agrees', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await nav(page, 'Plugins');
    await page.getByLabel('Group', { exact: true }).selectOption('Survival');
    await page.getByRole('heading', { name: 'Installed in Survival' }).waitFor();
    await page.getByText('No plugin yet.').waitFor();
    expect(await page.getByLabel('Minecraft version').inputValue()).toBe('1.21.4');
    await page.getByLabel('Search words').fill('luck');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.getByRole('list', { name: 'Search results' });
    await results.getByRole('listitem').nth(1).waitFor();
    expect(await results.getByRole('listitem').count()).toBe(2); // one from each repository
    await page.getByRole('button', { name: 'Install LuckPerms from modrinth into Survival' }).click();
    await page.getByRole('status').filter({ hasText: 'LuckPerms 5.4.141' }).waitFor();
    const installed = page.getByRole('list', { name: 'Plugins of Survival' });
    await installed.getByText('PlaceholderAPI-2.11.6.jar').waitFor();
    const jars = async () =>
      (await json<{ entries: { name: string }[] }>('/api/files/templates/Survival/plugins')).entries.map((e) => e.name).filter((n) => n.endsWith('.jar')).sort();
    expect(await jars()).toEqual(['LuckPerms-Bukkit-5.4.141.jar', 'PlaceholderAPI-2.11.6.jar']);
    expect(await installed.getByRole('listitem').count()).toBe(2);
    await page.screenshot({ path: join(screenshotDir(), 'plugins-1280.png'), fullPage: true });
    await page.getByRole('button', { name: 'Remove PlaceholderAPI-2.11.6.jar' }).click();
    await page.getByRole('status').filter({ hasText: 'PlaceholderAPI-2.11.6.jar removed from Survival' }).waitFor();
    expect(await installed.getByRole('listitem').count()).toBe(1);
    expect(await jars()).toEqual(['LuckPerms-Bukkit-5.4.141.jar']);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('Stress', () => {
  test('start, ramp and stop as the API counts; each route’s 5 a minute said on the page, a refusal in words', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await nav(page, 'Stress');
    await page.getByText('Start: 5 of 5 available now (one comes back every 12 s).').waitFor();
    await page.getByLabel('Simulated players').fill('30');
    await page.getByLabel('On', { exact: true }).selectOption('Lobby');
    await page.getByLabel('Ramp up over (seconds)').fill('0');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByText('running on Lobby').waitFor();
    const stress = await waitFor(async () => {
      const s = await json<{ active: boolean; currentPlayers: number; targetPlayers: number }>('/api/stress');
      return s.currentPlayers === 30 ? s : undefined;
    }, { what: 'the API placing 30 players' });
    await figure(page, 'Simulated players').filter({ hasText: `${stress.currentPlayers} of ${stress.targetPlayers}` }).waitFor();
    await page.getByRole('rowheader', { name: 'Lobby-1' }).waitFor();

    await page.getByLabel('Move to players').fill('40');
    await page.getByLabel('Over (seconds)').fill('0');
    await page.getByRole('button', { name: 'Ramp', exact: true }).click();
    await figure(page, 'Simulated players').filter({ hasText: '40 of 40' }).waitFor();
    expect((await json<{ currentPlayers: number }>('/api/stress')).currentPlayers).toBe(40);
    // One ramp spent (one back every 12 s).
    await page.getByText(/^Ramp: [45] of 5 available now/).waitFor();
    await page.screenshot({ path: join(screenshotDir(), 'stress-1280.png'), fullPage: true });

    // Ramps from elsewhere at the same address spend the route's budget; the page's next ramp is refused, in words.
    await waitFor(async () => (await api('/api/stress/ramp', { method: 'POST', body: JSON.stringify({ players: 40, durationSeconds: 0 }) })).status === 429, { what: 'the ramp budget spent' });
    problems.expect(/^429 POST \/api\/stress\/ramp$/);
    problems.expect(/status of 429/); // Chromium's console line for the refused request
    await page.getByRole('button', { name: 'Ramp', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Refused, too many requests: rate limit of 5 requests per minute exceeded' }).waitFor();
    await page.getByText(/^Ramp: none available now \(the controller allows 5 a minute\): the next is possible in \d+ s\.$/).waitFor();
    expect(await page.getByRole('button', { name: 'Ramp', exact: true }).isDisabled()).toBe(true);
    await page.screenshot({ path: join(screenshotDir(), 'stress-refused-1280.png'), fullPage: true });

    // Stop has its own budget.
    await page.getByRole('button', { name: 'Stop the test' }).click();
    await page.getByText('no test running').waitFor();
    expect((await json<{ active: boolean }>('/api/stress')).active).toBe(false);
    await page.getByText(/^Start: [45] of 5 available now/).waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('390 px', () => {
  test('Performance, Plugins and Stress fit without horizontal scrolling', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    for (const name of ['Performance', 'Plugins', 'Stress']) {
      await nav(page, name);
      await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
      if (name === 'Performance') await page.getByRole('figure', { name: /^Players over/ }).locator('canvas').waitFor({ timeout: 40_000 });
      if (name === 'Plugins') await page.getByRole('heading', { name: /^Installed in / }).waitFor();
      if (name === 'Stress') await page.getByRole('heading', { name: 'Status' }).waitFor();
      expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(screenshotDir(), `${name.toLowerCase()}-390.png`), fullPage: true });
    }
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);
});
