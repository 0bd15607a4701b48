/**
 * The Services page in a real browser (issue 41) against the compiled binary, with real
 * flying-squid servers (and a fake-paper one that crashes on cue): two instances started from a
 * group become READY on the page by the live events alone (the page never polls), a third is
 * refused in the API's words; both are restarted as a bulk action with a 1 s stagger after a
 * confirmation, one at a time in list order (the test's own events socket times it); a row's
 * Command reaches the server's console, its Move says the cluster is off, its Stop takes one
 * off the list live. A crashed service shows its diagnosis, and a bulk Start
 * brings it back under its name while leaving a running one alone. Screenshots at 1280 and
 * 390 px, and nothing scrolls sideways at 390.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, screenshotDir } from '../support/browser';
import { readJson, tempDir, waitFor } from '../support/controller';
import { openEventSocket } from '../support/events-socket';
import { FAKE_PAPER, fakePaperGroup } from '../fixtures/fake-paper-group';
import { flyingSquidGroup } from '../fixtures/flying-squid-group';

const TOKEN = 'dashboard-services-token-0123456789abcdef';
/** Listening 1.5 s after the start: long enough to see STARTING on the page before READY arrives live. */
const START_DELAY_MS = 1500;
const LOBBY = flyingSquidGroup('Lobby', { minInstances: 0, maxInstances: 2 }, ['--start-delay-ms', String(START_DELAY_MS)]);
/** A server that dies right after it is READY and is not restarted by the controller: it stays CRASHED. */
const CRASHY = fakePaperGroup('Crashy', { startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', '--crash-after-ready', '3'], minInstances: 0, maxInstances: 1, restartOnCrash: false });

interface Frame {
  type: string;
  timestamp: string;
  data: Record<string, string>;
}

let browser: Browser;
let url: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const frames: Frame[] = [];
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-services-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Services Network"\n[api]\nport = 0\n[services]\nisolation = "none"\n');
  const controller = await startBinaryController(svc, dir, TOKEN, cleanups);
  ({ url, api } = controller);
  for (const group of [LOBBY, CRASHY]) expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(group) })).status).toBe(201);
  const events = await openEventSocket<Frame>(url, TOKEN, (frame) => frames.push(frame));
  cleanups.push(() => events.close());
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  // Game servers first (the controller's SIGKILL would leave them running), then the rest.
  await Promise.all(['Lobby-1', 'Lobby-2', 'Crashy-1'].map((name) => api?.(`/api/services/${name}/stop`, { method: 'POST' }).catch(() => undefined)));
  cleanups.splice(0).reverse().forEach((f) => f());
});

/** The table row of a service (its name is the row's header cell). */
const row = (page: Page, name: string, state?: string) =>
  page.locator(state ? `tbody tr[data-state="${state}"]` : 'tbody tr', { has: page.getByRole('rowheader', { name, exact: true }) });

/** The server's time of the first event of `type` about `service` after index `from` of the frames. */
function eventAt(type: string, service: string, from = 0): { index: number; at: number } | undefined {
  const index = frames.findIndex((f, i) => i >= from && f.type === type && f.data.service === service);
  return index < 0 ? undefined : { index, at: Date.parse(frames[index]!.timestamp) };
}

describe('the Services page', () => {
  test('start from a group, READY live, bulk restart staggered in list order, a row stop, 1280 and 390 px', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await page.goto(`${url}/services`);
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Services', exact: true }).waitFor();
    await page.getByText('No services match.').waitFor();

    // Two instances from the group: each appears STARTING, then turns READY by the events alone.
    const groupForm = page.getByRole('form', { name: 'Start from a group' });
    await groupForm.getByRole('combobox').selectOption('Lobby');
    for (const name of ['Lobby-1', 'Lobby-2']) {
      await groupForm.getByRole('button', { name: 'Start', exact: true }).click();
      await groupForm.getByRole('status').filter({ hasText: `${name} is starting` }).waitFor();
      await row(page, name, 'STARTING').waitFor({ timeout: START_DELAY_MS });
    }
    for (const name of ['Lobby-1', 'Lobby-2']) await row(page, name, 'READY').waitFor({ timeout: 20_000 });
    expect(await row(page, 'Lobby-1').locator('td[data-label="Group"]').textContent()).toBe('Lobby');

    // A third is over the group's maximum: the refusal in the API's words, the page still there.
    problems.expect(/^409 POST \/api\/services\/Lobby\/start$/);
    problems.expect(/status of 409/);
    await groupForm.getByRole('button', { name: 'Start', exact: true }).click();
    expect(await groupForm.getByRole('alert').textContent()).toContain('group Lobby is at its maximum of 2 instance(s)');
    expect(await row(page, 'Lobby-1').count()).toBe(1);

    // A row's Command: a line written to the server's console, its reply in the server's log.
    await page.getByRole('button', { name: 'Command for Lobby-1' }).click();
    const commandDialog = page.getByRole('dialog', { name: 'Run a command on Lobby-1' });
    await commandDialog.getByLabel('Command', { exact: true }).fill('say from the row');
    await commandDialog.getByRole('button', { name: 'Run' }).click();
    await commandDialog.getByRole('status').filter({ hasText: 'Sent.' }).waitFor();
    await waitFor(async () => ((await readJson(await api('/api/services/Lobby-1/logs?source=stdout&lines=200'))).lines as string[]).some((l) => l.includes('[Server] from the row')), { what: 'flying-squid’s reply in its log' });
    await commandDialog.getByRole('button', { name: 'Close' }).click();
    await commandDialog.waitFor({ state: 'detached' });
    // Move: with the cluster off, the dialog says how to turn it on, and nothing moves.
    problems.expect(/^404 GET \/api\/nodes$/);
    problems.expect(/status of 404/);
    await page.getByRole('button', { name: 'Move Lobby-1' }).click();
    const moveDialog = page.getByRole('dialog', { name: 'Move Lobby-1 to another node' });
    await moveDialog.getByText('The cluster is off').waitFor();
    await page.keyboard.press('Escape');
    await moveDialog.waitFor({ state: 'detached' });
    expect((await readJson(await api('/api/services/Lobby-1'))).nodeId).toBe('local');

    // The name filter narrows the list, and the select-all box takes only what is shown.
    const search = page.getByRole('search', { name: 'Filter services' });
    await search.getByLabel('Name').fill('lobby-2');
    await row(page, 'Lobby-1').waitFor({ state: 'detached' });
    await search.getByLabel('State').selectOption('CRASHED');
    await page.getByText('No services match.').waitFor();
    await search.getByLabel('State').selectOption('');
    await search.getByLabel('Name').fill('');
    await row(page, 'Lobby-1').waitFor();

    // Bulk restart of both, 1 s apart, after the dialog names how many.
    await page.getByRole('checkbox', { name: 'Select Lobby-1' }).check();
    await page.getByRole('checkbox', { name: 'Select Lobby-2' }).check();
    expect(await page.getByRole('checkbox', { name: 'Select all shown' }).isChecked()).toBe(true);
    const bulk = page.getByRole('region', { name: 'Selected services' });
    await bulk.getByLabel('Stagger (s)').fill('1');
    const before = frames.length;
    await bulk.getByRole('button', { name: 'Restart', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Restart 2 services?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Lobby-1, Lobby-2');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'detached' });
    const progress = page.getByRole('list', { name: 'Restart progress' });
    await progress.locator('li[data-status="done"]').nth(1).waitFor({ timeout: 30_000 });
    expect(await progress.locator('li').allTextContents()).toEqual([expect.stringMatching(/^Lobby-1 done/), expect.stringMatching(/^Lobby-2 done/)]);

    // In list order, one at a time, the second stop at least the stagger after the first start.
    const firstStop = await waitFor(() => eventAt('SERVICE_STOPPING', 'Lobby-1', before), { what: 'Lobby-1 stopping' });
    const firstStart = await waitFor(() => eventAt('SERVICE_STARTING', 'Lobby-1', firstStop.index), { what: 'Lobby-1 starting again' });
    const secondStop = await waitFor(() => eventAt('SERVICE_STOPPING', 'Lobby-2', before), { what: 'Lobby-2 stopping' });
    const secondStart = await waitFor(() => eventAt('SERVICE_STARTING', 'Lobby-2', secondStop.index), { what: 'Lobby-2 starting again' });
    expect(firstStart.index).toBeLessThan(secondStop.index);
    expect(secondStop.at - firstStart.at).toBeGreaterThanOrEqual(990);
    expect(secondStart.index).toBeGreaterThan(secondStop.index);
    for (const name of ['Lobby-1', 'Lobby-2']) await row(page, name, 'READY').waitFor({ timeout: 20_000 });
    const listed = (await readJson(await api('/api/services'))) as { services: { name: string; startedAt: string }[] };
    const startedAt = (name: string) => Date.parse(listed.services.find((s) => s.name === name)!.startedAt);
    expect(startedAt('Lobby-2') - startedAt('Lobby-1')).toBeGreaterThanOrEqual(990);
    await page.screenshot({ path: join(screenshotDir(), 'services-1280.png'), fullPage: true });

    // A row's Stop: the service leaves the list live.
    await page.getByRole('button', { name: 'Stop Lobby-2' }).click();
    await row(page, 'Lobby-2').waitFor({ state: 'detached', timeout: 20_000 });
    expect((await api('/api/services/Lobby-2')).status).toBe(404);
    await row(page, 'Lobby-1', 'READY').waitFor();
    await groupForm.locator('option', { hasText: 'Lobby (1/2)' }).waitFor({ state: 'attached' });

    // 390 px: the rows become cards; nothing scrolls sideways, the dialog included.
    await page.setViewportSize({ width: 390, height: 844 });
    await bulk.getByRole('button', { name: 'Stop', exact: true }).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'services-390.png'), fullPage: true });
    await bulk.getByRole('button', { name: 'Stop', exact: true }).click();
    const stopDialog = page.getByRole('dialog', { name: 'Stop 1 service?' });
    await stopDialog.waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'services-confirm-390.png') });
    await stopDialog.getByRole('button', { name: 'Cancel' }).click();
    await stopDialog.waitFor({ state: 'detached' });
    expect(await row(page, 'Lobby-1', 'READY').count()).toBe(1);

    expect(problems.problems).toEqual([]);
    await page.close();
  }, 120_000);

  test('a crashed service shows its diagnosis; a bulk Start brings it back under its name and leaves a running one alone', async () => {
    if ((await readJson(await api('/api/services?group=Lobby'))).total === 0) expect((await api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
    // In the dark scheme: the screenshot shows its colours.
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    const problems = new PageProblems(page);
    await page.goto(`${url}/services`);
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const groupForm = page.getByRole('form', { name: 'Start from a group' });
    await groupForm.getByRole('combobox').selectOption('Crashy');
    await groupForm.getByRole('button', { name: 'Start', exact: true }).click();
    await groupForm.getByRole('status').filter({ hasText: 'Crashy-1 is starting' }).waitFor();
    const crashed = row(page, 'Crashy-1', 'CRASHED');
    await crashed.waitFor({ timeout: 20_000 });
    expect((await crashed.locator('.svc-diagnosis').textContent())?.length).toBeGreaterThan(0);
    await page.screenshot({ path: join(screenshotDir(), 'services-crashed-dark-1280.png'), fullPage: true });

    await page.getByRole('checkbox', { name: 'Select all shown' }).check();
    const bulk = page.getByRole('region', { name: 'Selected services' });
    await bulk.getByLabel('Stagger (s)').fill('0');
    const before = frames.length;
    await bulk.getByRole('button', { name: 'Start', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Start 1 service?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('already running: left alone');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const progress = page.getByRole('list', { name: 'Start progress' });
    await progress.locator('li[data-status="done"]').waitFor({ timeout: 20_000 });
    expect(await progress.locator('li').allTextContents()).toEqual([expect.stringMatching(/^Crashy-1 done.*restarted as Crashy-1/)]);
    await waitFor(() => eventAt('SERVICE_STARTING', 'Crashy-1', before), { what: 'Crashy-1 starting again' });
    expect(frames.slice(before).filter((f) => f.type === 'SERVICE_STOPPING' || (f.type === 'SERVICE_STARTING' && f.data.service !== 'Crashy-1'))).toEqual([]);

    // It crashes again; its row's Stop takes the dead record off the list.
    await crashed.waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Stop Crashy-1' }).click();
    await row(page, 'Crashy-1').waitFor({ state: 'detached' });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
