/**
 * The dashboard's budgets (issue 41): bundle sizes, the executable's growth, and how fast
 * /services is usable with 200 services, in headless Chromium (Debian's chromium, driven by
 * playwright-core) against the compiled binary.
 *
 *   bun run bench dashboard
 *   BENCH_ROUNDS=5        page loads measured (after one discarded)
 *   BENCH_SERVICES=200    services running while /services loads
 *
 * - first page: the files index.html loads (its script and stylesheet), gzipped: ≤ 250 KB;
 * - the executable: svc now against the same build at the last commit before the dashboard
 *   (59c72e9, built from git history): ≤ 4 MiB more;
 * - /services with 200 READY services (a CUSTOM group of shell servers that print Paper's Done
 *   line): first contentful paint, and "usable": the first service row shown and the main thread
 *   quiet (no task of 50 ms or more for 1 s), measured from navigation start. Budgets ≤ 1 s
 *   and ≤ 2 s on this 2-core machine.
 * - a service's console while its server prints 25,000 lines in about a second (over 10,000 a
 *   second, test/support/flood-server.ts): the page's frame times (requestAnimationFrame gaps,
 *   95th percentile ≤ 100 ms) and its longest stall (the longest gap of a 10 ms timer, ≤ 400 ms),
 *   from the command to the last line shown.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildDashboard } from '../../src/dashboard/bundle';
import { hasCommit, releasedBinary } from '../support/released-binary';
import { launchChromium } from '../support/browser';
import { waitFor } from '../support/controller';
import { FLOOD_LINES, floodGroup } from '../support/flood-server';
import { benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, makeTempDir, median, printSetup, resolveSvcBinary, runBench } from './lib';

const TOKEN = 'bench-dashboard-token-0123456789abcdef';
const BEFORE_DASHBOARD = '59c72e9';
const BUDGET = { firstPageGzipKB: 250, binaryGrowthMiB: 4, fcpMs: 1000, usableMs: 2000, frameP95Ms: 100, stallMs: 400 };
const DONE_LINE = '[12:00:00 INFO]: Done (0.100s)! For help, type "help"';

runBench('dashboard', benchTimeoutMs(900), async () => {
  const svc = await resolveSvcBinary();
  const rounds = envNumber('BENCH_ROUNDS', 5);
  const services = envNumber('BENCH_SERVICES', 200);
  printSetup('dashboard: bundle, executable, /services with many services', svc, [
    `browser    : Debian's chromium via playwright-core, headless, 1280×800`,
    `method     : ${rounds} loads of /services (after one discarded) with ${services} READY services; medians`,
  ]);
  const rows: string[][] = [];

  // The executable's growth.
  if (hasCommit(BEFORE_DASHBOARD)) {
    const before = statSync(await releasedBinary(BEFORE_DASHBOARD)).size;
    const now = statSync(svc.path).size;
    const growth = (now - before) / 1024 / 1024;
    rows.push([`executable vs ${BEFORE_DASHBOARD}`, `${fixed(now / 1024 / 1024)} vs ${fixed(before / 1024 / 1024)} MiB (+${fixed(growth, 2)} MiB)`, `≤ +${BUDGET.binaryGrowthMiB} MiB`, growth <= BUDGET.binaryGrowthMiB ? 'MET' : 'MISSED']);
  } else {
    rows.push([`executable vs ${BEFORE_DASHBOARD}`, 'not measured: this clone lacks the commit', `≤ +${BUDGET.binaryGrowthMiB} MiB`, '']);
  }

  // /services with many services.
  const dir = makeTempDir('svc-bench-dashboard-');
  writeFileSync(
    join(dir, 'svc.toml'),
    `[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[controller]\nmax_services = ${services + 10}\nmax_memory = "1000G"\nscaling_tick_interval = 1\n[services]\nisolation = "none"\n`,
  );
  const controller = new Child('svc', [svc.path, '--dir', dir], { env: childEnv({ SVC_API_TOKEN: TOKEN, SVC_LOG_FORMAT: 'json' }) });
  const listening = await controller.waitForLine((l) => (l.includes('API listening') ? l : undefined), 30_000, 'the API listening');
  const url = `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`;
  // Bundle: what the first page loads, as the binary serves it.
  const index = await (await fetch(`${url}/`)).text();
  const firstPage = [...index.matchAll(/\s(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  let gzipped = 0;
  let raw = 0;
  for (const path of firstPage) {
    const bytes = new Uint8Array(await (await fetch(url + path)).arrayBuffer());
    raw += bytes.length;
    gzipped += gzipSync(bytes, { level: 9 }).length;
  }
  rows.unshift(['first page, gzipped', `${fixed(gzipped / 1024)} KB (${fixed(raw / 1024)} KB raw, ${firstPage.length} files)`, `≤ ${BUDGET.firstPageGzipKB} KB`, gzipped / 1024 <= BUDGET.firstPageGzipKB ? 'MET' : 'MISSED']);
  const built = await buildDashboard().catch(() => undefined);
  const later = built ? [...built.assets.keys()].filter((p) => !firstPage.includes(p)) : undefined;
  rows.splice(1, 0, ['loaded when first needed', later === undefined ? 'not listed (the source does not build here)' : later.length === 0 ? 'none' : `${later.length} file(s), ${fixed((await Promise.all(later.map(async (p) => gzipSync(new Uint8Array(await built!.assets.get(p)!.body.arrayBuffer()), { level: 9 }).length))).reduce((a, b) => a + b, 0) / 1024)} KB gzipped`, '', '']);
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } });
  const group = { name: 'Bench', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: ['sh', '-c', `echo '${DONE_LINE}'; while read line; do [ "$line" = stop ] && exit 0; done`], minInstances: services, maxInstances: services, memory: "64M" };
  const created = await api('/api/groups', { method: 'POST', body: JSON.stringify(group) });
  if (created.status !== 201) throw new Error(`the group: ${created.status} ${await created.text()}`);
  const readyCount = async () => ((await (await api('/api/services?group=Bench')).json()) as { services: { state: string }[] }).services.filter((s) => s.state === 'READY').length;
  await waitFor(async () => (await readyCount()) >= services, { what: `${services} services READY`, timeoutMs: 180_000, intervalMs: 250 });

  const browser = await launchChromium();
  const fcp: number[] = [];
  const usable: number[] = [];
  const frameP95: number[] = [];
  const stalls: number[] = [];
  try {
    for (let round = 0; round <= rounds; round++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript(`localStorage.setItem('svc.token', ${JSON.stringify(TOKEN)}); window.__longTasks = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(e.startTime + e.duration); }).observe({ type: 'longtask', buffered: true });`);
      const page = await context.newPage();
      await page.goto(`${url}/services`);
      await page.getByText('Bench-1', { exact: true }).first().waitFor({ timeout: 30_000 });
      const shown = await page.evaluate<number>('performance.now()');
      // Quiet: no long task for 1 s after the rows appeared.
      let lastLong = shown;
      await waitFor(
        async () => {
          lastLong = Math.max(lastLong, ...(await page.evaluate<number[]>('window.__longTasks')));
          return (await page.evaluate<number>('performance.now()')) - lastLong >= 1000;
        },
        { what: 'the main thread quiet for 1 s', timeoutMs: 30_000, intervalMs: 100 },
      );
      const paint = await page.evaluate<number>("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1");
      if (round > 0) {
        fcp.push(paint);
        usable.push(lastLong);
      }
      console.log(`round ${round}${round === 0 ? ' (discarded)' : ''}: first contentful paint ${fixed(paint)} ms, rows shown ${fixed(shown)} ms, usable ${fixed(lastLong)} ms`);
      await context.close();
    }
    // A service's console under a flood.
    if ((await api('/api/groups', { method: 'POST', body: JSON.stringify(floodGroup()) })).status !== 201) throw new Error('the flood group was refused');
    if ((await api('/api/services/Flood/start', { method: 'POST' })).status !== 201) throw new Error('the flood server did not start');
    await waitFor(async () => ((await (await api('/api/services/Flood-1')).json()) as { state?: string }).state === 'READY', { what: 'Flood-1 READY', timeoutMs: 30_000, intervalMs: 100 });
    for (let round = 0; round <= Math.min(rounds, 3); round++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript(`localStorage.setItem('svc.token', ${JSON.stringify(TOKEN)})`);
      const page = await context.newPage();
      await page.goto(`${url}/services/Flood-1`);
      const consoleRegion = page.getByRole('region', { name: 'Console', exact: true });
      await consoleRegion.getByRole('status').filter({ hasText: 'Connected' }).waitFor({ timeout: 20_000 });
      await page.evaluate(`(() => { window.lags = []; window.frames = []; let last = performance.now(); setInterval(() => { const now = performance.now(); window.lags.push(now - last); last = now; }, 10); let previous = performance.now(); const frame = (now) => { window.frames.push(now - previous); previous = now; requestAnimationFrame(frame); }; requestAnimationFrame(frame); })()`);
      const started = performance.now();
      await consoleRegion.getByLabel('Command', { exact: true }).fill('flood');
      await consoleRegion.getByLabel('Command', { exact: true }).press('Enter');
      await page.getByRole('log', { name: 'Console output' }).getByRole('listitem').filter({ hasText: 'flood-end' }).waitFor({ timeout: 60_000 });
      const seconds = (performance.now() - started) / 1000;
      const lags = await page.evaluate<number[]>('window.lags');
      const frames = (await page.evaluate<number[]>('window.frames')).sort((a, b) => a - b);
      const p95 = frames[Math.min(frames.length - 1, Math.floor(frames.length * 0.95))] ?? 0;
      const stall = Math.max(...lags);
      if (round > 0) {
        frameP95.push(p95);
        stalls.push(stall);
      }
      console.log(`flood ${round}${round === 0 ? ' (discarded)' : ''}: ${FLOOD_LINES} lines in ${fixed(seconds, 2)} s (${Math.round(FLOOD_LINES / seconds)} lines/s shown), frame p95 ${fixed(p95)} ms, longest stall ${fixed(stall)} ms`);
      await context.close();
    }
  } finally {
    await browser.close();
    controller.proc.kill('SIGKILL');
  }
  rows.push([`/services, ${services} services: first contentful paint`, `${fixed(median(fcp))} ms`, `≤ ${BUDGET.fcpMs} ms`, median(fcp) <= BUDGET.fcpMs ? 'MET' : 'MISSED']);
  rows.push([`/services, ${services} services: usable`, `${fixed(median(usable))} ms`, `≤ ${BUDGET.usableMs} ms`, median(usable) <= BUDGET.usableMs ? 'MET' : 'MISSED']);
  rows.push([`console, ${FLOOD_LINES} lines in ~1 s: frame time p95`, `${fixed(median(frameP95))} ms`, `≤ ${BUDGET.frameP95Ms} ms`, median(frameP95) <= BUDGET.frameP95Ms ? 'MET' : 'MISSED']);
  rows.push([`console, ${FLOOD_LINES} lines in ~1 s: longest stall`, `${fixed(median(stalls))} ms`, `≤ ${BUDGET.stallMs} ms`, median(stalls) <= BUDGET.stallMs ? 'MET' : 'MISSED']);
  console.log(`\n${formatTable(['what', 'measured', 'budget', ''], rows)}`);
});
