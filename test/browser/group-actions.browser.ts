/**
 * A group's page in a real browser (issue 42) against the compiled binary, with real
 * flying-squid servers: the group named in the Groups list opens its page; a rolling restart
 * shows its dry run (each instance replaced by a new one first, as the group runs at its
 * minimum), runs once confirmed, and keeps the minimum READY throughout (every READY and stop
 * heard on the test's own events socket); its progress comes in live; stop all asks first and
 * says the minimum brings them back. 1280 and 390 px, nothing scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { readJson, tempDir, waitFor } from '../support/controller';
import { openEventSocket } from '../support/events-socket';
import { flyingSquidGroup } from '../fixtures/flying-squid-group';

const TOKEN = 'dashboard-group-actions-token-0123456789abcdef';

interface Frame {
  type: string;
  data: Record<string, string>;
}

let browser: Browser;
let url: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];
/** The Arena instances READY now, by the events; and the fewest seen since `low` was reset. */
const readyNow = new Set<string>();
let low = Infinity;

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-group-actions-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Group Actions"\n[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
  ({ url, api } = await startBinaryController(svc, dir, TOKEN, cleanups));
  const events = await openEventSocket<Frame>(url, TOKEN, (frame) => {
    const service = frame.data.service ?? '';
    if (!service.startsWith('Arena-')) return;
    if (frame.type === 'SERVICE_READY') readyNow.add(service);
    else if (['SERVICE_DRAINING', 'SERVICE_STOPPING', 'SERVICE_STOPPED', 'SERVICE_CRASHED'].includes(frame.type)) readyNow.delete(service);
    low = Math.min(low, readyNow.size);
  });
  cleanups.push(() => events.close());
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(flyingSquidGroup('Arena', { minInstances: 0, maxInstances: 3 })) })).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await api('/api/services/Arena/start', { method: 'POST' })).status).toBe(201);
  await waitFor(() => readyNow.size === 2, { timeoutMs: 30_000, what: 'two Arena instances READY' });
  expect((await api('/api/groups/Arena', { method: 'PUT', body: JSON.stringify({ minInstances: 2 }) })).status).toBe(200);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  const left = (await readJson(await api('/api/services?group=Arena').catch(() => new Response('{"services":[]}')))) as { services: { name: string }[] };
  await api?.('/api/groups/Arena', { method: 'PUT', body: JSON.stringify({ minInstances: 0 }) }).catch(() => undefined);
  await Promise.all(left.services.map((s) => api(`/api/services/${s.name}/stop`, { method: 'POST' }).catch(() => undefined)));
  cleanups.splice(0).reverse().forEach((f) => f());
}, 60_000);

describe('a group’s page', () => {
  test('from the Groups list: a rolling restart shown first, confirmed, the minimum READY throughout, its progress live; 1280 and 390 px', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Groups', exact: true }).click();
    await page.getByRole('rowheader', { name: 'Arena' }).getByRole('link', { name: 'Arena' }).click();
    await page.getByRole('heading', { name: 'Arena', level: 1 }).waitFor();
    const instances = page.getByRole('list', { name: 'Instances of the group' }).getByRole('listitem');
    await waitFor(async () => (await instances.count()) === 2, { what: 'the two instances listed' });

    // The dry run: each replaced by a new instance first (the group runs at its minimum).
    const restart = page.getByRole('form', { name: 'Rolling restart' });
    await restart.getByLabel('Stagger (s)').fill('0');
    await restart.getByRole('button', { name: 'Rolling restart…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rolling restart of Arena?' });
    await dialog.waitFor();
    expect(await dialog.getByRole('list', { name: 'What it will do' }).getByRole('listitem').allTextContents()).toEqual([
      'start a new instance, and once it is READY stop Arena-1',
      'start a new instance, and once it is READY stop Arena-2',
    ]);
    expect(await dialog.getByRole('list', { name: 'To know before' }).textContent()).toContain('minimum of 2 READY');
    // Nothing happened yet.
    expect(((await readJson(await api('/api/groups/Arena/actions'))) as { run: unknown }).run).toBeNull();
    await page.screenshot({ path: join(screenshotDir(), 'group-plan-1280.png') });

    low = readyNow.size;
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'detached' });
    const progress = page.getByRole('list', { name: 'Rolling restart progress' });
    await progress.locator('li[data-status="done"]').nth(1).waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: /Rolling restart by api:admin: finished/ }).waitFor();
    const run = ((await readJson(await api('/api/groups/Arena/actions'))) as { run: { status: string; steps: { outcome: string }[] } }).run;
    expect(run.status).toBe('done');
    expect(await progress.getByRole('listitem').allTextContents()).toEqual(run.steps.map((s) => `done ${s.outcome}`));
    expect(low).toBeGreaterThanOrEqual(2);
    expect(readyNow.size).toBe(2);
    await page.screenshot({ path: join(screenshotDir(), 'group-1280.png'), fullPage: true });

    // Stop all: asked first, with what the minimum does; cancelled, nothing stops.
    await page.getByRole('form', { name: 'Stop all' }).getByRole('button', { name: 'Stop all…' }).click();
    const stop = page.getByRole('dialog', { name: 'Stop all of Arena?' });
    await stop.waitFor();
    expect(await stop.textContent()).toContain('the autoscaler starts that many again');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'group-stop-390.png') });
    await stop.getByRole('button', { name: 'Cancel' }).click();
    await stop.waitFor({ state: 'detached' });
    expect(readyNow.size).toBe(2);
    await page.screenshot({ path: join(screenshotDir(), 'group-390.png'), fullPage: true });

    // At its minimum and maximum at once, a rolling restart is refused in the plan's words.
    expect((await api('/api/groups/Arena', { method: 'PUT', body: JSON.stringify({ maxInstances: 2 }) })).status).toBe(200);
    await restart.getByRole('button', { name: 'Rolling restart…' }).click();
    const refused = page.getByRole('dialog', { name: 'Rolling restart of Arena?' });
    expect(await refused.getByRole('alert').textContent()).toContain('raise its maximum by one');
    expect(await refused.getByRole('button', { name: 'Confirm' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await refused.waitFor({ state: 'detached' });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 120_000);
});
