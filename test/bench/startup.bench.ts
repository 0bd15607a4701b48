/**
 * Startup benchmark: exec of the compiled controller → first 200 from GET /api/health, in a
 * fresh directory each run (a first launch: it writes svc.toml, the token, the database), and
 * the idle RSS once it has answered; twice: with every module (an empty directory, where the
 * first launch installs all eight) and with none (the directory holds only an empty modules/
 * folder, which means "none installed"). Peers, measured the same way in the same run, in
 * rotation: release 0.13.0 with every module (commit dc91037, built from git history), a bare
 * Elysia app with as many routes as the controller (bare-elysia.ts) and a bare compiled
 * Bun.serve answering the same JSON (bare-server.ts). Required with every module (issue 39):
 * ≤ 1.30× 0.13.0's first 200 and ≤ 1.25× its idle RSS; the goal is 1.10× for both.
 *
 *   bun run bench startup
 *   BENCH_STARTUP_RUNS=20   measured runs per program (default 11, plus 1 discarded warm-up)
 *   BENCH_ENFORCE=1         exit 1 when a goal is missed
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasCommit, RELEASE_0_13_0, releasedBinary } from '../support/released-binary';
import {
  benchTimeoutMs,
  buildBareServer,
  Child,
  childEnv,
  envNumber,
  fixed,
  formatTable,
  isPortFree,
  freePort,
  makeTempDir,
  max,
  median,
  percentile,
  printSetup,
  backgroundLoad,
  loadLine,
  readRssKiB,
  removeDir,
  resolveSvcBinary,
  runBench,
  waitForPortFree,
} from './lib';

/** Required with every module, against release 0.13.0 measured in the same run (issue 39). */
const REQUIRED_START_RATIO = 1.3;
const REQUIRED_RSS_RATIO = 1.25;
/** What we are after beyond the requirement. */
const GOAL_START_RATIO = 1.1;
const GOAL_RSS_RATIO = 1.1;
const MODULE_COUNT = 8;
/** The port an unconfigured controller listens on (svc.toml defaults). */
const DEFAULT_PORT = 8080;
const POLL_INTERVAL_MS = 2;
const FIRST_200_TIMEOUT_MS = 10_000;
/** After the first 200: RSS samples at these offsets (ms); the run's idle RSS is their max. */
const RSS_SAMPLE_OFFSETS_MS = [500, 750, 1000, 1250, 1500];

interface Launch {
  firstOkMs: number;
  idleRssKiB: number;
  exitCode: number | null;
}

interface Program {
  name: string;
  /** Prepares a fresh directory; returns the command, its env and the port it will answer on. */
  prepare(dir: string): { cmd: string[]; env: Record<string, string>; port: number };
  /** Checks the directory after the run (e.g. that a first launch wrote its files). */
  verify?(dir: string): void;
}

async function launchOnce(program: Program): Promise<Launch> {
  const dir = makeTempDir(`svc-bench-startup-${program.name}-`);
  try {
    const { cmd, env, port } = program.prepare(dir);
    await waitForPortFree(port, 5000);
    const url = `http://127.0.0.1:${port}/api/health`;

    const t0 = performance.now();
    const child = new Child(program.name, cmd, { env, cwd: dir });
    let firstOkMs: number | undefined;
    let lastProblem = 'connection refused';
    try {
      while (firstOkMs === undefined) {
        if (!child.running) throw new Error(`${program.name} exited (${child.proc.exitCode}) before answering; output:\n${child.tail()}`);
        if (performance.now() - t0 > FIRST_200_TIMEOUT_MS) {
          throw new Error(`${program.name}: no 200 from ${url} within ${FIRST_200_TIMEOUT_MS} ms (last: ${lastProblem}); output:\n${child.tail()}`);
        }
        try {
          // A new connection each probe: never a pooled one to a previous run's process.
          const response = await fetch(url, { headers: { connection: 'close' }, signal: AbortSignal.timeout(2000) });
          const body = await response.text();
          if (response.status === 200) {
            firstOkMs = performance.now() - t0;
            const health = JSON.parse(body) as { status?: unknown };
            if (health.status !== 'ok') throw new Error(`${program.name}: unexpected health body ${body}`);
          } else {
            lastProblem = `status ${response.status}: ${body.slice(0, 200)}`;
          }
        } catch (error) {
          if (firstOkMs !== undefined) throw error;
          lastProblem = String(error);
        }
        if (firstOkMs === undefined) await Bun.sleep(POLL_INTERVAL_MS);
      }

      const answeredAt = performance.now();
      let idleRssKiB = 0;
      for (const offset of RSS_SAMPLE_OFFSETS_MS) {
        await Bun.sleep(Math.max(0, answeredAt + offset - performance.now()));
        if (!child.running) throw new Error(`${program.name} exited while idle; output:\n${child.tail()}`);
        idleRssKiB = Math.max(idleRssKiB, readRssKiB(child.pid));
      }
      const exitCode = await child.stop();
      program.verify?.(dir);
      return { firstOkMs, idleRssKiB, exitCode };
    } finally {
      if (child.running) await child.stop(2000);
    }
  } finally {
    removeDir(dir);
  }
}

async function main(): Promise<void> {
  const runs = Math.round(envNumber('BENCH_STARTUP_RUNS', 11));
  const svc = await resolveSvcBinary();
  if (!hasCommit(RELEASE_0_13_0)) throw new Error(`this checkout lacks ${RELEASE_0_13_0} (release 0.13.0): fetch the full history to compare with it`);
  const [release, bare, elysia] = await Promise.all([releasedBinary(RELEASE_0_13_0), buildBareServer('bare-server'), buildBareServer('bare-elysia')]);
  const routesFile = await writeRoutesOf(svc.path);

  // An empty directory means the defaults: port 8080. If that is taken, the runs keep their
  // empty directories except for a two-line svc.toml naming another port (said below).
  const defaultFree = isPortFree(DEFAULT_PORT);
  const port = defaultFree ? DEFAULT_PORT : freePort();
  const launchNote = defaultFree
    ? 'fresh empty dir per run (first launch: svc writes svc.toml, data/api-token, data/svc.db; listens on the default 8080)'
    : `port 8080 is busy: each fresh dir holds only "[api] port = ${port}" (svc still generates the token and database)`;

  printSetup('startup: exec → first 200 from GET /api/health, idle RSS', svc, [
    `release    : ${release} (0.13.0, commit ${RELEASE_0_13_0}, built from git history)`,
    `elysia     : ${elysia} (bare Elysia app with the controller's ${JSON.parse(readFileSync(routesFile, 'utf8')).length} routes)`,
    `baseline   : ${bare} (bare Bun.serve, compiled like svc)`,
    `method     : ${runs} measured runs per program after 1 discarded warm-up; svc with every module (svc-all), with none`,
    `             (svc-none: an empty modules/ folder), 0.13.0 with every module, elysia and bare in rotation;`,
    `             probe GET /api/health every ${POLL_INTERVAL_MS} ms from just before exec; idle RSS = max VmRSS`,
    `             sampled ${RSS_SAMPLE_OFFSETS_MS.at(0)}–${RSS_SAMPLE_OFFSETS_MS.at(-1)} ms after the first 200; then SIGTERM`,
    `             ${launchNote}`,
    ...(runs < 10 ? [`WARNING    : BENCH_STARTUP_RUNS=${runs} is below the 10 runs the goal is judged on`] : []),
    loadLine('load before', await backgroundLoad()),
  ]);

  const svcProgram = (name: 'svc-all' | 'svc-none' | '0.13.0'): Program => ({
    name,
    prepare(dir) {
      if (!defaultFree) writeFileSync(join(dir, 'svc.toml'), `[api]\nport = ${port}\n`);
      // An existing, empty modules/ folder: nothing installed (a fresh one installs every module).
      if (name === 'svc-none') mkdirSync(join(dir, 'modules'));
      return { cmd: [name === '0.13.0' ? release : svc.path, '--dir', dir], env: childEnv(), port };
    },
    verify(dir) {
      for (const file of ['svc.toml', 'data/api-token', 'data/svc.db']) {
        if (!existsSync(join(dir, file))) throw new Error(`svc run left no ${file}: not the first launch this bench means to measure`);
      }
      const installed = readdirSync(join(dir, 'modules')).filter((f) => f.endsWith('.module')).length;
      const expected = name === 'svc-none' ? 0 : MODULE_COUNT;
      if (installed !== expected) throw new Error(`${name}: ${installed} modules installed, expected ${expected}`);
    },
  });
  const bareProgram: Program = {
    name: 'bare',
    prepare: () => ({ cmd: [bare], env: childEnv({ BARE_PORT: String(port) }), port }),
  };
  const elysiaProgram: Program = {
    name: 'elysia',
    prepare: () => ({ cmd: [elysia], env: childEnv({ BARE_PORT: String(port), BARE_ROUTES: routesFile }), port }),
  };
  const programs = [svcProgram('svc-all'), svcProgram('svc-none'), svcProgram('0.13.0'), elysiaProgram, bareProgram];

  type Name = 'svc-all' | 'svc-none' | '0.13.0' | 'elysia' | 'bare';
  const results: Record<Name, Launch[]> = { 'svc-all': [], 'svc-none': [], '0.13.0': [], elysia: [], bare: [] };
  for (let run = 0; run <= runs; run++) {
    // Each run starts with another program, so none always runs first (or last) after a pause.
    const order = programs.map((_, i) => programs[(i + run) % programs.length]!);
    const cells: string[] = [];
    for (const program of order) {
      const launch = await launchOnce(program);
      if (launch.exitCode !== 0) throw new Error(`${program.name} exited with ${launch.exitCode} on SIGTERM (expected a clean 0)`);
      if (run > 0) results[program.name as Name].push(launch);
      cells.push(`${program.name} ${fixed(launch.firstOkMs)} ms ${fixed(launch.idleRssKiB / 1024)} MiB`);
    }
    console.log(`${run === 0 ? 'warm-up' : `run ${String(run).padStart(2)}`}: ${cells.join('   ')}`);
  }

  console.log(loadLine('load after ', await backgroundLoad()));

  const ms = (launches: Launch[]) => launches.map((l) => l.firstOkMs);
  const mib = (launches: Launch[]) => launches.map((l) => l.idleRssKiB / 1024);
  const ratio = (a: number, b: number) => fixed(a / b, 2);
  const peers = ['0.13.0', 'elysia', 'bare'] as const;
  const peerLabel: Record<(typeof peers)[number], string> = { '0.13.0': 'release 0.13.0', elysia: 'bare Elysia', bare: 'bare Bun.serve' };
  const rows: string[][] = [];
  for (const name of ['svc-all', 'svc-none'] as const) {
    const svcMs = ms(results[name]);
    const svcMiB = mib(results[name]);
    const label = name === 'svc-all' ? `all ${MODULE_COUNT} modules` : 'no module';
    for (const peer of peers) rows.push([`${label}: first 200, median`, `${fixed(median(svcMs))} ms`, `${peerLabel[peer]} ${fixed(median(ms(results[peer])))} ms`, ratio(median(svcMs), median(ms(results[peer])))]);
    rows.push([`${label}: first 200, p90`, `${fixed(percentile(svcMs, 90))} ms`, `release 0.13.0 ${fixed(percentile(ms(results['0.13.0']), 90))} ms`, ratio(percentile(svcMs, 90), percentile(ms(results['0.13.0']), 90))]);
    for (const peer of peers) rows.push([`${label}: idle RSS, median`, `${fixed(median(svcMiB))} MiB`, `${peerLabel[peer]} ${fixed(median(mib(results[peer])))} MiB`, ratio(median(svcMiB), median(mib(results[peer])))]);
    rows.push([`${label}: idle RSS, max of runs`, `${fixed(max(svcMiB))} MiB`, `release 0.13.0 ${fixed(max(mib(results['0.13.0'])))} MiB`, ratio(max(svcMiB), max(mib(results['0.13.0'])))]);
  }
  rows.push([`bare Elysia: first 200, median`, `${fixed(median(ms(results.elysia)))} ms`, `bare Bun.serve ${fixed(median(ms(results.bare)))} ms`, ratio(median(ms(results.elysia)), median(ms(results.bare)))]);
  rows.push([`bare Elysia: idle RSS, median`, `${fixed(median(mib(results.elysia)))} MiB`, `bare Bun.serve ${fixed(median(mib(results.bare)))} MiB`, ratio(median(mib(results.elysia)), median(mib(results.bare)))]);
  console.log(`\nstartup, ${runs} runs each (ratio = svc / peer; MiB = 2^20 bytes)\n`);
  console.log(formatTable(['metric', 'svc', 'peer', 'ratio'], rows));

  const startRatio = median(ms(results['svc-all'])) / median(ms(results['0.13.0']));
  const rssRatio = median(mib(results['svc-all'])) / median(mib(results['0.13.0']));
  const startOk = startRatio <= REQUIRED_START_RATIO;
  const rssOk = rssRatio <= REQUIRED_RSS_RATIO;
  console.log(`\nwith all ${MODULE_COUNT} modules: first 200 ≤ ${REQUIRED_START_RATIO} × 0.13.0 (median): ${startOk ? 'MET' : 'MISSED'} (${fixed(startRatio, 2)} ×; goal ≤ ${GOAL_START_RATIO} × ${startRatio <= GOAL_START_RATIO ? 'met' : 'not yet'})`);
  console.log(`with all ${MODULE_COUNT} modules: idle RSS ≤ ${REQUIRED_RSS_RATIO} × 0.13.0 (median): ${rssOk ? 'MET' : 'MISSED'} (${fixed(rssRatio, 2)} ×; goal ≤ ${GOAL_RSS_RATIO} × ${rssRatio <= GOAL_RSS_RATIO ? 'met' : 'not yet'})`);
  if (process.env.BENCH_ENFORCE === '1' && !(startOk && rssOk)) throw new Error('a startup requirement was missed (BENCH_ENFORCE=1)');
}

/** The controller's routes as [method, path] in Elysia's syntax (one start of it, reading its OpenAPI document), for the bare Elysia app. */
async function writeRoutesOf(binary: string): Promise<string> {
  const dir = makeTempDir('svc-bench-startup-routes-');
  const port = freePort();
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = ${port}\n`);
  const child = new Child('svc-routes', [binary, '--dir', dir], { env: childEnv(), cwd: dir });
  try {
    const deadline = performance.now() + FIRST_200_TIMEOUT_MS;
    for (;;) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/openapi.json`, { signal: AbortSignal.timeout(2000) });
        if (response.status === 200) {
          const doc = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
          const routes: [string, string][] = [];
          for (const [path, methods] of Object.entries(doc.paths)) {
            const elysiaPath = path.replace(/\/\{path\}$/, '/*').replace(/\{([^}]+)\}/g, ':$1');
            for (const method of Object.keys(methods)) routes.push([method.toUpperCase(), elysiaPath]);
          }
          const file = join(makeTempDir('svc-bench-startup-routes-list-'), 'routes.json');
          writeFileSync(file, JSON.stringify(routes));
          return file;
        }
      } catch {
        // not listening yet
      }
      if (performance.now() > deadline) throw new Error(`svc did not serve /api/openapi.json within ${FIRST_200_TIMEOUT_MS} ms:\n${child.tail()}`);
      await Bun.sleep(20);
    }
  } finally {
    await child.stop(5000);
    removeDir(dir);
  }
}

runBench('startup.bench', benchTimeoutMs(300), main);
