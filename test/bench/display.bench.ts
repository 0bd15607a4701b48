/**
 * The display module under its readers, in a real controller started in process
 * (test/support/controller.ts) with only the display module and BENCH_DISPLAY_GROUPS (50)
 * non-proxy groups (no service is ever started: minInstances 0). Requests go one at a time over
 * real HTTP with the master token; each figure is set beside a peer measured in the same run:
 *
 *   1. GET /api/displays, every group's display: what the display plugin on each backend and
 *      the dashboard read. Peer: GET /api/health, the floor of one request.
 *   2. GET /api/displays/{name}, one group's. Peer: GET /api/health.
 *   3. PUT /api/displays/{name} that changes a field: the patch merged and checked, the group's
 *      file written atomically, DISPLAY_UPDATED published. Peer: the same PUT changing nothing
 *      (merged and checked, no write, no event), so the ratio is the cost of the write.
 * No goal comes from an issue: the table shows the ratios, and the run fails only when an
 * answer is not what it should be (a status, a count, a file that did not change).
 *
 *   bun run bench display
 *   BENCH_DISPLAY_GROUPS=50 BENCH_DISPLAY_REQUESTS=2000 BENCH_DISPLAY_WRITES=300
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { displayModule } from '../../src/modules/display';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { startController, type TestController } from '../support/controller';
import { backgroundLoad, benchTimeoutMs, envNumber, fixed, formatTable, loadLine, median, percentile, runBench } from './lib';

const GROUPS = envNumber('BENCH_DISPLAY_GROUPS', 50);
const REQUESTS = envNumber('BENCH_DISPLAY_REQUESTS', 2000);
const WRITES = envNumber('BENCH_DISPLAY_WRITES', 300);
/** Requests before the timed ones, so the first compile and caches are not in the figures. */
const WARMUP = 100;

const groupName = (i: number) => `Game${String(i).padStart(3, '0')}`;

/** Milliseconds of each of `count` calls of `call`, one after another; a wrong status fails the run. */
async function timed(label: string, count: number, call: (i: number) => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < WARMUP + count; i++) {
    const started = performance.now();
    const res = await call(i);
    await res.arrayBuffer();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`${label}: answered ${res.status}`);
    if (i >= WARMUP) out.push(ms);
  }
  return out;
}

interface Row {
  figure: string;
  p50: number;
  p99: number;
  peer: string;
  peerP50: number;
}

function row(figure: string, ms: readonly number[], peer: string, peerMs: readonly number[]): Row {
  return { figure, p50: median(ms), p99: percentile(ms, 99), peer, peerP50: median(peerMs) };
}

if (import.meta.main) {
  runBench('display', benchTimeoutMs(600), async () => {
    console.log(`display: ${GROUPS} groups, ${REQUESTS} reads and ${WRITES} writes per figure, in process, one request at a time`);
    console.log(loadLine('load before', await backgroundLoad()));
    console.log('');

    const c: TestController = await startController({ modules: [displayModule] });
    try {
      for (let i = 0; i < GROUPS; i++) {
        const res = await c.api('/api/groups', { method: 'POST', json: fakePaperGroup(groupName(i), { minInstances: 0 }) });
        if (res.status !== 201) throw new Error(`creating ${groupName(i)}: ${res.status} ${await res.text()}`);
      }
      const listed = (await (await c.api('/api/displays')).json()) as { total: number };
      if (listed.total !== GROUPS) throw new Error(`GET /api/displays lists ${listed.total} displays, not ${GROUPS}`);

      const health = await timed('GET /api/health', REQUESTS, () => c.api('/api/health'));
      const all = await timed('GET /api/displays', REQUESTS, () => c.api('/api/displays'));
      const one = await timed('GET /api/displays/{name}', REQUESTS, (i) => c.api(`/api/displays/${groupName(i % GROUPS)}`));

      // The groups are visited in turn; each visit flips a group's third sign line between its
      // default and the default with a trailing space, so every changing PUT writes its file.
      const put = (i: number, line3: string) => c.api(`/api/displays/${groupName(i % GROUPS)}`, { method: 'PUT', json: { sign: { line3 } } });
      const unchanged = await timed('PUT unchanged', WRITES, (i) => put(i, '&7{state}'));
      const changed = await timed('PUT changed', WRITES, (i) => put(i, Math.floor(i / GROUPS) % 2 === 0 ? '&7{state} ' : '&7{state}'));
      if ((await put(1, 'bench end')).status !== 200) throw new Error('the last PUT failed');
      const file = readFileSync(join(c.dir, 'config/modules/display', `${groupName(1)}.toml`), 'utf8');
      if (!file.includes('bench end')) throw new Error(`the display file of ${groupName(1)} does not hold the last change:\n${file}`);

      const rows = [
        row(`GET /api/displays (${GROUPS} displays)`, all, 'GET /api/health', health),
        row('GET /api/displays/{name}', one, 'GET /api/health', health),
        row('PUT /api/displays/{name}, a change (file + event)', changed, 'the same PUT changing nothing', unchanged),
      ];
      console.log(
        formatTable(
          ['figure', 'p50 ms', 'p99 ms', 'peer', 'peer p50 ms', 'ratio p50'],
          rows.map((r) => [r.figure, fixed(r.p50, 3), fixed(r.p99, 3), r.peer, fixed(r.peerP50, 3), fixed(r.p50 / r.peerP50, 2)]),
        ),
      );
      console.log(loadLine('load after ', await backgroundLoad()));
    } finally {
      await c.stop();
    }
  });
}
