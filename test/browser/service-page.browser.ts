/**
 * A service's own page in headless Chromium against the binary (issue 41), with fake-paper
 * servers. Reached from the Services list by its name: the record's facts, its console (a
 * command's reply, and the console attached again to the new process after a restart), the `app`
 * and `stdout` log tabs, and a timeline with its start (by the API caller, from the audit log)
 * and READY; the memory and players chart (uPlot, loaded then); a restart from the page shows up
 * in the timeline with who did it and a READY heard live.
 * A server printing 25,000 lines in about a second: they come through the console's worker, the
 * page keeps answering, the last line arrives (in the log region and on xterm's screen), and a
 * 24-bit colour is drawn without breaking the CSP (how long the page stalls meanwhile is measured
 * by `bun run bench dashboard`, not here). Screenshots at 1280 and 390 px. How the
 * timeline is put together from the audit log, the live events and the record is tested first,
 * without a browser.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { FLOOD_LINES, floodGroup } from '../support/flood-server';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { readJson, tempDir, waitFor } from '../support/controller';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { buildTimeline, type HeardEvent } from '../../src/dashboard/app/pages/service/timeline-model';
import type { ServiceRecord } from '../../src/dashboard/app/pages/service/model';

const TOKEN = 'dashboard-service-page-token-0123456789abcdef';
const LOBBY = fakePaperGroup('Lobby', { minInstances: 0, maxInstances: 1 });
const FLOOD = floodGroup();

let browser: Browser;
let url: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-service-page-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
  ({ url, api } = await startBinaryController(svc, dir, TOKEN, cleanups));
  for (const group of [LOBBY, FLOOD]) expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(group) })).status).toBe(201);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  // Game servers first (the controller's SIGKILL would leave them running), then the rest.
  await Promise.all(['Lobby-1', 'Flood-1'].map((name) => api?.(`/api/services/${name}/stop`, { method: 'POST' }).catch(() => undefined)));
  cleanups.splice(0).reverse().forEach((f) => f());
}, 60_000);

/** Starts an instance of `group` through the API and waits for it to be READY. */
async function startReady(group: string): Promise<string> {
  const started = await api(`/api/services/${group}/start`, { method: 'POST' });
  expect(started.status).toBe(201);
  const name = (await readJson(started)).service.name as string;
  await waitFor(async () => (await readJson(await api(`/api/services/${name}`))).state === 'READY', { timeoutMs: 20_000, what: `${name} READY` });
  return name;
}

const region = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
const logLine = (page: Page, text: string) => page.getByRole('log', { name: 'Console output' }).getByRole('listitem').filter({ hasText: text });
const step = (page: Page, type: string) => region(page, 'Timeline').locator(`li[data-type="${type}"]`);

describe('a service’s page', () => {
  test('from the list: record, console reply, logs, timeline; a restart from the page; 1280 and 390 px', async () => {
    const name = await startReady('Lobby');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Services', exact: true }).click();
    await page.getByRole('rowheader', { name }).getByRole('link', { name }).click();
    await page.getByRole('heading', { name, exact: true, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/services/${name}`);

    // The record.
    const record = region(page, 'Record');
    const fact = (term: string) => record.locator('.service-facts div', { has: page.locator('dt', { hasText: term }) }).locator('dd');
    await fact('State').getByText('READY').waitFor();
    expect(await fact('Group').textContent()).toBe('Lobby');
    expect(await fact('Node').textContent()).toBe('local');
    expect(await fact('Port').textContent()).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await fact('Memory').textContent()).toMatch(/^\d+(\.\d)? [MG]B \/ \d+(\.\d)? [MG]B$/);
    expect(await fact('Players').textContent()).toBe('0');
    expect(await record.getByText('Diagnosis:').textContent()).toContain('Diagnosis');

    // The console: a command's reply from the server.
    const consoleRegion = region(page, 'Console');
    await consoleRegion.getByRole('status').filter({ hasText: 'Connected' }).waitFor({ timeout: 10_000 });
    const command = consoleRegion.getByLabel('Command', { exact: true });
    await command.fill('list');
    await command.press('Enter');
    await logLine(page, 'There are 0 of a max of 20 players online').waitFor({ state: 'attached' });

    // Logs: the server's own file, then what it printed.
    const logs = region(page, 'Logs');
    expect(await logs.getByRole('tab', { name: 'app' }).getAttribute('aria-selected')).toBe('true');
    await logs.getByRole('tabpanel').getByText(/Done \(1\.234s\)!/).waitFor();
    await logs.getByRole('tab', { name: 'stdout' }).click();
    await logs.getByRole('tabpanel').getByText(/Starting Minecraft server on 127\.0\.0\.1:\d+/).waitFor();
    expect(await logs.getByRole('tabpanel').textContent()).toContain('There are 0 of a max of 20 players online');

    // The timeline: started by the API caller (the audit log says who), READY before the page opened.
    await step(page, 'SERVICE_STARTING').filter({ hasText: 'by api:admin' }).waitFor();
    expect(await step(page, 'SERVICE_READY').textContent()).toContain('by the controller');

    // Memory and players: uPlot draws the samples (taken every 10 s) once there is one.
    const chart = region(page, 'Memory and players').getByRole('img', { name: /^Memory and players over the last 60 minutes: \d+ samples?, newest \d+ MB of/ });
    await chart.locator('canvas').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(screenshotDir(), 'service-1280.png'), fullPage: true });

    // A restart from the page: stopping and starting again by the API caller, READY heard live
    // with its time; the console follows the new process.
    await page.getByRole('button', { name: `Restart ${name}` }).click();
    await step(page, 'SERVICE_STOPPING').filter({ hasText: 'by api:admin' }).waitFor({ timeout: 20_000 });
    await step(page, 'SERVICE_STARTING').filter({ hasText: 'Restarted' }).filter({ hasText: 'by api:admin' }).waitFor({ timeout: 20_000 });
    const ready = step(page, 'SERVICE_READY').first();
    await ready.locator('time[datetime]').waitFor({ timeout: 20_000 });
    await fact('State').getByText('READY').waitFor();
    await consoleRegion.getByRole('status').filter({ hasText: 'Connected' }).waitFor({ timeout: 10_000 });
    // Only the new process can answer this: the console is attached to it.
    await command.fill('say after the restart');
    await command.press('Enter');
    await logLine(page, '[Server] after the restart').waitFor({ state: 'attached' });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('heading', { name, exact: true, level: 1 }).waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    // The terminal and the chart refit themselves to the new width: a frame for that to settle.
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
    await page.screenshot({ path: join(screenshotDir(), 'service-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);

  test('25,000 lines in about a second arrive through the console’s worker, the last one too, colours drawn', async () => {
    const name = await startReady('Flood');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    const fetched: string[] = [];
    page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
    await signIn(page, url, TOKEN);
    await page.goto(`${url}/services/${name}`);
    const consoleRegion = region(page, 'Console');
    await consoleRegion.getByRole('status').filter({ hasText: 'Connected' }).waitFor({ timeout: 10_000 });
    const command = consoleRegion.getByLabel('Command', { exact: true });

    // The page's thread: the gaps between runs of a 10 ms timer.
    await page.evaluate(`(() => { window.lags = []; let last = performance.now(); setInterval(() => { const now = performance.now(); window.lags.push(now - last); last = now; }, 10); })()`);
    await command.fill('flood');
    await command.press('Enter');
    // Round trips to the page while the lines arrive, until the last one is in the log region.
    const trips: number[] = [];
    const last = logLine(page, 'flood-end');
    const deadline = performance.now() + 30_000;
    while ((await last.count()) === 0) {
      if (performance.now() > deadline) throw new Error(`flood-end never arrived; round trips so far: ${trips.length}`);
      const sent = performance.now();
      await page.evaluate('document.body.childElementCount');
      trips.push(performance.now() - sent);
    }
    const lags = await page.evaluate<number[]>('window.lags');
    // The frames came through the console's worker (without it they would have held the page's thread).
    expect(fetched.some((path) => /^\/assets\/socket-worker-[a-z0-9]+\.js$/.test(path))).toBe(true);
    // How long the page's thread stalls is a speed figure: bun run bench dashboard measures it.
    expect(await logLine(page, `flood line ${FLOOD_LINES}`).count()).toBe(1);
    await waitFor(async () => (await page.locator('.xterm-rows').textContent())?.includes('flood-end'), { what: 'flood-end on the terminal screen' });
    // The 24-bit colour was drawn (through CSSOM: the CSP refuses style attributes set as text).
    const orange = page.locator('.xterm-rows span', { hasText: 'flood in orange' });
    expect(await orange.evaluate((span) => span.ownerDocument.defaultView?.getComputedStyle(span).color)).toBe('rgb(255, 120, 0)');
    await page.screenshot({ path: join(screenshotDir(), 'service-flood-1280.png') });
    console.log(`flood of ${FLOOD_LINES} lines: longest page lag ${Math.round(Math.max(...lags))} ms, ${trips.length} round trips, longest ${Math.round(Math.max(...trips))} ms`);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);
});

describe('the timeline from the audit log, the live events and the record', () => {
  const T = Date.parse('2026-11-28T12:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  const heard = (type: string, at: number, data: Record<string, string> = {}, heardAt = at + 50): HeardEvent => ({ event: { type, timestamp: iso(at), data: { service: 'Lobby-1', ...data } }, heardAt });
  const audit = (action: string, at: number, actor: string) => ({ timestamp: iso(at), actor, action, target: 'Lobby-1', details: `service=Lobby-1, group=Lobby, port=30000` });
  const record = (over: Partial<ServiceRecord>): ServiceRecord =>
    ({ name: 'Lobby-1', groupName: 'Lobby', state: 'READY', customState: null, nodeId: 'local', playerCount: 0, memoryUsedMb: 40, memoryMaxMb: 1024, startedAt: iso(T), isDedicated: false, diagnosis: null, quarantined: false, port: 30000, host: '127.0.0.1', pid: 1, healthy: true, restartCount: 0, isStatic: false, ...over }) as ServiceRecord;
  const view = (items: ReturnType<typeof buildTimeline>) => items.map((i) => `${i.label}|${i.actor}|${i.at === null ? 'earlier' : i.at - T}`);

  test('a start by the API (the audit log says who) and a READY heard live, newest first', () => {
    const items = buildTimeline('Lobby-1', { entries: [audit('SERVICE_STARTING', T, 'api:admin'), { ...audit('SERVICE_STARTING', T, 'api:admin'), target: 'Lobby-2' }], readAt: T + 10 }, [heard('SERVICE_STARTING', T, { port: '30000' }), heard('SERVICE_READY', T + 1500)], record({}));
    expect(view(items)).toEqual(['READY|system|1500', 'Starting|api:admin|0']);
    expect(items[1]!.detail).toBe('on port 30000');
  });

  test('READY before the page opened, and a start the audit log does not hold: the controller’s own', () => {
    expect(view(buildTimeline('Lobby-1', { entries: [], readAt: T + 5000 }, [], record({})))).toEqual(['READY|system|earlier', 'Started|system|0']);
  });

  test('a step the audit may name someone for waits for the audit read after it; none there is the controller', () => {
    const stop = heard('SERVICE_STOPPING', T + 9000);
    expect(view(buildTimeline('Lobby-1', { entries: [], readAt: T + 100 }, [stop], null))).toEqual(['Stopping|null|9000']);
    expect(view(buildTimeline('Lobby-1', { entries: [], readAt: T + 9500 }, [stop], null))).toEqual(['Stopping|system|9000']);
  });

  test('a crash carries the record’s diagnosis, and the start after it is a restart', () => {
    const crashed = record({ state: 'STARTING', startedAt: iso(T + 3000), diagnosis: 'the port was taken' });
    const items = buildTimeline('Lobby-1', { entries: [], readAt: T + 9000 }, [heard('SERVICE_CRASHED', T + 2000, { exitCode: '1', restartAttempt: '1' }), heard('SERVICE_STARTING', T + 3000)], crashed);
    expect(view(items)).toEqual(['Restarted after the crash|system|3000', 'Crashed|system|2000']);
    expect(items[1]!.detail).toBe('exit code 1, restart attempt 1: the port was taken');
  });
});
