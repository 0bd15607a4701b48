/**
 * The dashboard in a real browser (issue 41): headless Chromium against the compiled binary.
 * Sign-in by API token (a wrong one is refused and never kept), the navigation with every
 * page's name, the Overview, sign-out; no console error and no failed request; the layout at
 * 1280 and 390 px wide (no horizontal scrolling), screenshotted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, screenshotDir } from '../support/browser';
import { tempDir } from '../support/controller';

const TOKEN = 'dashboard-browser-token-0123456789abcdef';
const PAGES = ['Overview', 'Services', 'Groups', 'Dedicated', 'Nodes', 'Console', 'Files', 'Plugins', 'Audit', 'Doctor', 'Performance', 'Stress', 'Settings', 'Profile'];
let browser: Browser;
let url: string;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Browser Network"\n[api]\nport = 0\n[services]\nisolation = "none"\n');
  url = (await startBinaryController(svc, dir, TOKEN, cleanups)).url;
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

describe('sign-in and the shell', () => {
  test('a wrong token is refused and not kept; the right one opens the Overview with every page in the navigation; sign-out returns to the login', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = new PageProblems(page);
    await page.goto(`${url}/`);
    await page.getByLabel('API token').fill('not-the-token');
    problems.expect(/^401 GET \/api\/status$/);
    problems.expect(/status of 401/);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('bearer token is not valid');
    expect(await page.evaluate(() => localStorage.getItem('svc.token'))).toBeNull();

    await page.getByLabel('API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Browser Network' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Pages' });
    for (const name of PAGES) expect(await nav.getByRole('link', { name, exact: true }).count()).toBe(1);
    expect(await page.getByText('Services', { exact: true }).first().isVisible()).toBe(true);
    await page.screenshot({ path: join(screenshotDir(), 'overview-1280.png'), fullPage: true });

    // A reload keeps the sign-in; a deep link opens its page.
    await page.goto(`${url}/services`);
    expect(await nav.getByRole('link', { name: 'Services', exact: true }).getAttribute('aria-current')).toBe('page');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('You signed out');
    expect(await page.evaluate(() => localStorage.getItem('svc.token'))).toBeNull();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('390 px wide: the login and the Overview fit without horizontal scrolling', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    await page.goto(`${url}/`);
    await page.getByLabel('API token').waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'login-390.png'), fullPage: true });
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Browser Network' }).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'overview-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
