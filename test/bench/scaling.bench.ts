/**
 * Smart scaling at size: 50 DYNAMIC groups with 90 days of per-minute samples (6.48 million
 * rows in scaling_samples, 108,000 hourly aggregates) in a real controller started in process
 * (test/support/controller.ts) on a fake clock; no service is ever started (every group has
 * minInstances 0, and the core engine's timer is stopped: the bench asks the module directly).
 *
 * Each group has its own config/modules/scaling/<Group>.toml: schedule on (5 rules over
 * different days, two overnight, in one of three zones), warm-up 10 min, prediction p90. The
 * samples follow a daily and weekly pattern in the group's zone (quiet nights, busy evenings,
 * busier weekends, a Wednesday event) with noise. The first BENCH_SCALING_STORE_DAYS (3) days are
 * written through ScalingStore.addSamples, one call (one transaction of 50 rows) per minute as
 * the module writes them, and timed: at ~100,000 samples/s on 2 cores all 90 days that way would
 * take ~65 s, so the rest goes in one transaction per day on the same connection (the statement
 * addSamples uses; hourly aggregates summed in JS and upserted the way addSamples does, checked
 * against the samples afterwards). Both rates and the fill time are reported.
 *
 * Measured in process, on the module's own objects (scalingRuntimeOf(kernel)):
 *   1. evaluation tick, cold: runtime.overrideFor(group, now) for every group, as the core
 *      engine's tick asks (src/core/scaling/engine.ts runTick → overrideOf), with `now` in a
 *      local hour no tick has seen, so every group's prediction is computed again (4 range
 *      queries of 60 rows each). The hours are visited in a scattered order over the data
 *      (not hour after hour), so the pages a tick reads are not the ones the tick before read.
 *      Goal: median ≤ 5 ms (the issue's goal); p99 shown. Then, in a separate pass with
 *      counters (not in the figures above), where a cold tick's time goes: the time inside
 *      ScalingStore.playersBetween (SQL and rows), and how many Intl formatToParts calls the
 *      zone arithmetic of zoned.ts makes per tick (with what one costs here); that pass also
 *      checks a cold tick queries 4 weeks of every group and a warm one nothing.
 *   2. evaluation tick, warm: the same, one minute later in the same hour (predictions cached,
 *      the schedule evaluated again): what every other tick of the hour costs. Context.
 *   3. prediction query: predictionsView(runtime, group), the route/console `predict`
 *      (6 hours × 4 weeks = 24 range queries), p50/p99 over many calls across groups and hours.
 *      Context (no goal in the issue).
 *   4. history query 2160 h: historyView(runtime, group, 2160), the longest the route serves
 *      (2,160 hourly aggregates). Context.
 *   5. sample write: one minute's addSamples of 50 groups into the full tables (the module
 *      does this every minute). Context.
 *   6. database size: the sqlite file plus its WAL after PRAGMA wal_checkpoint(TRUNCATE), and
 *      bytes per stored sample (the whole file ÷ samples). Limit: ≤ 40 bytes per sample
 *      (≈ 250 MiB for 90 days of 50 groups); this one counts as a goal.
 * Exits non-zero when the data is not what was written (counts, every hourly aggregate against
 * its samples), a prediction does not see its 4 weeks or a tick is not as cold/warm as it says; with BENCH_ENFORCE=1 also on a missed goal.
 *
 *   bun run bench scaling
 *   BENCH_SCALING_DAYS=90 BENCH_SCALING_GROUPS=50 BENCH_SCALING_TICKS=300 BENCH_SCALING_QUERIES=500 BENCH_SCALING_STORE_DAYS=3 BENCH_ENFORCE=1
 *   (BENCH_SCALING_STORE_DAYS=90: every sample through addSamples)
 *   quick: BENCH_SCALING_DAYS=8 BENCH_SCALING_TICKS=50 BENCH_SCALING_QUERIES=100
 */
import type { Database } from 'bun:sqlite';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, release } from 'node:os';
import { join } from 'node:path';
import type { Group } from '../../src/core/groups/model';
import { scalingRuntimeOf } from '../../src/modules/scaling';
import { PREDICTION_WEEKS, type ScalingRuntime } from '../../src/modules/scaling/runtime';
import { HOUR_MS, MINUTE_MS } from '../../src/modules/scaling/store';
import { historyView, predictionsView } from '../../src/modules/scaling/views';
import { localParts, type Weekday } from '../../src/modules/scaling/zoned';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { startController, type TestController } from '../support/controller';
import { backgroundLoad, benchTimeoutMs, envNumber, fixed, formatTable, loadLine, max, median, percentile, REPO, runBench, runQuick } from './lib';

const DAYS = Math.max(1, Math.round(envNumber('BENCH_SCALING_DAYS', 90)));
const GROUPS = Math.max(1, Math.round(envNumber('BENCH_SCALING_GROUPS', 50)));
const TICKS = Math.max(5, Math.round(envNumber('BENCH_SCALING_TICKS', 300)));
const QUERIES = Math.max(10, Math.round(envNumber('BENCH_SCALING_QUERIES', 500)));
const HISTORY_CALLS = Math.max(10, Math.round(QUERIES / 2));
const SAMPLE_WRITES = 300;
/** Days written through addSamples (the rest in bulk); at least 1, which creates the groups' ids. */
const STORE_DAYS = Math.min(DAYS, Math.max(1, Math.round(envNumber('BENCH_SCALING_STORE_DAYS', 3))));
const WARMUP_TICKS = 20;
const GOAL = { coldTickMs: 5, bytesPerSample: 40 };
const MIB = 1024 * 1024;
const DAY_MS = 24 * HOUR_MS;
const ZONES = ['Europe/Berlin', 'America/New_York', 'Europe/London'] as const;
const PLAYERS_PER_INSTANCE = 40;
const SCALE_THRESHOLD = 0.8;

/**
 * The end of the data: the samples cover [T0 - DAYS, T0). A Monday 00:00 UTC, in winter so the
 * 90 days before it cross the autumn clock change of all three zones.
 */
const T0 = Date.UTC(2027, 0, 4);
const START = T0 - DAYS * DAY_MS;

const groupName = (g: number): string => `Arena${String(g + 1).padStart(2, '0')}`;
const zoneOf = (g: number): string => ZONES[g % ZONES.length]!;

function rulesToml(g: number): string {
  const shift = g % 3; // the groups do not all open at the same minute
  return `[schedule]
enabled = true
timezone = "${zoneOf(g)}"

[[schedule.rules]]
name = "weekday evening"
days = ["MON", "TUE", "WED", "THU"]
from = "18:${shift}0"
to = "23:00"
min_instances = 2

[[schedule.rules]]
name = "friday night"
days = ["FRI"]
from = "17:00"
to = "02:00"
min_instances = 3

[[schedule.rules]]
name = "weekend day"
days = ["SAT", "SUN"]
from = "10:00"
to = "18:00"
min_instances = 2

[[schedule.rules]]
name = "weekend night"
days = ["SAT", "SUN"]
from = "18:00"
to = "01:${shift}0"
min_instances = 4
max_instances = 10

[[schedule.rules]]
name = "wednesday event"
days = ["WEDNESDAY"]
from = "20:00"
to = "21:30"
min_instances = 5
max_instances = 8

[warmup]
enabled = true
lead_time_minutes = 10

[prediction]
enabled = true
percentile = 90
`;
}

// ---------------------------------------------------------------------------------------------
// The player pattern

/** Share of a group's peak by local hour: quiet at night, a lunch bump, busy 19-22. */
const DAILY = [0.18, 0.12, 0.08, 0.05, 0.04, 0.04, 0.05, 0.08, 0.12, 0.18, 0.25, 0.32, 0.38, 0.36, 0.35, 0.4, 0.5, 0.62, 0.78, 0.92, 1, 0.97, 0.8, 0.45];
const WEEKLY: Record<Weekday, number> = { MONDAY: 0.8, TUESDAY: 0.82, WEDNESDAY: 0.9, THURSDAY: 0.88, FRIDAY: 1.05, SATURDAY: 1.35, SUNDAY: 1.25 };

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Per zone and UTC hour of the data: the share of the peak (local hour × weekday, Wednesday event). */
function hourShares(): Map<string, Float64Array> {
  const out = new Map<string, Float64Array>();
  const hours = DAYS * 24;
  for (const zone of ZONES) {
    const shares = new Float64Array(hours);
    for (let h = 0; h < hours; h++) {
      const local = localParts(START + h * HOUR_MS + 30 * MINUTE_MS, zone);
      const event = local.weekday === 'WEDNESDAY' && (local.hour === 20 || local.hour === 21) ? 1.3 : 1;
      shares[h] = DAILY[local.hour]! * WEEKLY[local.weekday] * event;
    }
    out.set(zone, shares);
  }
  return out;
}

/** Each group's busiest minute: 30 to 300 players. */
const peakOf = (g: number): number => 30 + ((g * 97) % 271);

/** One minute's rows for every group (deterministic noise: ±15 % and a slow drift within the hour). */
function minuteRows(minuteIndex: number, shares: Map<string, Float64Array>, random: () => number): { group: string; players: number; services: number }[] {
  const hour = Math.floor(minuteIndex / 60);
  const inHour = minuteIndex % 60;
  const rows: { group: string; players: number; services: number }[] = [];
  for (let g = 0; g < GROUPS; g++) {
    const share = shares.get(zoneOf(g))![hour]!;
    const drift = 1 + 0.1 * Math.sin((inHour / 60) * Math.PI * 2 + g);
    const players = Math.max(0, Math.round(peakOf(g) * share * drift * (0.85 + 0.3 * random())));
    rows.push({ group: groupName(g), players, services: players === 0 ? 0 : Math.ceil(players / (PLAYERS_PER_INSTANCE * SCALE_THRESHOLD)) });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Filling

/** Lets timers and I/O run between days, and copies the WAL back so it does not grow with the fill. */
async function betweenDays(db: Database): Promise<void> {
  db.query('PRAGMA wal_checkpoint(TRUNCATE)').get();
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Days [from, to) through ScalingStore.addSamples, one call (one transaction) per minute, as the module writes. */
async function fillThroughStore(runtime: ScalingRuntime, db: Database, shares: Map<string, Float64Array>, random: () => number, from: number, to: number): Promise<void> {
  for (let day = from; day < to; day++) {
    for (let m = day * 1440; m < (day + 1) * 1440; m++) {
      const rows = minuteRows(m, shares, random);
      if (runtime.store.addSamples(START + m * MINUTE_MS, rows) !== rows.length) throw new Error(`addSamples stored fewer than ${rows.length} rows for minute ${m}`);
    }
    await betweenDays(db);
    progress(day);
  }
}

/**
 * Days [from, to) in one transaction per day on the controller's connection: the samples with
 * the statement addSamples uses, the hour aggregates summed in JS and written with addSamples'
 * upsert (summing into what is there), so the tables end up as addSamples would leave them.
 * The groups' ids must exist (the store creates them on its first addSamples).
 */
async function fillInBulk(db: Database, shares: Map<string, Float64Array>, random: () => number, from: number, to: number): Promise<void> {
  const ids = new Map(db.query<{ id: number; name: string }, []>('SELECT id, name FROM scaling_groups').all().map((r) => [r.name, r.id]));
  const insert = db.query('INSERT OR IGNORE INTO scaling_samples (group_id, minute, players, services) VALUES (?, ?, ?, ?)');
  const aggregate = db.query(
    `INSERT INTO scaling_hourly (group_id, hour, samples, players_sum, players_max, services_sum) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
     ON CONFLICT (group_id, hour) DO UPDATE SET samples = samples + ?3, players_sum = players_sum + ?4, players_max = max(players_max, ?5), services_sum = services_sum + ?6`,
  );
  for (let day = from; day < to; day++) {
    db.transaction(() => {
      const hours = new Map<string, { id: number; hour: number; samples: number; sum: number; max: number; services: number }>();
      for (let m = day * 1440; m < (day + 1) * 1440; m++) {
        const minute = Math.floor((START + m * MINUTE_MS) / MINUTE_MS);
        const hour = Math.floor((START + m * MINUTE_MS) / HOUR_MS);
        for (const row of minuteRows(m, shares, random)) {
          const id = ids.get(row.group);
          if (id === undefined) throw new Error(`group ${row.group} has no id in scaling_groups`);
          if (insert.run(id, minute, row.players, row.services).changes === 0) continue;
          const key = `${id}:${hour}`;
          const agg = hours.get(key);
          if (agg) {
            agg.samples++;
            agg.sum += row.players;
            agg.max = Math.max(agg.max, row.players);
            agg.services += row.services;
          } else hours.set(key, { id, hour, samples: 1, sum: row.players, max: row.players, services: row.services });
        }
      }
      for (const a of hours.values()) aggregate.run(a.id, a.hour, a.samples, a.sum, a.max, a.services);
    })();
    await betweenDays(db);
    progress(day);
  }
}

let fillStarted = 0;
function progress(day: number): void {
  if ((day + 1) % 15 !== 0 && day + 1 !== DAYS) return;
  const seconds = (performance.now() - fillStarted) / 1000;
  console.log(`  filled ${day + 1}/${DAYS} days (${((day + 1) * 1440 * GROUPS).toLocaleString('en')} samples) in ${fixed(seconds, 1)} s`);
}

/** The tables hold exactly what was written, and every hour's aggregate matches its samples. */
function checkData(db: Database): void {
  const expected = DAYS * 1440 * GROUPS;
  const samples = db.query<{ n: number }, [number, number]>('SELECT count(*) AS n FROM scaling_samples WHERE minute >= ? AND minute < ?').get(START / MINUTE_MS, T0 / MINUTE_MS)!.n;
  const hourly = db.query<{ n: number; s: number }, [number, number]>('SELECT count(*) AS n, sum(samples) AS s FROM scaling_hourly WHERE hour >= ? AND hour < ?').get(START / HOUR_MS, T0 / HOUR_MS)!;
  if (samples !== expected || hourly.s !== expected || hourly.n !== DAYS * 24 * GROUPS) {
    throw new Error(`expected ${expected} samples in ${DAYS * 24 * GROUPS} hours; scaling_samples has ${samples}, scaling_hourly ${hourly.n} hours summing to ${hourly.s}`);
  }
  // Every hour's aggregate against its samples (the bulk part sums in JS what addSamples sums in SQL).
  const wrong = db
    .query<{ n: number }, []>(
      `SELECT count(*) AS n FROM scaling_hourly h JOIN (
         SELECT group_id, minute / 60 AS hour, count(*) AS samples, sum(players) AS players_sum, max(players) AS players_max, sum(services) AS services_sum
         FROM scaling_samples GROUP BY group_id, minute / 60) x USING (group_id, hour)
       WHERE h.samples != x.samples OR h.players_sum != x.players_sum OR h.players_max != x.players_max OR h.services_sum != x.services_sum`,
    )
    .get()!.n;
  if (wrong !== 0) throw new Error(`${wrong} hourly aggregates differ from their samples`);
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** Hours into the data from which a prediction finds all its weeks (+ 2: the weeks are local, and a week before a clock change lies up to an hour earlier in UTC). */
const FULL_WEEKS_HOURS = PREDICTION_WEEKS * 7 * 24 + 2;
/** Whether the data has a day or more of such hours (a quick run with fewer days measures on all hours, with fewer weeks behind each). */
const FULL_WEEKS = DAYS * 24 >= FULL_WEEKS_HOURS + 24;

/**
 * The instants the ticks are measured at: hh:20 of hours that have PREDICTION_WEEKS weeks of data
 * before them (all the data's hours when it is shorter), visited in a scattered order (a step
 * that is no multiple of their number, so two ticks in a row are never in the same hour).
 */
function tickInstants(count: number, offset: number): number[] {
  const firstFull = FULL_WEEKS ? FULL_WEEKS_HOURS : 0;
  const span = DAYS * 24 - firstFull; // hours ending with the last one of the data
  const step = [97, 89, 83, 79, 73].find((p) => span % p !== 0) ?? 1;
  return Array.from({ length: count }, (_, i) => T0 - (1 + ((offset + i * step) % span)) * HOUR_MS + 20 * MINUTE_MS);
}

interface TickResult {
  cold: number[];
  warm: number[];
  minSamples: number;
}

/** The engine's walk over the groups (groups.list() once, then overrideFor each). */
function evaluate(runtime: ScalingRuntime, now: number, kinds?: Record<string, number>): void {
  for (const group of runtime.kernel.groups.list()) {
    const override = runtime.overrideFor(group, now);
    if (!kinds) continue;
    const kind = override?.kind ?? 'none';
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
}

function measureTicks(runtime: ScalingRuntime, setClock: (at: number) => void, groups: Group[]): TickResult {
  const result: TickResult = { cold: [], warm: [], minSamples: Number.POSITIVE_INFINITY };
  // Warm-up, not counted (JIT, statement cache), on other hours than the counted ticks.
  for (const at of tickInstants(WARMUP_TICKS, 7)) {
    setClock(at);
    evaluate(runtime, at);
  }
  const instants = tickInstants(TICKS, 0);
  for (const at of instants) {
    setClock(at);
    let started = performance.now();
    evaluate(runtime, at);
    result.cold.push(performance.now() - started);
    const later = at + MINUTE_MS;
    setClock(later);
    started = performance.now();
    evaluate(runtime, later);
    result.warm.push(performance.now() - started);
  }
  // Every prediction the ticks used saw its weeks of samples.
  const config = runtime.configs.get(groups[0]!.name)!;
  for (const at of instants.slice(0, 20)) {
    for (const group of groups) result.minSamples = Math.min(result.minSamples, runtime.predictionAt(group, runtime.configs.get(group.name) ?? config, at + config.warmup.leadTimeMinutes * MINUTE_MS).samples);
  }
  return result;
}

interface Breakdown {
  /** Per cold tick: ms in ScalingStore.playersBetween (the range queries and their rows), and the whole tick. */
  sqlMs: number[];
  tickMs: number[];
  queriesCold: number;
  queriesWarm: number;
  /** Intl.DateTimeFormat#formatToParts calls (the zone arithmetic of src/modules/scaling/zoned.ts) per tick. */
  partsCold: number;
  partsWarm: number;
  /** Which kind of override the groups got in the warm ticks. */
  kinds: Record<string, number>;
}

/**
 * Where a cold tick's time goes, in a separate pass after the measured ones (the counters cost a
 * little): time inside playersBetween, and how many formatToParts calls the zone arithmetic
 * makes. Also proves the measured ticks were what they claim: a cold tick queries every group's
 * weeks, a warm one nothing.
 */
function breakdown(runtime: ScalingRuntime, setClock: (at: number) => void): Breakdown {
  const store = runtime.store;
  const playersBetween = store.playersBetween;
  const proto = Intl.DateTimeFormat.prototype;
  const formatToParts = proto.formatToParts;
  let sql = 0;
  let queries = 0;
  let parts = 0;
  store.playersBetween = function (this: typeof store, ...args: Parameters<typeof playersBetween>) {
    const started = performance.now();
    try {
      return playersBetween.apply(this, args);
    } finally {
      sql += performance.now() - started;
      queries++;
    }
  };
  proto.formatToParts = function (this: Intl.DateTimeFormat, date?: Date | number) {
    parts++;
    return formatToParts.call(this, date);
  };
  const out: Breakdown = { sqlMs: [], tickMs: [], queriesCold: 0, queriesWarm: 0, partsCold: 0, partsWarm: 0, kinds: {} };
  try {
    const instants = tickInstants(40, 11);
    for (const at of instants) {
      sql = 0;
      queries = 0;
      parts = 0;
      setClock(at);
      const started = performance.now();
      evaluate(runtime, at);
      out.tickMs.push(performance.now() - started);
      out.sqlMs.push(sql);
      out.queriesCold = Math.max(out.queriesCold, queries);
      out.partsCold = Math.max(out.partsCold, parts);
      queries = 0;
      parts = 0;
      setClock(at + MINUTE_MS);
      evaluate(runtime, at + MINUTE_MS, out.kinds);
      out.queriesWarm = Math.max(out.queriesWarm, queries);
      out.partsWarm = Math.max(out.partsWarm, parts);
    }
  } finally {
    store.playersBetween = playersBetween;
    proto.formatToParts = formatToParts;
  }
  if (out.queriesCold !== GROUPS * PREDICTION_WEEKS || out.queriesWarm !== 0) throw new Error(`a cold tick made ${out.queriesCold} range queries (expected ${GROUPS * PREDICTION_WEEKS}), a warm one ${out.queriesWarm} (expected 0)`);
  return out;
}

function timed<T>(count: number, call: (i: number) => T, check?: (value: T, i: number) => void): number[] {
  for (let i = 0; i < Math.min(20, count); i++) call(count + i); // warm-up, not counted
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const value = call(i);
    out.push(performance.now() - started);
    check?.(value, i);
  }
  return out;
}

/** What one Intl.DateTimeFormat#formatToParts costs here, with the options zoned.ts uses. */
function formatToPartsUs(): number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: ZONES[0], hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  for (let i = 0; i < 2000; i++) format.formatToParts(T0 + i * 1000);
  const count = 50_000;
  const started = performance.now();
  for (let i = 0; i < count; i++) format.formatToParts(T0 + i * 1000);
  return ((performance.now() - started) * 1000) / count;
}

interface Row {
  figure: string;
  value: string;
  limit: string;
  ratio: string;
  goal: string;
  met: boolean;
}

const ms = (v: number): string => fixed(v, v < 1 ? 3 : 2);
const context = (figure: string, value: string, limit = '-'): Row => ({ figure, value, limit, ratio: '-', goal: '- (context)', met: true });

function printHeader(): void {
  let git = '?';
  try {
    const head = runQuick(['git', '-C', REPO, 'rev-parse', '--short', 'HEAD']);
    const dirty = runQuick(['git', '-C', REPO, 'status', '--porcelain', '--', 'src/modules/scaling', 'src/core/scaling', 'src/storage']);
    git = `${head}${dirty ? ' + uncommitted changes under src/modules/scaling, src/core/scaling or src/storage' : ''}`;
  } catch {
    /* not a git checkout */
  }
  const cpu = cpus();
  console.log(`== smart scaling: ${GROUPS} groups × ${DAYS} days of per-minute samples, in process ==`);
  console.log(`bench Bun  : ${Bun.version}+${Bun.revision.slice(0, 9)} (${process.execPath}); git ${git}`);
  console.log(`machine    : ${cpu.length} × ${cpu[0]?.model.trim() ?? '?'}, Linux ${release()}`);
  console.log(`data       : ${(DAYS * 1440 * GROUPS).toLocaleString('en')} samples from ${new Date(START).toISOString()} to ${new Date(T0).toISOString()}; zones ${ZONES.join(', ')}; ${STORE_DAYS} day(s) through addSamples, ${DAYS - STORE_DAYS} in bulk`);
  console.log(`runs       : ${TICKS} cold + ${TICKS} warm ticks (after ${WARMUP_TICKS} not counted), ${QUERIES} prediction queries, ${HISTORY_CALLS} history queries, ${SAMPLE_WRITES} sample writes`);
}

// ---------------------------------------------------------------------------------------------

if (import.meta.main) {
  runBench('scaling', benchTimeoutMs(1500), async () => {
    printHeader();
    console.log(loadLine('load before', await backgroundLoad()));
    console.log('');

    // The module samples every real minute at this clock: before the data, where no query of the bench looks.
    let clock = START - DAY_MS;
    const c: TestController = await startController({ scaling: { tickMs: 3_600_000, now: () => clock } });
    // The controller's dir is its own (startController's); removed on every way out.
    const removeDir = (): void => rmSync(c.dir, { recursive: true, force: true });
    process.on('exit', removeDir);
    try {
      const { kernel } = c.controller;
      // No tick may run: the schedules would start servers. The bench asks the module itself.
      kernel.scaling.stop();
      const runtime = scalingRuntimeOf(kernel);
      const dbFile = kernel.db.filename;
      if (!existsSync(dbFile)) throw new Error(`no database at ${dbFile}`);

      // The groups' files first, so each group finds its timetable when it is created; then the console's reload, as an operator would.
      for (let g = 0; g < GROUPS; g++) writeFileSync(join(c.dir, 'config', 'modules', 'scaling', `${groupName(g)}.toml`), rulesToml(g));
      for (let g = 0; g < GROUPS; g++) {
        const body = fakePaperGroup(groupName(g), { type: 'DYNAMIC', minInstances: 0, maxInstances: 10, playersPerInstance: PLAYERS_PER_INSTANCE, scaleThreshold: SCALE_THRESHOLD });
        const res = await c.api('/api/groups', { method: 'POST', json: body });
        if (res.status !== 201) throw new Error(`POST /api/groups ${groupName(g)}: ${res.status} ${await res.text()}`);
      }
      const reload = await c.api('/api/commands/scaling/execute', { method: 'POST', json: { args: ['reload'] } });
      const reloadText = await reload.text();
      if (reload.status !== 200 || !reloadText.includes(`${GROUPS} in use`)) throw new Error(`scaling reload: ${reload.status} ${reloadText.slice(0, 500)}`);
      const groups = kernel.groups.list();
      for (const group of groups) {
        const config = runtime.configs.get(group.name);
        if (!config?.enabled || config.rules.length !== 5 || !config.prediction.enabled) throw new Error(`${group.name}: its scaling file was not taken: ${JSON.stringify(config)}`);
      }

      const shares = hourShares();
      const random = rng(42);
      fillStarted = performance.now();
      await fillThroughStore(runtime, kernel.db, shares, random, 0, STORE_DAYS);
      const storeSeconds = (performance.now() - fillStarted) / 1000;
      const bulkStarted = performance.now();
      await fillInBulk(kernel.db, shares, random, STORE_DAYS, DAYS);
      const bulkSeconds = (performance.now() - bulkStarted) / 1000;
      const fillSeconds = storeSeconds + bulkSeconds;
      checkData(kernel.db);
      const samples = DAYS * 1440 * GROUPS;
      const storeRate = (STORE_DAYS * 1440 * GROUPS) / storeSeconds;
      const bulkRate = STORE_DAYS < DAYS ? ((DAYS - STORE_DAYS) * 1440 * GROUPS) / bulkSeconds : Number.NaN;
      const rateText = (rate: number): string => (Number.isFinite(rate) ? `${Math.round(rate).toLocaleString('en')} samples/s` : '-');
      console.log(`fill: ${samples.toLocaleString('en')} samples in ${fixed(fillSeconds, 1)} s; addSamples (a transaction per minute of ${GROUPS} groups) ${rateText(storeRate)} over ${STORE_DAYS} day(s), all ${DAYS} days that way ≈ ${fixed(samples / storeRate, 0)} s; bulk (a transaction per day) ${rateText(bulkRate)}; WAL checkpointed daily`);

      // Size before any query, with the WAL copied back and truncated.
      kernel.db.query('PRAGMA wal_checkpoint(TRUNCATE)').get();
      const walFile = `${dbFile}-wal`;
      const fileBytes = statSync(dbFile).size;
      const walBytes = existsSync(walFile) ? statSync(walFile).size : 0;
      const bytesPerSample = (fileBytes + walBytes) / samples;
      let tableBytes = '';
      try {
        const rows = kernel.db.query<{ name: string; bytes: number }, []>("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name IN ('scaling_samples', 'scaling_hourly') GROUP BY name").all();
        tableBytes = rows.map((r) => `${r.name} ${fixed(r.bytes / MIB, 1)} MiB`).join(', ');
      } catch {
        /* dbstat not compiled in */
      }

      const setClock = (at: number): void => {
        clock = at;
      };
      const ticks = measureTicks(runtime, setClock, groups);
      if (FULL_WEEKS && ticks.minSamples !== PREDICTION_WEEKS * 60) throw new Error(`a prediction saw ${ticks.minSamples} samples; with ${DAYS} days each should see ${PREDICTION_WEEKS * 60}`);

      const queryInstants = tickInstants(QUERIES + 20, 3);
      const predictions = timed(
        QUERIES,
        (i) => {
          clock = queryInstants[i % queryInstants.length]!;
          return predictionsView(runtime, groupName(i % GROUPS));
        },
        (view) => {
          if (view.predictions.length !== 6) throw new Error(`predictionsView answered ${view.predictions.length} hours`);
          if (FULL_WEEKS && view.predictions.some((p) => p.dataPoints !== PREDICTION_WEEKS * 60)) throw new Error(`predictionsView: ${JSON.stringify(view.predictions.map((p) => p.dataPoints))} data points, expected ${PREDICTION_WEEKS * 60} each`);
        },
      );
      const split = breakdown(runtime, setClock);
      clock = T0 - MINUTE_MS; // the last minute of the data: the 2,160 hours back to its first
      const expectedHours = Math.min(2160, DAYS * 24);
      const history = timed(
        HISTORY_CALLS,
        (i) => historyView(runtime, groupName(i % GROUPS), 2160),
        (view) => {
          if (view.snapshots.length !== expectedHours) throw new Error(`historyView answered ${view.snapshots.length} hours, expected ${expectedHours}`);
        },
      );
      // One minute of samples for every group, after the data, into the full tables.
      const writeRows = minuteRows(0, hourShares(), rng(7));
      const writes = timed(SAMPLE_WRITES, (i) => runtime.store.addSamples(T0 + 10 * DAY_MS + i * MINUTE_MS, writeRows));

      const coldMedian = median(ticks.cold);
      const rows: Row[] = [
        {
          figure: `evaluation tick, cold (${GROUPS} groups, ms): median`,
          value: ms(coldMedian),
          limit: `${GOAL.coldTickMs} (goal)`,
          ratio: fixed(coldMedian / GOAL.coldTickMs, 2),
          goal: '≤ 1.00',
          met: coldMedian <= GOAL.coldTickMs,
        },
        context('  p99 / max', `${ms(percentile(ticks.cold, 99))} / ${ms(max(ticks.cold))}`),
        context('  per group (median)', ms(coldMedian / GROUPS)),
        context(
          '  of which in playersBetween (SQL)',
          `${ms(median(split.sqlMs))} (${fixed((100 * median(split.sqlMs)) / median(split.tickMs), 0)} %)`,
          `${split.queriesCold} range queries, ${fixed((1000 * median(split.sqlMs)) / split.queriesCold, 1)} µs each`,
        ),
        context('  zone arithmetic: formatToParts calls', `${split.partsCold} cold / ${split.partsWarm} warm`, `≈ ${fixed(formatToPartsUs(), 2)} µs each`),
        context(`evaluation tick, warm (${GROUPS} groups, ms): median`, ms(median(ticks.warm))),
        context('  p99 / max', `${ms(percentile(ticks.warm, 99))} / ${ms(max(ticks.warm))}`),
        context('prediction query, 6 h × 4 weeks (ms): p50', ms(percentile(predictions, 50))),
        context('  p99 / max', `${ms(percentile(predictions, 99))} / ${ms(max(predictions))}`),
        context('history query 2160 h (ms): p50', ms(percentile(history, 50))),
        context('  p99 / max', `${ms(percentile(history, 99))} / ${ms(max(history))}`),
        context(`sample write, ${GROUPS} groups (ms): p50`, ms(percentile(writes, 50))),
        context('  p99 / max', `${ms(percentile(writes, 99))} / ${ms(max(writes))}`),
        {
          figure: 'database size: bytes per sample',
          value: fixed(bytesPerSample, 1),
          limit: `${GOAL.bytesPerSample} (limit)`,
          ratio: fixed(bytesPerSample / GOAL.bytesPerSample, 2),
          goal: '≤ 1.00',
          met: bytesPerSample <= GOAL.bytesPerSample,
        },
        context('  file + WAL after checkpoint (MiB)', `${fixed(fileBytes / MIB, 1)} + ${fixed(walBytes / MIB, 1)}`, tableBytes || '-'),
        context('fill (s)', fixed(fillSeconds, 1), `${STORE_DAYS} d addSamples + ${DAYS - STORE_DAYS} d bulk`),
        context('  addSamples (samples/s)', rateText(storeRate).replace(' samples/s', ''), `all ${DAYS} d ≈ ${fixed(samples / storeRate, 0)} s`),
        context('  bulk, a transaction per day (samples/s)', rateText(bulkRate).replace(' samples/s', '')),
      ];
      console.log('');
      console.log(`overrides the groups got in ${split.tickMs.length} warm ticks: ${Object.entries(split.kinds).map(([k, n]) => `${k} ${n}`).join(', ')}; fewest samples behind a prediction: ${ticks.minSamples}`);
      console.log('');
      console.log(formatTable(['figure', 'value', 'peer / limit', 'ratio', 'goal', 'met'], rows.map((r) => [r.figure, r.value, r.limit, r.ratio, r.goal, r.met ? 'yes' : 'NO'])));
      console.log(loadLine('load after ', await backgroundLoad()));
      if (process.env.BENCH_ENFORCE === '1' && rows.some((r) => !r.met)) throw new Error('a smart scaling goal was missed (BENCH_ENFORCE=1)');
    } finally {
      await c.stop();
      process.off('exit', removeDir);
    }
  });
}
