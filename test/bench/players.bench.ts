/**
 * The players module under load, through the compiled binary, beside its peer in the same run:
 * the same binary with no module installed (core's in-memory roster only).
 *
 *   1. preload: 10,000 players connect (PLAYER_CONNECTED over 20 services);
 *   2. load: 1,000 proxy events/s for 30 s, open loop (each event has its send time; latency
 *      counts from then, so a stall is not hidden): 50 % switches, 25 % disconnects, 25 %
 *      connects, keeping about 10,000 online, while a dashboard asks GET /api/players/online
 *      once a second (BENCH_PLAYERS_POLL_MS). The session row is committed before the answer,
 *      so the POST's latency bounds event → session row;
 *   3. GET /api/players/online at 10,000 online, quiet, beside GET /api/health (the floor of
 *      one request);
 *   4. 0 events lost: every POST 200, and the session rows in the sqlite file are exactly the
 *      sessions the events opened, the open ones exactly the players online;
 *   5. RSS of the controller after the preload and after the load.
 * Also in process: the module's own cost of one event (bus → row), without HTTP.
 * Goals: event → row p99 ≤ 5 ms; GET /online p99 ≤ 5 ms at 10,000 online.
 *
 *   bun run bench players
 *   BENCH_PLAYERS_SECONDS=30 BENCH_PLAYERS_RATE=1000 BENCH_PLAYERS_ONLINE=10000 BENCH_ENFORCE=1
 */
import { Database } from 'bun:sqlite';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PlayerSessions } from '../../src/modules/players/sessions';
import { PlayerStore } from '../../src/modules/players/store';
import { playersModule } from '../../src/modules/players';
import { openDatabase } from '../../src/storage/db';
import { migrate } from '../../src/storage/migrate';
import {
  benchTimeoutMs,
  Child,
  childEnv,
  envNumber,
  fixed,
  formatTable,
  freePort,
  makeTempDir,
  median,
  percentile,
  printSetup,
  readRssKiB,
  resolveSvcBinary,
  runBench,
} from './lib';

const SECONDS = envNumber('BENCH_PLAYERS_SECONDS', 30);
const RATE = envNumber('BENCH_PLAYERS_RATE', 1000);
const ONLINE = envNumber('BENCH_PLAYERS_ONLINE', 10_000);
const SERVICES = 20;
/** How often GET /api/players/online is asked during the load: a dashboard page refreshing once a second. */
const POLL_MS = envNumber('BENCH_PLAYERS_POLL_MS', 1000);
const TOKEN = 'bench-players-token-0123456789abcdef';
const GOAL_MS = 5;

const uuidOf = (i: number) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
const service = (i: number) => `Lobby-${(i % SERVICES) + 1}`;

/** Deterministic pseudo-random numbers, so both controllers get the very same events. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type ProxyEvent = { type: 'PLAYER_CONNECTED' | 'PLAYER_DISCONNECTED'; player: string; uuid: string; service: string } | { type: 'PLAYER_SERVER_SWITCH'; player: string; uuid: string; fromService: string; toService: string };

/** The event stream, and the session rows and open sessions it must leave. */
function plan(): { preload: ProxyEvent[]; load: ProxyEvent[]; sessions: number; open: number } {
  const random = rng(42);
  const where = new Map<number, string>();
  let next = 0;
  let sessions = 0;
  const connect = (): ProxyEvent => {
    const i = next++;
    const to = service(Math.floor(random() * SERVICES));
    where.set(i, to);
    sessions++;
    return { type: 'PLAYER_CONNECTED', player: `P${i}`, uuid: uuidOf(i), service: to };
  };
  const preload = Array.from({ length: ONLINE }, connect);
  const online = [...where.keys()];
  const pick = () => {
    const k = Math.floor(random() * online.length);
    return { k, i: online[k]! };
  };
  const load: ProxyEvent[] = [];
  for (let n = 0; n < SECONDS * RATE; n++) {
    const roll = random();
    if (roll < 0.5 || online.length === 0) {
      const { i } = pick();
      const from = where.get(i)!;
      let to = service(Math.floor(random() * SERVICES));
      if (to === from) to = service(Number(from.slice(6)) % SERVICES);
      where.set(i, to);
      sessions++;
      load.push({ type: 'PLAYER_SERVER_SWITCH', player: `P${i}`, uuid: uuidOf(i), fromService: from, toService: to });
    } else if (roll < 0.75) {
      const { k, i } = pick();
      online[k] = online[online.length - 1]!;
      online.pop();
      load.push({ type: 'PLAYER_DISCONNECTED', player: `P${i}`, uuid: uuidOf(i), service: where.get(i)! });
      where.delete(i);
    } else {
      const event = connect();
      online.push(next - 1);
      load.push(event);
    }
  }
  return { preload, load, sessions, open: where.size };
}

interface Controller {
  child: Child;
  url: string;
  dir: string;
}

async function startController(binary: string, withModules: boolean): Promise<Controller> {
  const dir = makeTempDir(`svc-bench-players-${withModules ? 'module' : 'core'}-`);
  const port = freePort();
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = ${port}\ntoken = "${TOKEN}"\nrate_limit = 0\nservice_rate_limit = 0\n`);
  // An empty modules/ folder: this is not a first start, so nothing gets installed.
  if (!withModules) mkdirSync(join(dir, 'modules'));
  const child = new Child(withModules ? 'svc (players module)' : 'svc (core only)', [binary, '--dir', dir], { env: childEnv({ SVC_LOG_FORMAT: 'json' }) });
  await child.waitForLine((l) => (l.includes('API listening') ? true : undefined), 20_000, 'API listening');
  return { child, url: `http://127.0.0.1:${port}`, dir };
}

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

async function postEvent(url: string, event: ProxyEvent): Promise<number> {
  const res = await fetch(`${url}/api/proxy/events`, { method: 'POST', headers, body: JSON.stringify(event) });
  await res.arrayBuffer();
  return res.status;
}

/** Sends `events` with `concurrency` in flight, as fast as the controller takes them. */
async function burst(url: string, events: readonly ProxyEvent[], concurrency = 32): Promise<number> {
  let failed = 0;
  let index = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (index < events.length) {
        const event = events[index++]!;
        if ((await postEvent(url, event)) !== 200) failed++;
      }
    }),
  );
  return failed;
}

/** Open loop: event n is due at start + n / RATE; its latency counts from then. */
async function paced(url: string, events: readonly ProxyEvent[], onTick: () => void): Promise<{ latencies: number[]; failed: number; seconds: number }> {
  const latencies: number[] = [];
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  // A bridge reports one player's events in order: the next waits for the previous answer.
  const lastOf = new Map<string, Promise<void>>();
  const start = performance.now();
  let sent = 0;
  let lastTick = start;
  while (sent < events.length) {
    const now = performance.now();
    const due = Math.min(events.length, Math.floor(((now - start) / 1000) * RATE) + 1);
    for (; sent < due; sent++) {
      const dueAt = start + (sent / RATE) * 1000;
      const event = events[sent]!;
      const posted = (lastOf.get(event.uuid) ?? Promise.resolve())
        .then(() => postEvent(url, event))
        .then((status) => {
          latencies.push(performance.now() - dueAt);
          if (status !== 200) failed++;
        });
      lastOf.set(event.uuid, posted);
      inFlight.push(posted);
    }
    if (now - lastTick >= POLL_MS) {
      lastTick = now;
      onTick();
    }
    await Bun.sleep(1);
  }
  await Promise.all(inFlight);
  return { latencies, failed, seconds: (performance.now() - start) / 1000 };
}

async function timedGets(url: string, path: string, runs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs + 10; i++) {
    const started = performance.now();
    const res = await fetch(url + path, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
    if (i >= 10) out.push(performance.now() - started);
  }
  return out;
}

interface Result {
  label: string;
  eventP50: number;
  eventP99: number;
  eventMax: number;
  failed: number;
  seconds: number;
  rssPreloadMiB: number;
  rssAfterMiB: number;
  rssBaseMiB: number;
  onlineP50?: number;
  onlineP99?: number;
  onlineUnderLoadP99?: number;
  healthP99: number;
  rows?: { sessions: number; open: number };
}

async function measure(binary: string, withModules: boolean, events: ReturnType<typeof plan>): Promise<Result> {
  const c = await startController(binary, withModules);
  const rssBase = readRssKiB(c.child.pid);
  const preloadFailed = await burst(c.url, events.preload);
  const rssPreload = readRssKiB(c.child.pid);
  const underLoad: number[] = [];
  const run = await paced(c.url, events.load, () => {
    if (!withModules) return;
    const started = performance.now();
    void fetch(`${c.url}/api/players/online`, { headers }).then((r) => r.arrayBuffer()).then(() => underLoad.push(performance.now() - started));
  });
  Bun.gc(true);
  const rssAfter = readRssKiB(c.child.pid);
  const result: Result = {
    label: c.child.label,
    eventP50: median(run.latencies),
    eventP99: percentile(run.latencies, 99),
    eventMax: Math.max(...run.latencies),
    failed: preloadFailed + run.failed,
    seconds: run.seconds,
    rssBaseMiB: rssBase / 1024,
    rssPreloadMiB: rssPreload / 1024,
    rssAfterMiB: rssAfter / 1024,
    healthP99: percentile(await timedGets(c.url, '/api/health', 200), 99),
  };
  if (withModules) {
    const online = await timedGets(c.url, '/api/players/online', 200);
    result.onlineP50 = median(online);
    result.onlineP99 = percentile(online, 99);
    result.onlineUnderLoadP99 = underLoad.length > 0 ? percentile(underLoad, 99) : undefined;
    const db = new Database(join(c.dir, 'data', 'svc.db'), { readonly: true });
    try {
      result.rows = {
        sessions: db.query<{ n: number }, []>('SELECT count(*) AS n FROM player_sessions').get()!.n,
        open: db.query<{ n: number }, []>('SELECT count(*) AS n FROM player_sessions WHERE disconnected_at IS NULL').get()!.n,
      };
    } finally {
      db.close();
    }
  }
  await c.child.stop();
  return result;
}

/** The module's own cost per event, in process: bus-free, HTTP-free, one sqlite file. */
function inProcess(events: ReturnType<typeof plan>): number[] {
  const dir = makeTempDir('svc-bench-players-inproc-');
  const db = openDatabase(join(dir, 'svc.db'));
  migrate(db, 'players', playersModule.migrations!);
  const sessions = new PlayerSessions(new PlayerStore(db), () => 'Lobby');
  let now = Date.now();
  for (const e of events.preload) if (e.type === 'PLAYER_CONNECTED') sessions.arrive(e.uuid, e.player, e.service, now);
  const out: number[] = [];
  for (const e of events.load) {
    now += 1;
    const started = performance.now();
    if (e.type === 'PLAYER_SERVER_SWITCH') sessions.arrive(e.uuid, e.player, e.toService, now);
    else if (e.type === 'PLAYER_CONNECTED') sessions.arrive(e.uuid, e.player, e.service, now);
    else sessions.leave(e.uuid, now);
    out.push(performance.now() - started);
  }
  db.close();
  return out;
}

runBench('players', benchTimeoutMs(900), async () => {
  const svc = await resolveSvcBinary();
  printSetup(`players: ${ONLINE} online, ${RATE} proxy events/s for ${SECONDS} s; the players module vs core only`, svc);
  const events = plan();
  console.log(`events: ${events.preload.length} preload connects, ${events.load.length} paced; expected ${events.sessions} session rows, ${events.open} open at the end\n`);

  const module = await measure(svc.path, true, events);
  const core = await measure(svc.path, false, events);
  const local = inProcess(events);

  const ms = (v: number | undefined) => (v === undefined ? '–' : fixed(v, 2));
  console.log(
    formatTable(
      ['figure', 'players module', 'peer: core only', 'ratio', `goal`],
      [
        ['event → session row p50 (ms, HTTP)', ms(module.eventP50), ms(core.eventP50), fixed(module.eventP50 / core.eventP50, 2), ''],
        ['event → session row p99 (ms, HTTP)', ms(module.eventP99), ms(core.eventP99), fixed(module.eventP99 / core.eventP99, 2), `≤ ${GOAL_MS}`],
        ['event max (ms)', ms(module.eventMax), ms(core.eventMax), '', ''],
        ['events not answered 200', String(module.failed), String(core.failed), '', '0'],
        [`paced phase took (s, due ${SECONDS})`, fixed(module.seconds, 1), fixed(core.seconds, 1), '', ''],
        ['GET /api/players/online p50 (ms)', ms(module.onlineP50), '', '', ''],
        ['GET /api/players/online p99 (ms)', ms(module.onlineP99), `health p99 ${ms(module.healthP99)}`, fixed((module.onlineP99 ?? 0) / module.healthP99, 1), `≤ ${GOAL_MS}`],
        ['GET /api/players/online p99 under load (ms)', ms(module.onlineUnderLoadP99), '', '', ''],
        ['RSS at start (MiB)', fixed(module.rssBaseMiB), fixed(core.rssBaseMiB), '', ''],
        ['RSS after preload (MiB)', fixed(module.rssPreloadMiB), fixed(core.rssPreloadMiB), '', ''],
        ['RSS after load (MiB)', fixed(module.rssAfterMiB), fixed(core.rssAfterMiB), '', ''],
        ['RSS growth start → after load (MiB)', fixed(module.rssAfterMiB - module.rssBaseMiB), fixed(core.rssAfterMiB - core.rssBaseMiB), '', ''],
        ['session rows (expected)', `${module.rows?.sessions} (${events.sessions})`, '', '', 'equal'],
        ['open sessions (expected)', `${module.rows?.open} (${events.open})`, '', '', 'equal'],
        ['in process: one event p50 / p99 (ms)', `${fixed(median(local), 3)} / ${fixed(percentile(local, 99), 3)}`, '', '', ''],
      ],
    ),
  );

  const lost = module.failed > 0 || module.rows?.sessions !== events.sessions || module.rows?.open !== events.open;
  if (lost) throw new Error(`events lost: ${module.failed} failed posts; rows ${module.rows?.sessions}/${events.sessions}, open ${module.rows?.open}/${events.open}`);
  if (process.env.BENCH_ENFORCE === '1' && (module.eventP99 > GOAL_MS || (module.onlineP99 ?? 0) > GOAL_MS)) throw new Error('a goal was missed');
});
