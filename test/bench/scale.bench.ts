/**
 * Scaling benchmark. In one run:
 *   1. cold: a group of the fake-paper fixture (a Bun process that prints Paper's Done line and
 *      answers Server List Ping) scaled from 1 to BENCH_INSTANCES instances by simulated
 *      players: each step fills every routable instance (SDK player reports), runs a scaling
 *      tick, and times "threshold crossed → new instance READY";
 *   2. warm: the same with `warm_pool_size` BENCH_POOL: each scale-up is served by an instance
 *      the pool booted ahead (the step waits for the pool to hold one, as it would between
 *      real scale-ups, and reports how often it was empty);
 *   3. tick: the controller's CPU per scaling tick with 500 READY services over 50 groups
 *      (every count fresh from an SDK report, so no ping; the real engine, decision and
 *      placement code; starts and stops counted, not carried out).
 * Goals: warm-pool start to READY ≤ 1/5 of the cold start; a tick ≤ 5 ms with 500 services.
 * The controller runs in this process (src/, not the binary): the figures are the scaling
 * path's own, and the fixture processes are real children.
 *
 *   bun run bench scale
 *   BENCH_INSTANCES=50 BENCH_POOL=2 BENCH_TICKS=200 BENCH_ENFORCE=1 (exit 1 when a goal is missed)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller } from '../../src/controller';
import { EventBus } from '../../src/events/bus';
import { createLogger } from '../../src/log';
import { GroupStore } from '../../src/core/groups/store';
import { ServiceRegistry, newRecord } from '../../src/core/services/registry';
import { PlayerTracker } from '../../src/core/players/tracker';
import { ScalingEngine, DEFAULT_SCALING_TIMING } from '../../src/core/scaling/engine';
import { benchTimeoutMs, envNumber, fixed, formatTable, makeTempDir, median, percentile, runBench } from './lib';

const INSTANCES = envNumber('BENCH_INSTANCES', 50);
const POOL = envNumber('BENCH_POOL', 2);
const TICKS = envNumber('BENCH_TICKS', 200);
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const TOKEN = 'bench-master-token-0123456789abcdef';
const PER_INSTANCE = 10;

async function waitUntil(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(2);
  }
}

/** Scales one group from 1 to INSTANCES; returns the threshold → READY times (ms) and pool misses. */
async function scaleUp(warmPool: number): Promise<{ times: number[]; poolEmpty: number }> {
  const dir = makeTempDir('svc-bench-scale-');
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = 0\ntoken = "${TOKEN}"\nrate_limit = 0\nservice_rate_limit = 0\n[controller]\nmax_services = ${INSTANCES + warmPool + 5}\nmax_memory = "1000G"\n[services]\nisolation = "none"\n`);
  const name = warmPool > 0 ? 'Warm' : 'Cold';
  mkdirSync(join(dir, 'config', 'groups'), { recursive: true });
  const controller = await Controller.start({
    dir,
    env: {},
    stdout: { write: () => undefined },
    // The bench drives every tick itself so that t0 is the moment the threshold is seen.
    scaling: { tickMs: 3_600_000, upCooldownMs: 0, warmPool: { intervalMs: 50 } },
    timing: { stopTimeoutMs: 5000 },
  });
  const { kernel } = controller;
  const readyAt = new Map<string, number>();
  kernel.bus.subscribe((event) => {
    if (event.type === 'SERVICE_READY') readyAt.set(String(event.data.service), performance.now());
  });
  try {
    kernel.groups.create({
      name,
      software: 'CUSTOM',
      version: '1.21.1',
      jarName: 'server.jar',
      startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', '--max-lifetime-ms', '0'],
      minInstances: 1,
      maxInstances: INSTANCES,
      playersPerInstance: PER_INSTANCE,
      scaleThreshold: 0.5,
      warmPoolSize: warmPool,
      memory: '512M',
    });
    kernel.bus.publish('GROUP_CREATED', { group: name });
    await kernel.scaling.tick();
    await waitUntil(() => kernel.services.get(`${name}-1`)?.state === 'READY', `${name}-1`);
    const times: number[] = [];
    let poolEmpty = 0;
    for (let n = 1; n < INSTANCES; n++) {
      if (warmPool > 0) {
        if (!kernel.services.poolOf(name).some((s) => s.state === 'PREPARED')) poolEmpty++;
        await waitUntil(() => kernel.services.poolOf(name).some((s) => s.state === 'PREPARED'), 'a booted pool instance');
      }
      const routable = kernel.services.ofGroup(name).filter((s) => s.state === 'READY' && !s.pooled);
      for (const s of routable) kernel.manager.reportPlayers(s.name, PER_INSTANCE);
      const before = new Set(readyAt.keys());
      const t0 = performance.now();
      await kernel.scaling.tick();
      await waitUntil(() => [...readyAt.keys()].some((k) => !before.has(k) && k.startsWith(`${name}-`)), `scale-up ${n}`);
      const fresh = [...readyAt.entries()].find(([k]) => !before.has(k) && k.startsWith(`${name}-`))!;
      times.push(fresh[1] - t0);
    }
    return { times, poolEmpty };
  } finally {
    await controller.stop('bench finished');
  }
}

/** CPU per scaling tick with 500 READY services over 50 groups. */
async function tickCost(): Promise<{ cpuMs: number[]; wallMs: number[] }> {
  const dir = makeTempDir('svc-bench-tick-');
  const groups = new GroupStore(join(dir, 'groups'));
  groups.load();
  const registry = new ServiceRegistry();
  const log = createLogger({ format: 'json', colored: false, dir: join(dir, 'logs'), level: 'warn', stdout: { write: () => undefined } });
  const bus = new EventBus(log);
  let starts = 0;
  for (let g = 0; g < 50; g++) {
    const group = groups.create({ name: `G${g}`, software: 'PAPER', version: '1.21.4', minInstances: 10, maxInstances: 20, idleTimeout: 60, playersPerInstance: 40 });
    for (let i = 1; i <= 10; i++) {
      const record = newRecord({ name: `${group.name}-${i}`, group: group.name, port: 30000 + g * 20 + i, workDir: '/nonexistent', isStatic: false, isProxy: false, memoryMaxMb: 1536, restartCount: 0 });
      record.state = 'READY';
      record.readyAt = new Date();
      record.playerCount = (i * 7) % 30;
      registry.add(record);
    }
  }
  const players = new PlayerTracker({ bus, registry, log });
  const engine = new ScalingEngine({
    bus,
    log,
    registry,
    groups,
    manager: { start: async () => (starts++, registry.all()[0]!), stop: async () => undefined, isQuarantined: () => false, pendingRestartsOf: () => 0 },
    players,
    limits: () => ({ maxServices: 1000, maxMemoryMb: 10_000_000 }),
    ping: async () => null,
    paused: () => false,
    timing: { ...DEFAULT_SCALING_TIMING, tickMs: 10_000 },
  });
  const cpuMs: number[] = [];
  const wallMs: number[] = [];
  for (let i = 0; i < TICKS + 20; i++) {
    for (const s of registry.all()) s.playersReportedAt = Date.now(); // SDK reports keep every count fresh
    const cpu = process.cpuUsage();
    const wall = performance.now();
    await engine.tick();
    const used = process.cpuUsage(cpu);
    if (i < 20) continue; // warm-up
    wallMs.push(performance.now() - wall);
    cpuMs.push((used.user + used.system) / 1000);
  }
  engine.stop();
  if (starts !== 0) throw new Error(`the tick bench expected no decisions, got ${starts} starts`);
  return { cpuMs, wallMs };
}

runBench('scale', benchTimeoutMs(600), async () => {
  console.log(`== scale: ${INSTANCES} instances, warm pool ${POOL}, ${TICKS} ticks; Bun ${Bun.version} ==\n`);
  const cold = await scaleUp(0);
  const warm = await scaleUp(POOL);
  const tick = await tickCost();
  const coldMedian = median(cold.times);
  const warmMedian = median(warm.times);
  const tickMedian = median(tick.cpuMs);
  const rows = [
    ['threshold → READY, cold start', `${fixed(coldMedian)} ms`, `p90 ${fixed(percentile(cold.times, 90))} ms`, `${cold.times.length} scale-ups`, ''],
    ['threshold → READY, warm pool', `${fixed(warmMedian)} ms`, `p90 ${fixed(percentile(warm.times, 90))} ms`, `${warm.times.length} scale-ups (pool empty ${warm.poolEmpty}×)`, `${fixed(warmMedian / coldMedian, 3)} of cold (goal ≤ 0.2)`],
    ['CPU per scaling tick, 500 services', `${fixed(tickMedian, 2)} ms`, `p90 ${fixed(percentile(tick.cpuMs, 90), 2)} ms`, `wall median ${fixed(median(tick.wallMs), 2)} ms`, `${fixed(tickMedian / 5, 3)} of the 5 ms limit`],
  ];
  console.log(formatTable(['figure', 'median', 'spread', 'samples', 'ratio'], rows));
  const missed = warmMedian > coldMedian / 5 || tickMedian > 5;
  if (missed) console.log('\ngoal missed');
  if (missed && process.env.BENCH_ENFORCE === '1') throw new Error('goal missed');
});
