/**
 * The dashboard metrics' cost, against its peer measured in the same run:
 *   1. the sample tick (every 10 s): DashboardMetrics.sample() — network players per group and
 *      the up/down count — beside ServiceHistory.sample(), the service history's tick that runs
 *      in the same timer, with 500 running services over 50 groups (their pids are this
 *      process, so each memory reading is a real /proc read, as in production);
 *   2. GET /api/metrics/players/history?minutes=1440 over a full day of samples (8640 rows of 50
 *      groups) beside the service history's 1440-minute answer of one service;
 *   3. GET /api/metrics/performance with 7 days of crashes and startups (2 per service per
 *      day), 500 services.
 * Limit: a tick ≤ 5 ms of CPU (the scaling tick's limit); an answer ≤ 50 ms.
 *
 *   bun run bench dashboard-metrics
 *   BENCH_RUNS=200 BENCH_ENFORCE=1 (exit 1 when a limit is missed)
 */
import { join } from 'node:path';
import { EventBus } from '../../src/events/bus';
import { createLogger } from '../../src/log';
import { DashboardMetrics } from '../../src/core/metrics/dashboard-metrics';
import { ServiceHistory } from '../../src/core/metrics/service-history';
import { GroupStore } from '../../src/core/groups/store';
import { ServiceRegistry, newRecord } from '../../src/core/services/registry';
import { PlayerTracker } from '../../src/core/players/tracker';
import { openDatabase } from '../../src/storage/db';
import { migrate } from '../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../src/storage/core-migrations';
import { benchTimeoutMs, envNumber, fixed, formatTable, makeTempDir, median, percentile, runBench } from './lib';

const RUNS = envNumber('BENCH_RUNS', 200);
const GROUPS = 50;
const PER_GROUP = 10;
const DAY_MS = 24 * 3600_000;
const TICK_MS = 10_000;

function timed(run: () => unknown): { cpuMs: number; wallMs: number } {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  run();
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - wall };
}

function repeat(run: () => unknown): { cpuMs: number[]; wallMs: number[] } {
  const cpuMs: number[] = [];
  const wallMs: number[] = [];
  for (let i = 0; i < RUNS + 10; i++) {
    const t = timed(run);
    if (i < 10) continue; // warm-up
    cpuMs.push(t.cpuMs);
    wallMs.push(t.wallMs);
  }
  return { cpuMs, wallMs };
}

runBench('dashboard-metrics', benchTimeoutMs(600), async () => {
  console.log(`== dashboard-metrics: ${GROUPS * PER_GROUP} services over ${GROUPS} groups, ${RUNS} runs each; Bun ${Bun.version} ==\n`);
  const dir = makeTempDir('svc-bench-dashboard-metrics-');
  const db = openDatabase(join(dir, 'svc.db'));
  migrate(db, 'core', CORE_MIGRATIONS);
  const log = createLogger({ format: 'json', colored: false, dir: join(dir, 'logs'), level: 'warn', stdout: { write: () => undefined } });
  const bus = new EventBus(log);
  const groups = new GroupStore(join(dir, 'groups'));
  groups.load();
  const registry = new ServiceRegistry();
  for (let g = 0; g < GROUPS; g++) {
    const group = groups.create({ name: `G${g}`, software: 'PAPER', version: '1.21.4', minInstances: 0, maxInstances: 20 });
    for (let i = 1; i <= PER_GROUP; i++) {
      const record = newRecord({ name: `${group.name}-${i}`, group: group.name, port: 30000 + g * 20 + i, workDir: '/nonexistent', isStatic: false, isProxy: false, memoryMaxMb: 1536, restartCount: 0 });
      record.state = 'READY';
      record.pid = process.pid;
      record.startedAt = new Date();
      record.playerCount = (i * 7) % 30;
      registry.add(record);
    }
  }
  const players = new PlayerTracker({ bus, registry, log });
  const metrics = new DashboardMetrics({ db, bus, registry, groups, dedicated: { list: () => [] }, players });
  const history = new ServiceHistory(db, registry);

  // 1. The sample tick, new beside its peer.
  const dashboardTick = repeat(() => metrics.sample());
  const historyTick = repeat(() => history.sample());

  // A full day of samples (and of the service history), 7 days of crashes and startups.
  const now = Date.now();
  db.run('DELETE FROM network_samples');
  db.run('DELETE FROM service_metrics');
  db.transaction(() => {
    for (let ts = now - DAY_MS; ts <= now; ts += TICK_MS) {
      metrics.sample(ts);
      history.sample(ts);
    }
    for (const record of registry.all()) {
      for (let day = 0; day < 7; day++) {
        const ts = now - day * DAY_MS - 3600_000;
        metrics.events.recordCrash(record.name, record.group, 1, ts);
        metrics.events.recordStartup(record.name, record.group, 4000 + (day % 3) * 1000, ts + 1000);
      }
    }
  })();

  // 2. and 3. The two answers, beside the service history's day of one service.
  const playerDay = repeat(() => metrics.playerHistory(1440, now));
  const serviceDay = repeat(() => history.history('G0-1', 1440, now));
  const performanceAnswer = repeat(() => metrics.performance(now));
  const samples = metrics.playerHistory(1440, now).length;
  db.close();

  const row = (figure: string, m: { cpuMs: number[]; wallMs: number[] }, peer: { cpuMs: number[] } | null, limitMs: number) => {
    const cpu = median(m.cpuMs);
    return [figure, `${fixed(cpu, 3)} ms`, `p90 ${fixed(percentile(m.cpuMs, 90), 3)} ms`, peer ? `${fixed(cpu / median(peer.cpuMs), 2)}× the peer` : '—', `${fixed(cpu / limitMs, 3)} of ${limitMs} ms`];
  };
  const rows = [
    row('sample tick: service history (peer)', historyTick, null, 5),
    row('sample tick: network players + up/down', dashboardTick, historyTick, 5),
    row('1440 min of one service (peer)', serviceDay, null, 50),
    row(`players/history 1440 min (${samples} samples)`, playerDay, serviceDay, 50),
    row('performance, 7 d of events, 500 services', performanceAnswer, null, 50),
  ];
  console.log(formatTable(['figure (CPU)', 'median', 'spread', 'vs peer', 'limit'], rows));
  const missed = median(dashboardTick.cpuMs) > 5 || median(playerDay.cpuMs) > 50 || median(performanceAnswer.cpuMs) > 50;
  if (missed) console.log('\nlimit missed');
  if (missed && process.env.BENCH_ENFORCE === '1') throw new Error('limit missed');
});
