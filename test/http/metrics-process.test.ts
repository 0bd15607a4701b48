import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { closeSync, openSync, readdirSync } from 'node:fs';
import { DEFAULT_BUCKETS } from '../../src/core/metrics/registry';
import { parseExposition, type Exposition, type ParsedSample } from '../core/metrics/exposition';
import { startController, type TestController } from '../support/controller';

let c: TestController;

beforeAll(async () => {
  c = await startController();
});
afterAll(async () => {
  await c.stop();
});

async function scrape(): Promise<Exposition> {
  const res = await c.api('/api/metrics', { token: c.service });
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

const linux = process.platform === 'linux';
const HISTOGRAM = 'svc_http_request_duration_seconds';

describe('process_* series', () => {
  test('resident and virtual memory in bytes, the start time, the fd limit: plausible', async () => {
    const parsed = await scrape();
    const rss = parsed.value('process_resident_memory_bytes')!;
    expect(rss).toBeGreaterThan(10 * 1024 * 1024);
    // the controller runs in this process: the same figure, give or take what moved since
    const own = process.memoryUsage.rss();
    expect(rss).toBeGreaterThan(own / 2);
    expect(rss).toBeLessThan(own * 2);

    const start = parsed.value('process_start_time_seconds')!;
    const now = Date.now() / 1000;
    expect(start).toBeLessThanOrEqual(now);
    expect(start).toBeGreaterThan(now - 3600);
    // the process started before the controller in it did
    expect(start).toBeLessThanOrEqual(c.controller.kernel.startedAt.getTime() / 1000 + 0.001);

    if (!linux) {
      for (const name of ['process_virtual_memory_bytes', 'process_open_fds', 'process_max_fds']) expect(parsed.families.has(name), name).toBe(false);
      return;
    }
    expect(parsed.value('process_virtual_memory_bytes')!).toBeGreaterThanOrEqual(rss);
    expect(parsed.value('process_max_fds')!).toBeGreaterThanOrEqual(parsed.value('process_open_fds')!);
  });

  test.if(linux)('open fds: the entries of /proc/<pid>/fd, and they follow files opened and closed', async () => {
    const before = (await scrape()).value('process_open_fds')!;
    expect(before).toBeGreaterThanOrEqual(3);
    // this process is the controller's: its own count, within what sockets come and go meanwhile
    expect(Math.abs(before - readdirSync(`/proc/${process.pid}/fd`).length)).toBeLessThanOrEqual(4);

    const extra = Array.from({ length: 32 }, () => openSync('/dev/null', 'r'));
    let opened: number;
    try {
      opened = (await scrape()).value('process_open_fds')!;
    } finally {
      for (const fd of extra) closeSync(fd);
    }
    expect(opened - before).toBeGreaterThanOrEqual(28);
    const closed = (await scrape()).value('process_open_fds')!;
    expect(opened - closed).toBeGreaterThanOrEqual(28);
  });

  test('cpu seconds grow with work done', async () => {
    const before = (await scrape()).value('process_cpu_seconds_total')!;
    expect(before).toBeGreaterThan(0);
    // Burn 50 ms of this process's CPU time (the clock the metric reads), however busy the machine.
    const spent = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1e6;
    };
    const from = spent();
    let x = 0;
    while (spent() - from < 0.05) for (let i = 0; i < 10_000; i++) x += Math.sqrt(i);
    expect(x).toBeGreaterThan(0);
    const after = (await scrape()).value('process_cpu_seconds_total')!;
    expect(after - before).toBeGreaterThanOrEqual(0.05);
  });
});

describe(`${HISTOGRAM}`, () => {
  /** The samples of one route and status class: buckets (by le, in order), sum, count. */
  function series(parsed: Exposition, route: string, status: string) {
    const samples = parsed.families.get(HISTOGRAM)?.samples ?? [];
    const mine = (s: ParsedSample) => s.labels.route === route && s.labels.status === status;
    const buckets = samples.filter((s) => s.name === `${HISTOGRAM}_bucket` && mine(s)).map((s) => ({ le: s.labels.le!, value: s.value }));
    return {
      buckets,
      sum: parsed.value(`${HISTOGRAM}_sum`, { route, status }) ?? 0,
      count: parsed.value(`${HISTOGRAM}_count`, { route, status }) ?? 0,
    };
  }

  test('requests by route template and status class; unknown paths as route="unmatched"', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await c.api('/api/health', { token: null })).status).toBe(200);
    expect((await c.api('/api/services/nope')).status).toBe(404);
    expect((await c.api('/api/no/such/route')).status).toBe(404);
    // refused by the guard before the route runs: still the route's template
    expect((await c.api('/api/groups', { token: null })).status).toBe(401);
    // a trailing slash is no route (strict paths)
    expect((await c.api('/api/groups/')).status).toBe(404);
    const after = await scrape();

    const delta = (route: string, status: string) => series(after, route, status).count - series(before, route, status).count;
    expect(delta('/api/health', '2xx')).toBe(3);
    expect(delta('/api/services/:name', '4xx')).toBe(1);
    expect(delta('/api/groups', '4xx')).toBe(1);
    expect(delta('unmatched', '4xx')).toBe(2);
    // the scrape before was counted too, once its response was out
    expect(delta('/api/metrics', '2xx')).toBe(1);

    // labels: a declared route's template or unmatched, and a status class; never a raw path
    const templates = new Set(c.controller.routes.map((r) => r.path));
    const family = after.families.get(HISTOGRAM)!;
    expect(family.type).toBe('histogram');
    expect(family.help).toBeTruthy();
    for (const s of family.samples) {
      expect(s.labels.route === 'unmatched' || templates.has(s.labels.route!), s.labels.route).toBe(true);
      expect(['2xx', '3xx', '4xx', '5xx']).toContain(s.labels.status!);
    }
    expect(family.samples.some((s) => s.labels.route === '/api/services/nope' || s.labels.route === '/api/no/such/route')).toBe(false);
  });

  test('buckets: the default bounds then +Inf, cumulative, +Inf equal to the count; sum plausible', async () => {
    for (let i = 0; i < 5; i++) await c.api('/api/health', { token: null });
    await c.api('/api/services/nope');
    const parsed = await scrape();
    const families = parsed.families.get(HISTOGRAM)!;
    const keys = new Set(families.samples.map((s) => `${s.labels.route} ${s.labels.status}`));
    expect(keys.has('/api/health 2xx')).toBe(true);
    for (const key of keys) {
      const [route, status] = key.split(' ') as [string, string];
      const { buckets, sum, count } = series(parsed, route, status);
      expect(buckets.map((b) => b.le)).toEqual([...DEFAULT_BUCKETS.map(String), '+Inf']);
      for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value, `${key} le=${buckets[i]!.le}`).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
      expect(buckets.at(-1)!.value).toBe(count);
      expect(count).toBeGreaterThan(0);
      expect(sum).toBeGreaterThan(0);
      // no test request takes anywhere near 10 s
      expect(sum).toBeLessThan(count * 10);
    }
    expect(series(parsed, '/api/health', '2xx').count).toBeGreaterThanOrEqual(8);
  });
});
