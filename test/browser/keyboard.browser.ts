/**
 * The main flows by keyboard alone (issue 42), in a real browser against the compiled binary
 * with a real flying-squid server: sign in, go to Services through the navigation, start an
 * instance from a group, open its page and send its console a command, read its reply. Each
 * control is reached with Tab (bounded: a control Tab never reaches fails the test) and used
 * with Enter, Space or the arrow keys; nothing is clicked.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, screenshotDir } from '../support/browser';
import { readJson, tempDir, waitFor } from '../support/controller';
import { flyingSquidGroup } from '../fixtures/flying-squid-group';

const TOKEN = 'dashboard-keyboard-token-0123456789abcdef';
let browser: Browser;
let url: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-keyboard-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Keyboard Network"\n[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
  ({ url, api } = await startBinaryController(svc, dir, TOKEN, cleanups));
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(flyingSquidGroup('Lobby', { minInstances: 0, maxInstances: 1 })) })).status).toBe(201);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await api?.('/api/services/Lobby-1/stop', { method: 'POST' }).catch(() => undefined);
  cleanups.splice(0).reverse().forEach((f) => f());
}, 60_000);

/** What the focused element is called: its aria-label, its label's text, or its own text. */
const focusedName = (page: Page) =>
  page.evaluate<string>(`(() => {
    const el = document.activeElement;
    if (!el) return '';
    const label = el.getAttribute('aria-label') ?? (el.labels && el.labels[0] ? el.labels[0].textContent : null);
    return (label ?? el.textContent ?? '').trim();
  })()`);

/** Presses Tab until the focused control is called `name` (at most `limit` presses). */
async function tabTo(page: Page, name: string | RegExp, limit = 60): Promise<void> {
  const matches = (text: string) => (typeof name === 'string' ? text === name : name.test(text));
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (matches(await focusedName(page))) return;
  }
  throw new Error(`Tab never reached ${name} in ${limit} presses`);
}

describe('by keyboard alone', () => {
  test('sign in, Services, start from a group, the service’s page, a console command and its reply', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await page.goto(`${url}/`);
    await tabTo(page, 'API token');
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keyboard Network' }).waitFor();

    await tabTo(page, 'Services');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Services', exact: true }).waitFor();

    // The group select (the only group is chosen already; the arrow key keeps it), then its Start.
    await tabTo(page, /^Start a new instance of/);
    await page.keyboard.press('ArrowDown');
    await waitFor(async () => (await page.getByRole('form', { name: 'Start from a group' }).getByRole('combobox').inputValue()) === 'Lobby', { what: 'Lobby chosen by the arrow key' });
    await tabTo(page, 'Start');
    await page.keyboard.press('Enter');
    await page.getByRole('form', { name: 'Start from a group' }).getByRole('status').filter({ hasText: 'Lobby-1 is starting' }).waitFor();
    await waitFor(async () => (await readJson(await api('/api/services/Lobby-1'))).state === 'READY', { timeoutMs: 20_000, what: 'Lobby-1 READY' });

    // Its page, from its row's link.
    await tabTo(page, 'Lobby-1');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Lobby-1', level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Console' }).getByRole('status').filter({ hasText: 'Connected' }).waitFor({ timeout: 10_000 });
    await tabTo(page, 'Command');
    await page.keyboard.type('say typed without a mouse');
    await page.keyboard.press('Enter');
    await page.getByRole('log', { name: 'Console output' }).getByRole('listitem').filter({ hasText: '[Server] typed without a mouse' }).waitFor({ state: 'attached', timeout: 10_000 });
    await page.screenshot({ path: join(screenshotDir(), 'keyboard-1280.png') });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);
});
