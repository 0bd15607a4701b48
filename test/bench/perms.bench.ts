/**
 * The permissions module at size: 100 groups × 1,000 nodes (wildcards, negations, chains of
 * parents, weights), 10,000 players each in two groups besides the default.
 *
 * Through the compiled binary (every request beside its peer GET /api/health in the same run):
 *   1. joins: PUT /api/permissions/players/{uuid} {name} as the bridge sends it, for 10,000
 *      new players (registered into the default group), then again once they hold their two
 *      groups (the answer carries ~4,000 effective nodes), 4 in flight;
 *   2. GET /api/permissions/check/{uuid}/{node} open loop at 5,000 checks/s (each request has
 *      its due time; latency counts from then), random players and nodes (held, wildcard-
 *      covered, negated and unknown ones), then GET /api/health at the same rate; each after
 *      2 s at that rate that are not counted.
 * In process (the resolver alone, no HTTP, same data):
 *   3. cold resolve: a player's counting groups, their scoped rows and one decision, with
 *      nothing cached, p50/p99;
 *   4. cached checks per second over 1,000 players × 100 nodes already decided.
 * Goals: check p99 ≤ 2 ms over HTTP; ≥ 1,000,000 cached checks/s; cold resolve p99 ≤ 1 ms;
 * join p99 ≤ 5 ms.
 *
 *   bun run bench perms
 *   BENCH_PERMS_SECONDS=10 BENCH_PERMS_RATE=5000 BENCH_ENFORCE=1
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../src/log';
import { EventBus } from '../../src/events/bus';
import type { Kernel } from '../../src/kernel';
import { permsModule } from '../../src/modules/perms';
import { resolve, allows } from '../../src/modules/perms/resolve';
import { SYSTEM } from '../../src/modules/perms/author';
import { PermsRuntime } from '../../src/modules/perms/runtime';
import { openDatabase } from '../../src/storage/db';
import { migrate } from '../../src/storage/migrate';
import { benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, freePort, makeTempDir, median, pacedGets, percentile, printSetup, resolveSvcBinary, runBench, type PacedResult } from './lib';

const SECONDS = envNumber('BENCH_PERMS_SECONDS', 10);
const RATE = envNumber('BENCH_PERMS_RATE', 5000);
const WARMUP_SECONDS = 2;
const GROUPS = 100;
const NODES = 1000;
const PLAYERS = envNumber('BENCH_PERMS_PLAYERS', 10_000);
const JOIN_CONCURRENCY = 4;
const TOKEN = 'bench-perms-token-0123456789abcdef';
const GOAL = { checkP99: 2, cachedPerSecond: 1_000_000, coldP99: 1, joinP99: 5 };

const uuidOf = (i: number) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
const groupName = (g: number) => `G${g}`;
/** The two groups player i holds besides the default. */
const groupsOf = (i: number) => [i % GROUPS, (i * 7 + 3) % GROUPS];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Group g: 1,000 nodes in 10 categories, a wildcard, a negation of its parent's node; parents in chains of four; weights 0..40. */
function groupBody(g: number) {
  const permissions = Array.from({ length: NODES - 2 }, (_, j) => `g${g}.cat${j % 10}.node${j}`);
  permissions.push(`g${g}.cat9.*`, g > 0 ? `-g${g - 1}.cat1.node1` : '-nothing.at.all');
  return { permissions, parents: g % 4 === 0 ? [] : [groupName(g - 1)], weight: (g % 5) * 10, priority: g, prefix: `[G${g}] ` };
}

/** A node to ask about: held, covered by a wildcard, negated by a child group, or unknown. */
function nodeFor(random: () => number, i: number): string {
  const [a] = groupsOf(i);
  const roll = random();
  const j = Math.floor(random() * (NODES - 2));
  if (roll < 0.4) return `g${a}.cat${j % 10}.node${j}`;
  if (roll < 0.6) return `g${a}.cat9.extra${j}`;
  if (roll < 0.7) return `g${Math.max(a! - 1, 0)}.cat1.node1`;
  return `unknown.node${j}`;
}

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** Open loop at RATE with the bench's credential. */
const paced = (url: string, paths: readonly string[], seconds = SECONDS) => pacedGets(url, paths, { rate: RATE, seconds, headers });

async function call(url: string, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

/** `count` requests with `concurrency` in flight; latency of each. */
async function closedLoop(count: number, concurrency: number, request: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const started = performance.now();
        await request(i);
        out.push(performance.now() - started);
      }
    }),
  );
  return out;
}


interface HttpResult {
  firstJoin: number[];
  rejoin: number[];
  rejoinBytes: number;
  check: PacedResult;
  health: PacedResult;
  setupSeconds: number;
  allowedShare: number;
}

async function overHttp(binary: string): Promise<HttpResult> {
  const dir = makeTempDir('svc-bench-perms-');
  const port = freePort();
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = ${port}\ntoken = "${TOKEN}"\nrate_limit = 0\nservice_rate_limit = 0\n`);
  const child = new Child('svc (perms module)', [binary, '--dir', dir], { env: childEnv({ SVC_LOG_FORMAT: 'json' }) });
  try {
    await child.waitForLine((l) => (l.includes('API listening') ? true : undefined), 20_000, 'API listening');
    const url = `http://127.0.0.1:${port}`;
    const setupStarted = performance.now();
    for (let g = 0; g < GROUPS; g++) await call(url, 'POST', '/api/permissions/groups', { name: groupName(g) });
    for (let g = 0; g < GROUPS; g++) await call(url, 'PUT', `/api/permissions/groups/${groupName(g)}`, groupBody(g));
    const setupSeconds = (performance.now() - setupStarted) / 1000;

    const join = (i: number) => call(url, 'PUT', `/api/permissions/players/${uuidOf(i)}`, { name: `P${i}` });
    const firstJoin = await closedLoop(PLAYERS, JOIN_CONCURRENCY, async (i) => void (await (await join(i)).arrayBuffer()));
    for (let g = 0; g < GROUPS; g++) {
      const players = [];
      for (let i = 0; i < PLAYERS; i++) if (groupsOf(i).includes(g)) players.push(uuidOf(i));
      await call(url, 'POST', '/api/permissions/bulk/groups', { players, group: groupName(g) });
    }
    let rejoinBytes = 0;
    const rejoin = await closedLoop(PLAYERS, JOIN_CONCURRENCY, async (i) => void (rejoinBytes = Math.max(rejoinBytes, (await (await join(i)).arrayBuffer()).byteLength)));

    const random = rng(7);
    const paths = Array.from({ length: 50_000 }, () => {
      const i = Math.floor(random() * PLAYERS);
      return `/api/permissions/check/${uuidOf(i)}/${nodeFor(random, i)}`;
    });
    let allowed = 0;
    for (const path of paths.slice(0, 500)) if (((await (await call(url, 'GET', path)).json()) as { allowed: boolean }).allowed) allowed++;
    // Each phase runs WARMUP_SECONDS at the same rate first, not counted (JIT, caches, the join phase's garbage).
    await paced(url, paths, WARMUP_SECONDS);
    const check = await paced(url, paths);
    await paced(url, ['/api/health'], WARMUP_SECONDS);
    const health = await paced(url, ['/api/health']);
    return { firstJoin, rejoin, rejoinBytes, check, health, setupSeconds, allowedShare: allowed / 500 };
  } finally {
    await child.stop();
  }
}

const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child: () => quiet } as unknown as Logger;

/** The same data in process: the resolver alone. */
function inProcess(): { cold: number[]; cachedPerSecond: number[] } {
  const dir = makeTempDir('svc-bench-perms-inproc-');
  const db = openDatabase(join(dir, 'svc.db'));
  migrate(db, 'perms', permsModule.migrations!);
  const kernel = { db, bus: new EventBus() } as unknown as Kernel;
  const runtime = new PermsRuntime(kernel, quiet);
  for (let g = 0; g < GROUPS; g++) runtime.groups.create(groupName(g), false, SYSTEM);
  for (let g = 0; g < GROUPS; g++) runtime.groups.update(groupName(g), groupBody(g), SYSTEM);
  for (let i = 0; i < PLAYERS; i++) runtime.players.register(uuidOf(i), `P${i}`, {}, SYSTEM);
  for (let g = 0; g < GROUPS; g++) {
    const players = [];
    for (let i = 0; i < PLAYERS; i++) if (groupsOf(i).includes(g)) players.push(uuidOf(i));
    runtime.bulk.addGroup(players, groupName(g), {}, SYSTEM);
  }

  const random = rng(11);
  const now = Date.now();
  const cold: number[] = [];
  for (let n = 0; n < 5000; n++) {
    const i = Math.floor(random() * PLAYERS);
    const node = nodeFor(random, i);
    const player = runtime.state.player(uuidOf(i));
    const started = performance.now();
    allows(resolve(runtime.state.snapshot(), player, {}, now).shared, node);
    cold.push(performance.now() - started);
  }

  const questions = Array.from({ length: 1000 * 100 }, (_, n) => {
    const i = Math.floor(n / 100) * 7;
    return { uuid: uuidOf(i % PLAYERS), node: nodeFor(random, i % PLAYERS) };
  });
  const where = {};
  for (const q of questions) runtime.players.check(q.uuid, q.node, where);
  const cachedPerSecond: number[] = [];
  for (let round = 0; round < 7; round++) {
    let done = 0;
    const started = performance.now();
    while (performance.now() - started < 300) {
      for (const q of questions) runtime.players.check(q.uuid, q.node, where);
      done += questions.length;
    }
    cachedPerSecond.push(done / ((performance.now() - started) / 1000));
  }
  runtime.stop();
  db.close();
  return { cold, cachedPerSecond };
}

runBench('perms', benchTimeoutMs(900), async () => {
  const svc = await resolveSvcBinary();
  printSetup(`perms: ${GROUPS} groups × ${NODES} nodes, ${PLAYERS} players; checks at ${RATE}/s for ${SECONDS} s`, svc);
  const http = await overHttp(svc.path);
  const local = inProcess();
  const ms = (v: number) => fixed(v, 2);
  const c = http.check.latencies;
  const h = http.health.latencies;
  console.log(`setup: ${GROUPS} groups filled over HTTP in ${fixed(http.setupSeconds, 1)} s; ${fixed(http.allowedShare * 100, 0)} % of sampled checks allowed; largest join answer ${fixed(http.rejoinBytes / 1024, 0)} KiB\n`);
  console.log(
    formatTable(
      ['figure', 'perms', 'peer', 'ratio', 'goal'],
      [
        [`GET /check p50 at ${RATE}/s (ms) | peer: GET /health`, ms(median(c)), ms(median(h)), fixed(median(c) / median(h), 2), ''],
        [`GET /check p99 at ${RATE}/s (ms) | peer: GET /health`, ms(percentile(c, 99)), ms(percentile(h, 99)), fixed(percentile(c, 99) / percentile(h, 99), 2), `≤ ${GOAL.checkP99}`],
        ['checks not answered 200', String(http.check.failed), String(http.health.failed), '', '0'],
        [`paced phase took (s, due ${SECONDS})`, fixed(http.check.seconds, 1), fixed(http.health.seconds, 1), '', ''],
        ['PUT /players (new player) p50 / p99 (ms)', `${ms(median(http.firstJoin))} / ${ms(percentile(http.firstJoin, 99))}`, '', '', `p99 ≤ ${GOAL.joinP99}`],
        ['PUT /players (two groups held) p50 / p99 (ms)', `${ms(median(http.rejoin))} / ${ms(percentile(http.rejoin, 99))}`, '', '', `p99 ≤ ${GOAL.joinP99}`],
        ['resolver: cold resolve + decide p50 / p99 (ms)', `${fixed(median(local.cold), 3)} / ${fixed(percentile(local.cold, 99), 3)}`, '', '', `p99 ≤ ${GOAL.coldP99}`],
        ['resolver: cached checks/s (median of 7)', fixed(median(local.cachedPerSecond), 0), '', fixed(median(local.cachedPerSecond) / GOAL.cachedPerSecond, 1), `≥ ${GOAL.cachedPerSecond}`],
      ],
    ),
  );
  if (http.check.failed > 0) throw new Error(`${http.check.failed} checks failed`);
  const missed =
    percentile(c, 99) > GOAL.checkP99 ||
    median(local.cachedPerSecond) < GOAL.cachedPerSecond ||
    percentile(local.cold, 99) > GOAL.coldP99 ||
    percentile(http.firstJoin, 99) > GOAL.joinP99 ||
    percentile(http.rejoin, 99) > GOAL.joinP99;
  if (process.env.BENCH_ENFORCE === '1' && missed) throw new Error('a goal was missed');
});
