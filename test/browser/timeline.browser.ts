/**
 * The network timeline in a real browser (issue 42) against the compiled binary: a group made
 * through the API and a real flying-squid service started and stopped are on it with who did
 * each; the filters narrow it as GET /api/timeline does; what happens while the page is open
 * comes in at the top by the live events; 450 entries are read back a page at a time as the
 * list is scrolled, down to the first. 1280 and 390 px, nothing scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { readJson, tempDir, waitFor } from '../support/controller';
import { flyingSquidGroup } from '../fixtures/flying-squid-group';

const TOKEN = 'dashboard-timeline-token-0123456789abcdef';
let browser: Browser;
let url: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-timeline-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Timeline Network"\n[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
  ({ url, api } = await startBinaryController(svc, dir, TOKEN, cleanups));
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(flyingSquidGroup('Lobby', { minInstances: 0, maxInstances: 1 })) })).status).toBe(201);
  expect((await api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await readJson(await api('/api/services/Lobby-1'))).state === 'READY', { timeoutMs: 20_000, what: 'Lobby-1 READY' });
  expect((await api('/api/services/Lobby-1/stop', { method: 'POST' })).status).toBe(200);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await api?.('/api/services/Lobby-1/stop', { method: 'POST' }).catch(() => undefined);
  cleanups.splice(0).reverse().forEach((f) => f());
}, 60_000);

const rows = (page: Page) => page.getByRole('list', { name: 'Timeline entries' }).getByRole('listitem');
const row = (page: Page, type: string) => page.locator(`li.tl-row[data-type="${type}"]`);

async function openTimeline(width: number): Promise<{ page: Page; problems: PageProblems }> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems = new PageProblems(page);
  await signIn(page, url, TOKEN);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Timeline', exact: true }).click();
  await page.getByRole('heading', { name: 'Timeline', exact: true, level: 1 }).waitFor();
  return { page, problems };
}

describe('the network timeline', () => {
  test('the group and the service’s run with who did each; the filters narrow it as the API does', async () => {
    const { page, problems } = await openTimeline(1280);
    await row(page, 'GROUP_CREATED').waitFor();
    expect(await row(page, 'GROUP_CREATED').textContent()).toContain('by api:admin');
    expect(await row(page, 'SERVICE_READY').textContent()).toContain('by the controller');
    expect(await row(page, 'SERVICE_STOPPING').textContent()).toContain('by api:admin');
    expect(await row(page, 'SERVICE_STARTING').getByRole('link', { name: 'Lobby-1' }).getAttribute('href')).toBe('/services/Lobby-1');
    // Newest first, as the API answers (the rows drawn: those in and near view).
    const newest = (await readJson(await api('/api/timeline?limit=500'))) as { entries: { type: string }[] };
    const shown = await rows(page).evaluateAll((items) => items.map((li) => li.getAttribute('data-type')));
    expect(shown.length).toBeGreaterThanOrEqual(Math.min(10, newest.entries.length));
    expect(shown).toEqual(newest.entries.slice(0, shown.length).map((e) => e.type));
    await page.screenshot({ path: join(screenshotDir(), 'timeline-1280.png'), fullPage: true });

    const filters = page.getByRole('search', { name: 'Filter the timeline' });
    await filters.getByLabel('Actor').fill('api:admin');
    await row(page, 'SERVICE_READY').waitFor({ state: 'detached' });
    const byAdmin = (await readJson(await api('/api/timeline?actor=api:admin'))) as { entries: { type: string }[] };
    await waitFor(async () => (await rows(page).count()) === byAdmin.entries.length, { what: 'the rows of api:admin' });
    expect(await rows(page).evaluateAll((items) => items.map((li) => li.getAttribute('data-type')))).toEqual(byAdmin.entries.map((e) => e.type));
    await filters.getByLabel('Actor').fill('');
    await filters.getByLabel('Event types').fill('service_ready, group_created');
    await waitFor(async () => (await rows(page).count()) === 2, { what: 'two rows of the two types' });
    await filters.getByLabel('Event types').fill('');
    await filters.getByLabel('Service').fill('Nope-9');
    await page.getByText('Nothing recorded matches these filters.').waitFor();
    await filters.getByLabel('Service').fill('');
    await row(page, 'GROUP_CREATED').waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('what happens while the page is open comes in at the top, live; with Follow live off it waits', async () => {
    const { page, problems } = await openTimeline(1280);
    await row(page, 'GROUP_CREATED').waitFor();
    expect((await api('/api/maintenance/global', { method: 'POST', body: JSON.stringify({ enabled: true, reason: 'timeline test' }) })).status).toBe(200);
    await waitFor(async () => (await rows(page).first().getAttribute('data-type')) === 'MAINTENANCE_ENABLED', { what: 'MAINTENANCE_ENABLED at the top' });
    expect(await rows(page).first().textContent()).toContain('by api:admin');

    await page.getByLabel('Follow live').uncheck();
    expect((await api('/api/maintenance/global', { method: 'POST', body: JSON.stringify({ enabled: false }) })).status).toBe(200);
    await waitFor(async () => ((await readJson(await api('/api/timeline?limit=1'))) as { entries: { type: string }[] }).entries[0]?.type === 'MAINTENANCE_DISABLED', { what: 'the API has it' });
    expect(await row(page, 'MAINTENANCE_DISABLED').count()).toBe(0);
    await page.getByLabel('Follow live').check();
    await waitFor(async () => (await rows(page).first().getAttribute('data-type')) === 'MAINTENANCE_DISABLED', { what: 'read in once following again' });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('450 entries: a screenful drawn, the rest read back page by page as the list scrolls, down to the first', async () => {
    // Each group update is one entry.
    for (let i = 0; i < 450; i++) {
      const res = await api('/api/groups/Lobby', { method: 'PUT', body: JSON.stringify({ maxPlayers: 20 + (i % 2) }) });
      expect(res.status).toBe(200);
    }
    const { page, problems } = await openTimeline(1280);
    await row(page, 'GROUP_UPDATED').first().waitFor();
    // Only the rows in and near view are in the page.
    expect(await rows(page).count()).toBeLessThan(60);
    const scroller = page.getByTestId('timeline-scroll');
    await waitFor(
      async () => {
        await scroller.evaluate((box) => box.scrollTo(0, box.scrollHeight));
        return (await row(page, 'GROUP_CREATED').count()) === 1;
      },
      { timeoutMs: 20_000, what: 'the first entry (GROUP_CREATED) reached by scrolling' },
    );
    await page.getByText('The beginning of what is kept.').waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 120_000);

  test('390 px: the filters and the list fit without sideways scrolling', async () => {
    const { page, problems } = await openTimeline(390);
    await row(page, 'GROUP_UPDATED').first().waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'timeline-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
