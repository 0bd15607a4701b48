/**
 * The punishments module at size: 100,000 stored punishments (bans, temporary bans, IP bans,
 * mutes, some scoped to a group or a service, warnings and kicks, revoked and expired ones),
 * written straight into the controller's sqlite file between a first start (which creates the
 * table) and a second one (which loads the records in force into memory).
 *
 * Through the compiled binary, with the derived service token the plugins hold:
 *   1. GET /api/punishments/check/{uuid}?ip=&group=&service= open loop at 5,000 checks/s (each
 *      request has its due time; latency counts from then): half punished players, half never
 *      punished, some from banned addresses, 30 % as the login check (ip only) and 70 % as the
 *      server-switch check; the warm-up and the counted phase ask different players, so the
 *      5 s answer cache helps only as much as it would in a network. Then GET /api/health at
 *      the same rate: the floor of one request on this machine, in the same run;
 *   2. the dashboard's reads at that size: ?active=true&limit=500, ?active=false&limit=500,
 *      /player/{uuid}?limit=50;
 *   3. start-up time and RSS of the controller with 100,000 records against the same
 *      controller with none.
 * In process (the same records read back from the file, no HTTP):
 *   4. CheckAnswers login and chat checks per second, answer cache off (ttl 0) and on;
 *   5. heap held by an ActiveIndex of the records in force, bytes per record.
 * Goal: check p99 ≤ 2 ms over HTTP. Exits non-zero when any check is not answered 200 or the
 * controller does not hold exactly the records in force (BENCH_ENFORCE=1: also on a missed goal).
 *
 *   bun run bench punishments
 *   BENCH_PUNISHMENTS_SECONDS=10 BENCH_PUNISHMENTS_RATE=5000 BENCH_PUNISHMENTS_RECORDS=100000 BENCH_ENFORCE=1
 */
import { Database } from 'bun:sqlite';
import { heapStats } from 'bun:jsc';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveServiceToken } from '../../src/core/auth';
import { ActiveIndex } from '../../src/modules/punishments/active-index';
import { CheckAnswers } from '../../src/modules/punishments/checks';
import { MESSAGE_DEFAULTS, type MessageTemplates } from '../../src/modules/punishments/messages';
import type { PunishmentType, Scope } from '../../src/modules/punishments/model';
import type { Where } from '../../src/modules/punishments/precedence';
import { PunishmentStore, type NewPunishment } from '../../src/modules/punishments/store';
import { openDatabase } from '../../src/storage/db';
import { backgroundLoad, benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, freePort, loadLine, makeTempDir, median, pacedGets, percentile, printSetup, readRssKiB, resolveSvcBinary, runBench, type PacedResult } from './lib';

const SECONDS = envNumber('BENCH_PUNISHMENTS_SECONDS', 10);
const RATE = envNumber('BENCH_PUNISHMENTS_RATE', 5000);
const RECORDS = envNumber('BENCH_PUNISHMENTS_RECORDS', 100_000);
const WARMUP_SECONDS = 2;
const GROUPS = 20;
const SERVERS_PER_GROUP = 5;
const TOKEN = 'bench-punishments-token-0123456789abcdef';
const SERVICE_TOKEN = deriveServiceToken(TOKEN);
const GOAL = { checkP99: 2 };
const DAY = 86_400_000;

/** Players 0..PUNISHED-1 hold the records (a tenth of the records are a second one on a player); others were never punished. */
const PUNISHED = Math.floor(RECORDS * 0.9);
const uuidOf = (p: number) => `${p.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
const cleanUuidOf = (k: number) => `${k.toString(16).padStart(8, '0')}-0000-4000-8000-0000000000ff`;
const bannedIpOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const groupName = (g: number) => `G${g}`;
const serverName = (g: number, n: number) => `G${g}-${n}`;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Seed extends NewPunishment {
  revokedBy: string | null;
  revokedAt: number | null;
  revokeReason: string | null;
}

/**
 * The stored records, deterministic: 35 % permanent bans, 10 % bans with an end, 10 % TEMPBANs,
 * 15 % mutes, 8 % TEMPMUTEs, 5 % IP bans (all in force; a fifth of the bans and mutes scoped to
 * a group or a server), 5 % warnings and kicks, 6 % revoked, 6 % expired.
 */
function seeds(now: number): { records: Seed[]; bannedIps: string[] } {
  const random = rng(42);
  const records: Seed[] = [];
  const bannedIps: string[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const player = i < PUNISHED ? i : (i * 7) % PUNISHED;
    const roll = random();
    const issuedAt = now - Math.floor(random() * 365 * DAY);
    const future = now + 3_600_000 + Math.floor(random() * 90 * DAY);
    let type: PunishmentType;
    let expiresAt: number | null = null;
    let active = true;
    let revoked = false;
    if (roll < 0.35) type = 'BAN';
    else if (roll < 0.45) [type, expiresAt] = ['BAN', future];
    else if (roll < 0.55) [type, expiresAt] = ['TEMPBAN', future];
    else if (roll < 0.7) type = 'MUTE';
    else if (roll < 0.78) [type, expiresAt] = ['TEMPMUTE', future];
    else if (roll < 0.83) type = 'IPBAN';
    else if (roll < 0.88) [type, active] = [random() < 0.7 ? 'WARN' : 'KICK', false];
    else if (roll < 0.94) [type, active, revoked] = [random() < 0.5 ? 'BAN' : 'MUTE', false, true];
    else [type, expiresAt, active] = [random() < 0.5 ? 'TEMPBAN' : 'TEMPMUTE', Math.min(now - 60_000, issuedAt + DAY), false];
    let scope: Scope = 'NETWORK';
    let scopeTarget: string | null = null;
    const scopedRoll = random();
    if (type !== 'IPBAN' && type !== 'WARN' && type !== 'KICK' && scopedRoll < 0.2) {
      const g = Math.floor(random() * GROUPS);
      [scope, scopeTarget] = scopedRoll < 0.1 ? ['GROUP', groupName(g)] : ['SERVICE', serverName(g, 1 + Math.floor(random() * SERVERS_PER_GROUP))];
    }
    const targetIp = type === 'IPBAN' ? bannedIpOf(i) : null;
    if (targetIp !== null) bannedIps.push(targetIp);
    records.push({
      type,
      targetUuid: uuidOf(player),
      targetName: `P${player}`,
      targetIp,
      reason: `Reason number ${i % 97}`,
      issuer: 'console',
      issuerName: 'Console',
      issuedAt,
      expiresAt,
      active,
      revokedBy: revoked ? 'Dashboard' : null,
      revokedAt: revoked ? issuedAt + 60_000 : null,
      revokeReason: revoked ? 'Appeal accepted' : null,
      scope,
      scopeTarget,
    });
  }
  return { records, bannedIps };
}

/** All records in one transaction with one prepared statement, before the controller reads the file. */
function bulkInsert(file: string, records: readonly Seed[]): number {
  const started = performance.now();
  const db = openDatabase(file);
  try {
    const insert = db.prepare(
      `INSERT INTO punishments (type, target_uuid, target_name, target_ip, reason, issuer, issuer_name, issued_at, expires_at, active, revoked_by, revoked_at, revoke_reason, scope, scope_target)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    db.transaction(() => {
      for (const r of records) {
        insert.run(r.type, r.targetUuid, r.targetName, r.targetIp, r.reason, r.issuer, r.issuerName, r.issuedAt, r.expiresAt, r.active ? 1 : 0, r.revokedBy, r.revokedAt, r.revokeReason, r.scope, r.scopeTarget);
      }
    })();
    db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return performance.now() - started;
}

/** A check the proxy asks: who, from where, and (70 %) which server they are switching to. */
interface Question {
  uuid: string;
  ip: string;
  where: Where;
}

function questions(count: number, bannedIps: readonly string[], seed: number): Question[] {
  const random = rng(seed);
  return Array.from({ length: count }, () => {
    const uuid = random() < 0.5 ? uuidOf(Math.floor(random() * PUNISHED)) : cleanUuidOf(Math.floor(random() * 1_000_000));
    const ip = random() < 0.05 ? bannedIps[Math.floor(random() * bannedIps.length)]! : `172.16.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}`;
    if (random() < 0.3) return { uuid, ip, where: {} };
    const g = Math.floor(random() * GROUPS);
    return { uuid, ip, where: { group: groupName(g), service: serverName(g, 1 + Math.floor(random() * SERVERS_PER_GROUP)) } };
  });
}

const pathOf = (q: Question) =>
  `/api/punishments/check/${q.uuid}?ip=${q.ip}${q.where.group === undefined ? '' : `&group=${q.where.group}&service=${q.where.service}`}`;

const headers = { authorization: `Bearer ${SERVICE_TOKEN}` };

/** Open loop at RATE with the plugins' credential; paths from `first` on. */
const paced = (url: string, paths: readonly string[], seconds: number, first = 0) => pacedGets(url, paths, { rate: RATE, seconds, headers, first });


/** `runs` sequential GETs (after 5 not counted); latency of each. */
async function timedGets(url: string, paths: readonly string[], runs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs + 5; i++) {
    const path = paths[i % paths.length]!;
    const started = performance.now();
    const res = await fetch(url + path, { headers: { authorization: `Bearer ${TOKEN}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    if (i >= 5) out.push(performance.now() - started);
  }
  return out;
}

async function startSvc(binary: string, dir: string, label: string): Promise<{ child: Child; url: string; startMs: number }> {
  const started = performance.now();
  const child = new Child(label, [binary, '--dir', dir], { env: childEnv({ SVC_LOG_FORMAT: 'json' }) });
  const port = await child.waitForLine((l) => {
    if (!l.includes('API listening')) return undefined;
    return (JSON.parse(l) as { port: number }).port;
  }, 60_000, 'API listening');
  return { child, url: `http://127.0.0.1:${port}`, startMs: performance.now() - started };
}

/** The same light traffic on both controllers before RSS is read: 2,000 checks, sequential. */
async function settle(url: string, paths: readonly string[]): Promise<void> {
  for (let i = 0; i < 2000; i++) await (await fetch(url + paths[i % paths.length]!, { headers })).arrayBuffer();
}

function findDatabase(dir: string): string {
  const data = join(dir, 'data');
  const file = readdirSync(data).find((f) => f.endsWith('.db'));
  if (!file) throw new Error(`no .db file in ${data}`);
  return join(data, file);
}

interface HttpResult {
  check: PacedResult;
  health: PacedResult;
  punishedShare: number;
  activeTotal: number;
  allTotal: number;
  listActive: number[];
  listAll: number[];
  history: number[];
  emptyStartMs: number;
  loadedStartMs: number;
  emptyRssMiB: number;
  loadedRssMiB: number;
  insertMs: number;
  dbMiB: number;
  dbFile: string;
}

async function overHttp(binary: string, data: ReturnType<typeof seeds>, inForce: number): Promise<HttpResult> {
  const dir = makeTempDir('svc-bench-punishments-');
  writeFileSync(
    join(dir, 'svc.toml'),
    `[api]\nport = ${freePort()}\ntoken = "${TOKEN}"\nrate_limit = 0\nservice_rate_limit = 0\n\n[punishments]\nname_lookup_url = ""\n`,
  );
  const loadPaths = questions(RATE * (SECONDS + WARMUP_SECONDS), data.bannedIps, 7).map(pathOf);

  // First start: the module creates its table; the same traffic, then RSS with no records.
  const empty = await startSvc(binary, dir, 'svc (no punishments)');
  let emptyRssMiB: number;
  try {
    await settle(empty.url, loadPaths);
    emptyRssMiB = readRssKiB(empty.child.pid) / 1024;
  } finally {
    await empty.child.stop();
  }
  const dbFile = findDatabase(dir);
  const insertMs = bulkInsert(dbFile, data.records);
  const dbMiB = statSync(dbFile).size / 1024 / 1024;

  const loaded = await startSvc(binary, dir, `svc (${RECORDS} punishments)`);
  try {
    const { url } = loaded;
    const master = { authorization: `Bearer ${TOKEN}` };
    const totalOf = async (active: boolean) => ((await (await fetch(`${url}/api/punishments?active=${active}&limit=1`, { headers: master })).json()) as { total: number }).total;
    const activeTotal = await totalOf(true);
    const allTotal = await totalOf(false);
    if (activeTotal !== inForce || allTotal !== RECORDS) throw new Error(`the controller lists ${activeTotal} in force of ${allTotal}; stored ${inForce} in force of ${RECORDS}`);

    let punished = 0;
    const sample = questions(1000, data.bannedIps, 99).map(pathOf);
    for (const path of sample) if (((await (await fetch(url + path, { headers })).json()) as { punished: boolean }).punished) punished++;
    await settle(url, loadPaths);
    const loadedRssMiB = readRssKiB(loaded.child.pid) / 1024;

    // Warm-up at the same rate, not counted, on other players than the counted phase asks.
    await paced(url, loadPaths, WARMUP_SECONDS, RATE * SECONDS);
    const check = await paced(url, loadPaths, SECONDS);
    await paced(url, ['/api/health'], WARMUP_SECONDS);
    const health = await paced(url, ['/api/health'], SECONDS);

    const listActive = await timedGets(url, ['/api/punishments?active=true&limit=500'], 30);
    const listAll = await timedGets(url, ['/api/punishments?active=false&limit=500'], 30);
    const history = await timedGets(url, Array.from({ length: 200 }, (_, i) => `/api/punishments/player/${uuidOf((i * 4409) % PUNISHED)}?limit=50`), 200);
    return {
      check,
      health,
      punishedShare: punished / sample.length,
      activeTotal,
      allTotal,
      listActive,
      listAll,
      history,
      emptyStartMs: empty.startMs,
      loadedStartMs: loaded.startMs,
      emptyRssMiB,
      loadedRssMiB,
      insertMs,
      dbMiB,
      dbFile,
    };
  } finally {
    await loaded.child.stop();
  }
}

interface LocalResult {
  readMs: number;
  loadMs: number;
  indexed: number;
  bytesPerRecord: number;
  heapMiB: number;
  loginNoCache: number[];
  loginCache: number[];
  chatNoCache: number[];
}

/** Calls per second of `work` over `items`, median-ready: 7 rounds of ~300 ms after one pass not counted. */
function rate<T>(items: readonly T[], work: (item: T) => unknown): number[] {
  for (const item of items) work(item);
  const out: number[] = [];
  for (let round = 0; round < 7; round++) {
    let done = 0;
    const started = performance.now();
    while (performance.now() - started < 300) {
      for (const item of items) work(item);
      done += items.length;
    }
    out.push(done / ((performance.now() - started) / 1000));
  }
  return out;
}

/** The records in force read back from the bench's file, held and checked the way the service does. */
function inProcess(dbFile: string, bannedIps: readonly string[]): LocalResult {
  const db = new Database(dbFile, { readonly: true, strict: true });
  const store = new PunishmentStore(db);
  try {
    Bun.gc(true);
    const heapBefore = heapStats().heapSize;
    const readStarted = performance.now();
    let rows = store.allActive();
    const readMs = performance.now() - readStarted;
    const index = new ActiveIndex();
    const loadStarted = performance.now();
    index.load(rows);
    const loadMs = performance.now() - loadStarted;
    rows = [];
    Bun.gc(true);
    const heapAfter = heapStats().heapSize;

    const templates: MessageTemplates = { ...MESSAGE_DEFAULTS };
    const asked = questions(50_000, bannedIps, 11);
    const off = new CheckAnswers(index, () => templates, 0);
    const on = new CheckAnswers(index, () => templates, 5000);
    const result: LocalResult = {
      readMs,
      loadMs,
      indexed: index.size,
      bytesPerRecord: (heapAfter - heapBefore) / index.size,
      heapMiB: (heapAfter - heapBefore) / 1024 / 1024,
      loginNoCache: rate(asked, (q) => off.loginJson(q.uuid, q.ip, q.where)),
      loginCache: rate(asked, (q) => on.loginJson(q.uuid, q.ip, q.where)),
      chatNoCache: rate(asked, (q) => off.muteJson(q.uuid, q.where)),
    };
    // Keeps the index alive until after the heap reading above (and the checks use it).
    if (index.size === 0) throw new Error('the index is empty');
    return result;
  } finally {
    db.close();
  }
}

runBench('punishments', benchTimeoutMs(600), async () => {
  const svc = await resolveSvcBinary();
  printSetup(`punishments: ${RECORDS} stored punishments; checks at ${RATE}/s for ${SECONDS} s`, svc, [loadLine('load       ', await backgroundLoad())]);
  const data = seeds(Date.now());
  const inForce = data.records.filter((r) => r.active).length;
  const http = await overHttp(svc.path, data, inForce);
  const local = inProcess(http.dbFile, data.bannedIps);

  const ms = (v: number) => fixed(v, 2);
  const c = http.check.latencies;
  const h = http.health.latencies;
  const perSecond = (v: number[]) => fixed(median(v), 0);
  console.log(
    `data: ${RECORDS} records (${inForce} in force, ${data.bannedIps.length} IP bans) inserted in ${fixed(http.insertMs / 1000, 1)} s; sqlite file ${fixed(http.dbMiB, 1)} MiB; ` +
      `${fixed(http.punishedShare * 100, 0)} % of 1,000 sampled checks punished\n`,
  );
  console.log(
    formatTable(
      ['figure', 'punishments', 'peer', 'ratio', 'goal'],
      [
        [`GET /check p50 at ${RATE}/s (ms) | peer: GET /health`, ms(median(c)), ms(median(h)), fixed(median(c) / median(h), 2), ''],
        [`GET /check p99 at ${RATE}/s (ms) | peer: GET /health`, ms(percentile(c, 99)), ms(percentile(h, 99)), fixed(percentile(c, 99) / percentile(h, 99), 2), `≤ ${GOAL.checkP99}`],
        ['checks not answered 200', String(http.check.failed), String(http.health.failed), '', '0'],
        [`paced phase took (s, due ${SECONDS})`, fixed(http.check.seconds, 1), fixed(http.health.seconds, 1), '', ''],
        ['GET ?active=true&limit=500 p50 / p99 (ms)', `${ms(median(http.listActive))} / ${ms(percentile(http.listActive, 99))}`, '', '', ''],
        ['GET ?active=false&limit=500 p50 / p99 (ms)', `${ms(median(http.listAll))} / ${ms(percentile(http.listAll, 99))}`, '', '', ''],
        ['GET /player/{uuid}?limit=50 p50 / p99 (ms)', `${ms(median(http.history))} / ${ms(percentile(http.history, 99))}`, '', '', ''],
        [`start to API listening (ms) | peer: no records`, fixed(http.loadedStartMs, 0), fixed(http.emptyStartMs, 0), fixed(http.loadedStartMs / http.emptyStartMs, 2), ''],
        [`controller RSS (MiB) | peer: no records`, fixed(http.loadedRssMiB, 1), fixed(http.emptyRssMiB, 1), fixed(http.loadedRssMiB / http.emptyRssMiB, 2), ''],
        [`in process: read ${local.indexed} in force from sqlite / index them (ms)`, `${fixed(local.readMs, 0)} / ${fixed(local.loadMs, 0)}`, '', '', ''],
        ['in process: ActiveIndex heap (MiB) / bytes per record', `${fixed(local.heapMiB, 1)} / ${fixed(local.bytesPerRecord, 0)}`, '', '', ''],
        ['in process: login checks/s, cache off (median of 7)', perSecond(local.loginNoCache), '', '', ''],
        ['in process: login checks/s, cache on (median of 7)', perSecond(local.loginCache), '', '', ''],
        ['in process: chat checks/s, cache off (median of 7)', perSecond(local.chatNoCache), '', '', ''],
      ],
    ),
  );
  if (http.check.failed > 0 || http.health.failed > 0) {
    throw new Error(`${http.check.failed} checks and ${http.health.failed} health requests not answered 200; first: ${http.check.firstFailure ?? http.health.firstFailure}`);
  }
  if (process.env.BENCH_ENFORCE === '1' && percentile(c, 99) > GOAL.checkP99) throw new Error('a goal was missed');
});
