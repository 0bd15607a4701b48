/**
 * HTTP throughput benchmark: requests/s of GET /api/health and authenticated GET /api/config
 * served by the compiled controller with every module (rate_limit = 0), side by side with
 * release 0.13.0 (commit dc91037, built from git history, the same config), a bare Elysia app
 * with as many routes (bare-elysia.ts) and a bare compiled Bun.serve (bare-server.ts), the two
 * bare ones answering the same JSON bodies, with the same load generator, in the same run.
 * Servers and generator are separate processes; the order of the servers rotates every round.
 * Required: /api/health ≥ 0.8× and /api/config ≥ 0.4× bare Bun.serve (goal ≥ 0.5×).
 *
 *   bun run bench http
 *   BENCH_ROUNDS=3 BENCH_WARMUP_S=3 BENCH_DURATION_S=5 BENCH_CONCURRENCY=32
 *   BENCH_LOADGEN=auto|fetch|wrk   auto = wrk when it is on PATH, else loadgen.ts (keep-alive fetch)
 *   BENCH_ENFORCE=1                exit 1 when the goal is missed
 *   BENCH_NOISE_RETRIES=2          repeats of a window disturbed by other processes (> 15% of a core)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult } from './loadgen';
import { hasCommit, RELEASE_0_13_0, releasedBinary } from '../support/released-binary';
import {
  BENCH_DIR,
  benchTimeoutMs,
  buildBareServer,
  Child,
  childEnv,
  envNumber,
  fixed,
  formatTable,
  get,
  listeningPort,
  makeTempDir,
  max,
  median,
  min,
  printSetup,
  backgroundLoad,
  loadLine,
  readCpuSeconds,
  readMachineBusySeconds,
  readRssKiB,
  resolveSvcBinary,
  runBench,
} from './lib';

const TOKEN = 'bench-token-0123456789abcdef';
/** Required shares of the bare Bun.serve rate (issue 39), and the goal for the authenticated GET. */
const REQUIRED_SHARE: Record<string, number> = { 'GET /api/health': 0.8, 'GET /api/config (Bearer)': 0.4 };
const GOAL_SHARE: Record<string, number> = { 'GET /api/health': 0.8, 'GET /api/config (Bearer)': 0.5 };
/** A counted window in which other processes used more than this (cores) is repeated. */
const NOISE_CORES = 0.15;

interface Endpoint {
  name: string;
  path: string;
  headers: Record<string, string>;
}

const ENDPOINTS: Endpoint[] = [
  { name: 'GET /api/health', path: '/api/health', headers: {} },
  { name: 'GET /api/config (Bearer)', path: '/api/config', headers: { Authorization: `Bearer ${TOKEN}` } },
];

type ServerName = 'svc' | '0.13.0' | 'elysia' | 'bare';

interface Server {
  name: ServerName;
  child: Child;
  base: string;
}

interface Measurement {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Fractions of one core during the counted window. */
  serverCpu: number;
  generatorCpu: number;
  /** Everything else on the machine (other processes, this bench's parent): noise. */
  otherCpu: number;
  responseBytes: number;
}

interface Settings {
  loadgen: 'fetch' | 'wrk';
  wrk: string | null;
  concurrency: number;
  warmupS: number;
  durationS: number;
}

/** Median server CPU time per request in µs: a throughput measure the generator does not cap. */
function usPerRequest(list: readonly Measurement[]): number {
  return median(list.map((m) => (m.serverCpu / m.rps) * 1e6));
}

function checkClean(what: string, requests: number, non200: number, errors: number, detail: string): void {
  if (requests === 0) throw new Error(`${what}: no successful request in the counted window (${detail})`);
  if (non200 > 0 || errors > 0) throw new Error(`${what}: ${non200} non-200 responses and ${errors} failed requests (${detail})`);
}

/** One counted run of loadgen.ts against one server and endpoint. */
async function measureWithFetch(server: Server, endpoint: Endpoint, settings: Settings): Promise<Measurement> {
  const args = [
    process.execPath,
    join(BENCH_DIR, 'loadgen.ts'),
    '--url',
    server.base + endpoint.path,
    '--concurrency',
    String(settings.concurrency),
    '--warmup',
    String(settings.warmupS),
    '--duration',
    String(settings.durationS),
  ];
  for (const [name, value] of Object.entries(endpoint.headers)) args.push('--header', `${name}: ${value}`);
  const generator = new Child('loadgen', args, { env: childEnv() });
  try {
    const limit = (settings.warmupS + settings.durationS + 20) * 1000;
    const event = (name: string) => (line: string) => (line === JSON.stringify({ event: name }) ? true : undefined);
    await generator.waitForLine(event('measure-start'), limit, 'measure-start');
    server.child.assertRunning(`before ${endpoint.name}`);
    const cpu0 = readCpuSeconds(server.child.pid);
    const busy0 = readMachineBusySeconds();
    const t0 = performance.now();
    await generator.waitForLine(event('measure-end'), limit, 'measure-end');
    server.child.assertRunning(`during ${endpoint.name}`);
    const wall = (performance.now() - t0) / 1000;
    const serverCpu = (readCpuSeconds(server.child.pid) - cpu0) / wall;
    const busy = (readMachineBusySeconds() - busy0) / wall;
    const result = await generator.waitForLine(
      (line) => (line.startsWith('{"event":"result"') ? (JSON.parse(line) as LoadResult) : undefined),
      limit,
      'result',
    );
    const code = await generator.waitExit(10_000);
    if (code !== 0) throw new Error(`loadgen exited with ${code}:\n${generator.tail()}`);
    checkClean(`${server.name} ${endpoint.name}`, result.requests, result.non200, result.errors, result.firstNon200 ?? result.firstError ?? '');
    return {
      rps: result.rps,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      serverCpu,
      generatorCpu: result.cpuCores,
      otherCpu: Math.max(0, busy - serverCpu - result.cpuCores),
      responseBytes: result.responseBytes,
    };
  } finally {
    if (generator.running) await generator.stop(2000);
  }
}

/** wrk latency cell ("812.00us", "1.20ms", "1.01s") in ms. */
function wrkMs(text: string | undefined): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? '');
  if (!match) return Number.NaN;
  const scale: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
  return Number(match[1]) * (scale[match[2]!] ?? Number.NaN);
}

async function runWrk(settings: Settings, server: Server, endpoint: Endpoint, seconds: number): Promise<{ out: string; cpuSeconds: number }> {
  const args = [settings.wrk!, '-t1', `-c${settings.concurrency}`, `-d${seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(endpoint.headers)) args.push('-H', `${name}: ${value}`);
  args.push(server.base + endpoint.path);
  const wrk = new Child('wrk', args, { env: childEnv() });
  try {
    const exited = await Promise.race([wrk.proc.exited.then(() => true), Bun.sleep((seconds + 20) * 1000).then(() => false)]);
    if (!exited) throw new Error(`wrk did not finish within ${seconds + 20} s:\n${wrk.tail()}`);
    await Bun.sleep(20); // let the pumps take the last lines
    if (wrk.proc.exitCode !== 0) throw new Error(`wrk exited with ${wrk.proc.exitCode}:\n${wrk.tail()}`);
    const usage = wrk.proc.resourceUsage();
    return { out: wrk.tail(60), cpuSeconds: usage ? Number(usage.cpuTime.total) / 1e6 : Number.NaN };
  } finally {
    await wrk.stop(2000);
  }
}

async function measureWithWrk(server: Server, endpoint: Endpoint, settings: Settings): Promise<Measurement> {
  await runWrk(settings, server, endpoint, settings.warmupS);
  server.child.assertRunning(`after the ${endpoint.name} warm-up`);
  const cpu0 = readCpuSeconds(server.child.pid);
  const busy0 = readMachineBusySeconds();
  const t0 = performance.now();
  const { out, cpuSeconds } = await runWrk(settings, server, endpoint, settings.durationS);
  const wall = (performance.now() - t0) / 1000;
  server.child.assertRunning(`during ${endpoint.name}`);
  const serverCpu = (readCpuSeconds(server.child.pid) - cpu0) / wall;
  const busy = (readMachineBusySeconds() - busy0) / wall;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non200 = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  checkClean(`${server.name} ${endpoint.name}`, requests, non200, errors, out);
  if (!Number.isFinite(rps)) throw new Error(`no Requests/sec in wrk output:\n${out}`);
  return {
    rps,
    p50Ms: wrkMs(/^\s+50%\s+(\S+)/m.exec(out)?.[1]),
    p99Ms: wrkMs(/^\s+99%\s+(\S+)/m.exec(out)?.[1]),
    serverCpu,
    generatorCpu: cpuSeconds / wall,
    otherCpu: Math.max(0, busy - serverCpu - cpuSeconds / wall),
    responseBytes: Number.NaN,
  };
}

/** The controller (this build or a release) in a fresh directory: every module, no rate limit. */
async function startSvc(binary: string, name: 'svc' | '0.13.0'): Promise<Server> {
  const dir = makeTempDir('svc-bench-http-');
  writeFileSync(join(dir, 'svc.toml'), ['[api]', 'port = 0', `token = "${TOKEN}"`, 'rate_limit = 0', 'service_rate_limit = 0', ''].join('\n'));
  const child = new Child(name, [binary, '--dir', dir], { env: childEnv({ SVC_LOG_FORMAT: 'json' }), cwd: dir });
  const port = await child.waitForLine((line) => listeningPort(line, 'API listening on'), 15_000, '"API listening on" log line');
  return { name, child, base: `http://127.0.0.1:${port}` };
}

async function startBare(binary: string, name: 'bare' | 'elysia', configFile: string, routesFile: string): Promise<Server> {
  const child = new Child(name, [binary], { env: childEnv({ BARE_PORT: '0', BARE_CONFIG: configFile, BARE_TOKEN: TOKEN, BARE_ROUTES: routesFile }) });
  const port = await child.waitForLine((line) => listeningPort(line, 'bare listening'), 15_000, '"bare listening" line');
  return { name, child, base: `http://127.0.0.1:${port}` };
}

/** The controller's routes as [method, path] in Elysia's path syntax, from its OpenAPI document. */
async function routesOf(svc: Server): Promise<[string, string][]> {
  const doc = JSON.parse((await get(`${svc.base}/api/openapi.json`)).body) as { paths: Record<string, Record<string, unknown>> };
  const routes: [string, string][] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    const elysiaPath = path.replace(/\/\{path\}$/, '/*').replace(/\{([^}]+)\}/g, ':$1');
    for (const method of Object.keys(methods)) routes.push([method.toUpperCase(), elysiaPath]);
  }
  return routes;
}

async function main(): Promise<void> {
  const requested = process.env.BENCH_LOADGEN ?? 'auto';
  if (!['auto', 'fetch', 'wrk'].includes(requested)) throw new Error(`BENCH_LOADGEN=${requested}: expected auto, fetch or wrk`);
  const wrk = Bun.which('wrk');
  if (requested === 'wrk' && !wrk) throw new Error('BENCH_LOADGEN=wrk but wrk is not on PATH');
  const settings: Settings = {
    loadgen: requested === 'fetch' || !wrk ? 'fetch' : 'wrk',
    wrk,
    concurrency: Math.round(envNumber('BENCH_CONCURRENCY', 32)),
    warmupS: envNumber('BENCH_WARMUP_S', 3),
    durationS: envNumber('BENCH_DURATION_S', 5),
  };
  const rounds = Math.round(envNumber('BENCH_ROUNDS', 3));
  const noiseRetries = process.env.BENCH_NOISE_RETRIES === '0' ? 0 : Math.round(envNumber('BENCH_NOISE_RETRIES', 2));

  const svcBinary = await resolveSvcBinary();
  if (!hasCommit(RELEASE_0_13_0)) throw new Error(`this checkout lacks ${RELEASE_0_13_0} (release 0.13.0): fetch the full history to compare with it`);
  const [releaseBinary, bareBinary, elysiaBinary] = await Promise.all([releasedBinary(RELEASE_0_13_0), buildBareServer('bare-server'), buildBareServer('bare-elysia')]);
  const generatorText =
    settings.loadgen === 'wrk'
      ? `${wrk} -t1 -c${settings.concurrency} (wrk on PATH)`
      : `test/bench/loadgen.ts in its own bun process: ${settings.concurrency} concurrent keep-alive fetch loops${wrk ? ' (BENCH_LOADGEN=fetch)' : ' (wrk is not on PATH)'}`;
  printSetup('http: requests/s, svc vs release 0.13.0, bare Elysia and bare Bun.serve', svcBinary, [
    `release    : ${releaseBinary} (0.13.0, commit ${RELEASE_0_13_0}, built from git history; same svc.toml)`,
    `elysia     : ${elysiaBinary} (bare Elysia app with the controller's routes, each a constant; same JSON bodies)`,
    `baseline   : ${bareBinary} (bare Bun.serve, compiled like svc, same JSON bodies)`,
    `generator  : ${generatorText}`,
    `method     : ${rounds} rounds; each endpoint × server: ${settings.warmupS} s warm-up (not counted) + ${settings.durationS} s counted;`,
    `             the servers' order rotates every endpoint and round; every process separate; svc with rate_limit = 0; medians reported;`,
    `             a window where other processes used > ${NOISE_CORES * 100}% of a core is repeated up to ${noiseRetries} times`,
    ...(rounds < 3 ? [`WARNING    : BENCH_ROUNDS=${rounds} is below the 3 rounds the goal is judged on`] : []),
    loadLine('load before', await backgroundLoad()),
  ]);

  const svc = await startSvc(svcBinary.path, 'svc');
  const release = await startSvc(releaseBinary, '0.13.0');
  const health = await get(`${svc.base}/api/health`);
  const config = await get(`${svc.base}/api/config`, { Authorization: `Bearer ${TOKEN}` });
  const unauthorized = await get(`${svc.base}/api/config`);
  if (health.status !== 200 || config.status !== 200) throw new Error(`svc answered health ${health.status}, config ${config.status}: ${config.body.slice(0, 300)}`);
  if (unauthorized.status !== 401) throw new Error(`svc answered GET /api/config without a token with ${unauthorized.status}, expected 401`);
  const releaseConfig = await get(`${release.base}/api/config`, { Authorization: `Bearer ${TOKEN}` });
  if (releaseConfig.status !== 200) throw new Error(`0.13.0 answered config ${releaseConfig.status}`);
  const scratch = makeTempDir('svc-bench-http-bodies-');
  const configFile = join(scratch, 'config.json');
  writeFileSync(configFile, config.body);
  const routes = await routesOf(svc);
  const routesFile = join(scratch, 'routes.json');
  writeFileSync(routesFile, JSON.stringify(routes));

  const bare = await startBare(bareBinary, 'bare', configFile, routesFile);
  const elysia = await startBare(elysiaBinary, 'elysia', configFile, routesFile);
  const keys = (body: string) => Object.keys(JSON.parse(body) as object).join(',');
  for (const peer of [bare, elysia]) {
    const peerHealth = await get(`${peer.base}/api/health`);
    const peerConfig = await get(`${peer.base}/api/config`, { Authorization: `Bearer ${TOKEN}` });
    if (peerHealth.status !== 200 || keys(peerHealth.body) !== keys(health.body)) throw new Error(`${peer.name} health differs: ${peerHealth.body} vs ${health.body}`);
    if (peerConfig.status !== 200 || peerConfig.body !== config.body) throw new Error(`${peer.name} config body differs from the controller’s`);
  }
  console.log(`bodies     : health ${health.body.length} B, config ${config.body.length} B (0.13.0: ${releaseConfig.body.length} B; bare and elysia serve svc's bytes)`);
  console.log(`routes     : ${routes.length} (svc, and as many on the bare Elysia app)\n`);

  const servers = [svc, release, elysia, bare];
  const results = new Map<string, Measurement[]>();
  const key = (server: Server, endpoint: Endpoint) => `${server.name} ${endpoint.name}`;
  const measure = settings.loadgen === 'wrk' ? measureWithWrk : measureWithFetch;
  for (let round = 1; round <= rounds; round++) {
    for (const [index, endpoint] of ENDPOINTS.entries()) {
      // Who goes first rotates with every endpoint and round.
      const shift = (round * ENDPOINTS.length + index) % servers.length;
      const order = servers.map((_, i) => servers[(i + shift) % servers.length]!);
      for (const server of order) {
        server.child.assertRunning(`before round ${round}`);
        let m = await measure(server, endpoint, settings);
        for (let retry = 1; retry <= noiseRetries && m.otherCpu > NOISE_CORES; retry++) {
          console.log(`round ${round} ${server.name.padEnd(6)} ${endpoint.name.padEnd(24)} ${fixed(m.rps, 0).padStart(7)} req/s  DISCARDED: other processes used ${fixed(m.otherCpu * 100, 0)}% of a core; repeating`);
          m = await measure(server, endpoint, settings);
        }
        const list = results.get(key(server, endpoint)) ?? [];
        list.push(m);
        results.set(key(server, endpoint), list);
        console.log(
          `round ${round} ${server.name.padEnd(6)} ${endpoint.name.padEnd(24)} ${fixed(m.rps, 0).padStart(7)} req/s` +
            `  p50 ${fixed(m.p50Ms, 2)} ms  p99 ${fixed(m.p99Ms, 2)} ms  server CPU ${fixed(m.serverCpu * 100, 0)}%  generator CPU ${fixed(m.generatorCpu * 100, 0)}%  other CPU ${fixed(m.otherCpu * 100, 0)}%`,
        );
      }
    }
  }
  const rssMiB = Object.fromEntries(servers.map((server) => [server.name, readRssKiB(server.child.pid) / 1024]));

  const of = (server: Server, endpoint: Endpoint): Measurement[] => results.get(key(server, endpoint)) ?? [];
  const rps = (list: Measurement[]) => median(list.map((m) => m.rps));
  const rows = ENDPOINTS.map((endpoint) => {
    const [s, r, e, b] = [svc, release, elysia, bare].map((server) => rps(of(server, endpoint)));
    return [endpoint.name, fixed(s!, 0), fixed(r!, 0), fixed(e!, 0), fixed(b!, 0), fixed(s! / b!, 2), fixed(s! / r!, 2), fixed(e! / b!, 2)];
  });
  console.log(`\nhttp, median of ${rounds} rounds × ${settings.durationS} s, ${settings.concurrency} connections, req/s\n`);
  console.log(formatTable(['endpoint', 'svc', '0.13.0', 'bare Elysia', 'bare Bun.serve', 'svc / bare', 'svc / 0.13.0', 'Elysia / bare'], rows));

  const detail = ENDPOINTS.flatMap((endpoint) =>
    servers.map((server) => {
      const list = of(server, endpoint);
      const rates = list.map((m) => m.rps);
      return [
        endpoint.name,
        server.name,
        `${fixed(min(rates), 0)}–${fixed(max(rates), 0)}`,
        fixed(median(list.map((m) => m.p50Ms)), 2),
        fixed(median(list.map((m) => m.p99Ms)), 2),
        `${fixed(median(list.map((m) => m.serverCpu)) * 100, 0)}%`,
        `${fixed(median(list.map((m) => m.generatorCpu)) * 100, 0)}%`,
        `${fixed(median(list.map((m) => m.otherCpu)) * 100, 0)}%`,
        fixed(usPerRequest(list), 1),
      ];
    }),
  );
  console.log('\ndetail (medians; CPU as % of one core during the counted window; "other" = the rest of the machine, i.e. noise)\n');
  console.log(formatTable(['endpoint', 'server', 'req/s range', 'p50 ms', 'p99 ms', 'server CPU', 'generator CPU', 'other CPU', 'server CPU µs/req'], detail));
  console.log(`\nRSS after the load: ${servers.map((server) => `${server.name} ${fixed(rssMiB[server.name]!)} MiB`).join(', ')}`);
  const noisy = [...results.values()].flat().filter((m) => m.otherCpu > NOISE_CORES).length;
  if (noisy > 0) console.log(`WARNING: in ${noisy} of ${[...results.values()].flat().length} kept windows other processes used > ${NOISE_CORES * 100}% of a core (noisy)`);

  // A generator that uses a whole core while the server does not is the limit, not the server:
  // the bare rate is then a floor of bare's capacity and the req/s ratio flatters svc.
  for (const endpoint of ENDPOINTS) {
    const bareList = of(bare, endpoint);
    const generatorCpu = median(bareList.map((m) => m.generatorCpu));
    const serverCpu = median(bareList.map((m) => m.serverCpu));
    if (generatorCpu >= 0.9 && serverCpu < 0.9) {
      console.log(
        `NOTE: ${endpoint.name}: bare Bun.serve was generator-bound (generator ${fixed(generatorCpu * 100, 0)}% of a core, server ${fixed(serverCpu * 100, 0)}%); ` +
          `its req/s understates its capacity. Server CPU per request, svc vs bare: ${fixed(usPerRequest(of(svc, endpoint)), 1)} vs ${fixed(usPerRequest(bareList), 1)} µs ` +
          `(capacity ratio ≈ ${fixed(usPerRequest(bareList) / usPerRequest(of(svc, endpoint)), 2)}).`,
      );
    }
  }

  let met = true;
  console.log('');
  for (const endpoint of ENDPOINTS) {
    const share = rps(of(svc, endpoint)) / rps(of(bare, endpoint));
    const required = REQUIRED_SHARE[endpoint.name]!;
    const goal = GOAL_SHARE[endpoint.name]!;
    met &&= share >= required;
    console.log(`${endpoint.name}: svc ≥ ${required} × bare Bun.serve: ${share >= required ? 'MET' : 'MISSED'} (${fixed(share, 2)} ×; goal ≥ ${goal} × ${share >= goal ? 'met' : 'not yet'})`);
  }

  for (const server of servers) {
    const code = await server.child.stop();
    if (code !== 0) throw new Error(`${server.name} exited with ${code} on SIGTERM (expected 0):\n${server.child.tail()}`);
  }
  if (process.env.BENCH_ENFORCE === '1' && !met) throw new Error('an http requirement was missed (BENCH_ENFORCE=1)');
}

runBench('http.bench', benchTimeoutMs(600), main);
