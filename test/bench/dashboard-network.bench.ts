/**
 * The network-scale views of the dashboard (issue 42), in headless Chromium (Debian's
 * chromium, driven by playwright-core) against the compiled binary.
 *
 *   bun run bench dashboard-network
 *   BENCH_ROUNDS=3              measured rounds (after one discarded)
 *   BENCH_TIMELINE=100000       entries in the timeline
 *   BENCH_PLAYERS=1000          players online for the Network page
 *
 * - Network with 1,000 online players (reported through the proxy-event feed, as a proxy's
 *   bridge does): first contentful paint (≤ 1 s) and the player rows shown (the first row of
 *   the virtualised table, with the count of 1,000 in its header; ≤ 1.5 s), from navigation
 *   start; and how many rows the page holds (a window, not 1,000).
 * - the Timeline with 100,000 entries: the first rows shown (from navigation start), then the
 *   list scrolled without a pause, 600 px a frame, until 10,000 entries have been read back
 *   (50 pages of 200, each asked for as the end comes near): the frame times while it scrolls
 *   (requestAnimationFrame gaps: 95th percentile ≤ 50 ms, three frames at 60 Hz) and the
 *   longest frame (≤ 200 ms); and GET /api/timeline's page read deep in the table (≤ 50 ms).
 *   The entries are written straight into the controller's database while it is stopped (a
 *   mix of service steps, scaling and group changes over 200 services), as a long-running
 *   network would have them.
 */
import { Database } from 'bun:sqlite';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../support/browser';
import { deriveServiceToken } from '../../src/core/auth';
import { benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, makeTempDir, max, median, percentile, printSetup, resolveSvcBinary, runBench } from './lib';

const TOKEN = 'bench-dashboard-network-token-0123456789abcdef';
const BUDGET = { firstRowsMs: 1000, frameP95Ms: 50, longestFrameMs: 200, pageReadMs: 50, networkFcpMs: 1000, networkRowsMs: 1500 };
/** Entries read back while scrolling, per round. */
const READ_BACK = 10_000;

const STEPS = ['SERVICE_STARTING', 'SERVICE_READY', 'SERVICE_STOPPING', 'SERVICE_STOPPED', 'SERVICE_CRASHED', 'SCALE_UP', 'GROUP_UPDATED'] as const;
const ACTORS = ['system', 'api:admin', 'autoscaler', 'crash-handler', 'dashboard:Alex'] as const;

runBench('dashboard-network', benchTimeoutMs(900), async () => {
  const svc = await resolveSvcBinary();
  const rounds = envNumber('BENCH_ROUNDS', 3);
  const total = envNumber('BENCH_TIMELINE', 100_000);
  const online = envNumber('BENCH_PLAYERS', 1000);
  printSetup('dashboard: the network views (Network, Timeline)', svc, [
    `browser    : Debian's chromium via playwright-core, headless, 1280×900`,
    `method     : ${online} players online, ${rounds} loads of /network; ${total} timeline entries, ${rounds} rounds of opening /timeline and scrolling until ${READ_BACK} entries are read back; one discarded round each; medians`,
  ]);

  const dir = makeTempDir('svc-bench-dashboard-network-');
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
  const start = async () => {
    const controller = new Child('svc', [svc.path, '--dir', dir], { env: childEnv({ SVC_API_TOKEN: TOKEN, SVC_LOG_FORMAT: 'json' }) });
    const listening = await controller.waitForLine((l) => (l.includes('API listening') ? l : undefined), 30_000, 'the API listening');
    return { controller, url: `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}` };
  };

  // A first start makes the database; the entries go in while the controller is stopped.
  const first = await start();
  first.controller.proc.kill('SIGTERM');
  await first.controller.proc.exited;
  const seeded = seed(join(dir, 'data', 'svc.db'), total);
  console.log(`seeded ${seeded} entries in ${join(dir, 'data', 'svc.db')}`);

  const { controller, url } = await start();
  const api = (path: string) => fetch(url + path, { headers: { authorization: `Bearer ${TOKEN}` } });
  const rows: string[][] = [];
  const browser = await launchChromium();
  const firstRows: number[] = [];
  const frameP95: number[] = [];
  const longest: number[] = [];
  try {
    // The API's page read deep in the table.
    const reads: number[] = [];
    for (let i = 0; i < 20; i++) {
      const before = Math.floor(total * (0.1 + 0.04 * i));
      const started = performance.now();
      const res = await api(`/api/timeline?limit=200&before=${before}`);
      await res.arrayBuffer();
      if (i > 0) reads.push(performance.now() - started);
    }

    // Network with many players online, reported as a proxy's bridge does.
    const service = deriveServiceToken(TOKEN);
    for (let i = 0; i < online; i++) {
      const res = await fetch(`${url}/api/proxy/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'PLAYER_CONNECTED', player: `Bench${String(i).padStart(4, '0')}`, uuid: `00000000-0000-4000-8000-${(i + 1).toString(16).padStart(12, '0')}`, service: `Group${i % 20}-1` }),
      });
      if (res.status !== 200) throw new Error(`player ${i}: ${res.status} ${await res.text()}`);
    }
    const networkFcp: number[] = [];
    const networkRows: number[] = [];
    let rowsHeld = 0;
    for (let round = 0; round <= rounds; round++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript(`localStorage.setItem('svc.token', ${JSON.stringify(TOKEN)})`);
      const page = await context.newPage();
      await page.goto(`${url}/network`);
      const table = page.locator(`[role="table"][aria-rowcount="${online + 1}"]`);
      await table.locator('[role="row"].nw-row').first().waitFor({ timeout: 30_000 });
      const shown = await page.evaluate<number>('performance.now()');
      const paint = await page.evaluate<number>("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1");
      rowsHeld = await table.locator('[role="row"].nw-row').count();
      if (round > 0) {
        networkFcp.push(paint);
        networkRows.push(shown);
      }
      console.log(`network ${round}${round === 0 ? ' (discarded)' : ''}: first contentful paint ${fixed(paint)} ms, ${online} players' rows shown ${fixed(shown)} ms (${rowsHeld} rows in the page)`);
      await context.close();
    }
    rows.push([`network, ${online} players online: first contentful paint`, `${fixed(median(networkFcp))} ms`, `≤ ${BUDGET.networkFcpMs} ms`, median(networkFcp) <= BUDGET.networkFcpMs ? 'MET' : 'MISSED']);
    rows.push([`network, ${online} players online: rows shown`, `${fixed(median(networkRows))} ms (${rowsHeld} rows in the page)`, `≤ ${BUDGET.networkRowsMs} ms`, median(networkRows) <= BUDGET.networkRowsMs ? 'MET' : 'MISSED']);

    for (let round = 0; round <= rounds; round++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript(`localStorage.setItem('svc.token', ${JSON.stringify(TOKEN)})`);
      const page = await context.newPage();
      await page.goto(`${url}/timeline`);
      await page.locator('li.tl-row').first().waitFor({ timeout: 30_000 });
      const shown = await page.evaluate<number>('performance.now()');
      // Written as text: it runs in the page (the bench's own tsconfig has no DOM).
      const frames = await page.evaluate<number[]>(`new Promise((done) => {
        const box = document.querySelector('[data-testid="timeline-scroll"]');
        const gaps = [];
        let previous = performance.now();
        const deadline = previous + 120000;
        const reached = () => {
          const rows = box.querySelectorAll('li.tl-row');
          return Number(rows[rows.length - 1]?.getAttribute('aria-posinset') ?? 0);
        };
        const frame = (now) => {
          gaps.push(now - previous);
          previous = now;
          box.scrollTop += 600;
          if (reached() >= ${READ_BACK} || now > deadline) done(gaps);
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      })`);
      const p95 = percentile(frames, 95);
      const worst = max(frames);
      if (round > 0) {
        firstRows.push(shown);
        frameP95.push(p95);
        longest.push(worst);
      }
      console.log(`round ${round}${round === 0 ? ' (discarded)' : ''}: first rows ${fixed(shown)} ms; ${frames.length} frames to read back ${READ_BACK} entries (${fixed(frames.reduce((a, b) => a + b, 0) / 1000, 2)} s): p95 ${fixed(p95)} ms, longest ${fixed(worst)} ms`);
      await context.close();
    }
    rows.push([`timeline, ${total} entries: first rows shown`, `${fixed(median(firstRows))} ms`, `≤ ${BUDGET.firstRowsMs} ms`, median(firstRows) <= BUDGET.firstRowsMs ? 'MET' : 'MISSED']);
    rows.push([`timeline, scrolled through ${READ_BACK}: frame time p95`, `${fixed(median(frameP95))} ms`, `≤ ${BUDGET.frameP95Ms} ms`, median(frameP95) <= BUDGET.frameP95Ms ? 'MET' : 'MISSED']);
    rows.push([`timeline, scrolled through ${READ_BACK}: longest frame`, `${fixed(median(longest))} ms`, `≤ ${BUDGET.longestFrameMs} ms`, median(longest) <= BUDGET.longestFrameMs ? 'MET' : 'MISSED']);
    rows.push([`GET /api/timeline, 200 entries deep in ${total}`, `${fixed(median(reads), 2)} ms`, `≤ ${BUDGET.pageReadMs} ms`, median(reads) <= BUDGET.pageReadMs ? 'MET' : 'MISSED']);
  } finally {
    await browser.close();
    controller.proc.kill('SIGKILL');
  }
  console.log(`\n${formatTable(['what', 'measured', 'budget', ''], rows)}`);
});

/** Writes `count` entries into the timeline table, a day of a 200-service network's history. */
function seed(file: string, count: number): number {
  const db = new Database(file);
  try {
    const insert = db.prepare('INSERT INTO timeline (ts, type, actor, service, grp, data) VALUES (?, ?, ?, ?, ?, ?)');
    const now = Date.now();
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const type = STEPS[i % STEPS.length]!;
        const group = `Group${i % 20}`;
        const service = type === 'SCALE_UP' || type === 'GROUP_UPDATED' ? null : `${group}-${(i % 10) + 1}`;
        const data: Record<string, string> = { group, ...(service ? { service, port: String(30000 + (i % 200)) } : { reason: 'players above 75%' }) };
        insert.run(now - (count - i) * 800, type, ACTORS[i % ACTORS.length]!, service, group, JSON.stringify(data));
      }
    })();
    insert.finalize();
    const counted = db.prepare('SELECT COUNT(*) AS n FROM timeline');
    const n = (counted.get() as { n: number }).n;
    counted.finalize();
    return n;
  } finally {
    // Every statement finalized first: a connection closed with one still open lingers and
    // holds its lock, and the controller's start then finds the database busy.
    db.close(true);
  }
}
