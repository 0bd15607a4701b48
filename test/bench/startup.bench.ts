/**
 * Startup benchmark: exec of the compiled controller → first 200 from GET /api/health, in a
 * fresh directory each run (a first launch: it writes svc.toml, the token, the database), and
 * the idle RSS once it has answered; twice: with every module (an empty directory, where the
 * first launch installs all eight) and with none (the directory holds only an empty modules/
 * folder, which means "none installed"). Baseline, measured the same way in the same run, in
 * turn with both: a bare compiled Bun.serve answering the same JSON (bare-server.ts).
 * The goals are judged on the run with every module.
 *
 *   bun run bench startup
 *   BENCH_STARTUP_RUNS=20   measured runs per program (default 11, plus 1 discarded warm-up)
 *   BENCH_ENFORCE=1         exit 1 when a goal is missed
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

const GOAL_FIRST_200_MS = 150;
const GOAL_IDLE_RSS_MIB = 60;
/** What we are after beyond the requirement (issue 25). */
const AIM_FIRST_200_MS = 100;
const AIM_IDLE_RSS_MIB = 56;
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
  const bare = await buildBareServer();

  // An empty directory means the defaults: port 8080. If that is taken, the runs keep their
  // empty directories except for a two-line svc.toml naming another port (said below).
  const defaultFree = isPortFree(DEFAULT_PORT);
  const port = defaultFree ? DEFAULT_PORT : freePort();
  const launchNote = defaultFree
    ? 'fresh empty dir per run (first launch: svc writes svc.toml, data/api-token, data/svc.db; listens on the default 8080)'
    : `port 8080 is busy: each fresh dir holds only "[api] port = ${port}" (svc still generates the token and database)`;

  printSetup('startup: exec → first 200 from GET /api/health, idle RSS', svc, [
    `baseline   : ${bare} (bare Bun.serve, compiled like svc)`,
    `method     : ${runs} measured runs per program after 1 discarded warm-up; svc with every module (svc-all), with none`,
    `             (svc-none: an empty modules/ folder) and bare in rotation;`,
    `             probe GET /api/health every ${POLL_INTERVAL_MS} ms from just before exec; idle RSS = max VmRSS`,
    `             sampled ${RSS_SAMPLE_OFFSETS_MS.at(0)}–${RSS_SAMPLE_OFFSETS_MS.at(-1)} ms after the first 200; then SIGTERM`,
    `             ${launchNote}`,
    ...(runs < 10 ? [`WARNING    : BENCH_STARTUP_RUNS=${runs} is below the 10 runs the goal is judged on`] : []),
    loadLine('load before', await backgroundLoad()),
  ]);

  const svcProgram = (name: 'svc-all' | 'svc-none'): Program => ({
    name,
    prepare(dir) {
      if (!defaultFree) writeFileSync(join(dir, 'svc.toml'), `[api]\nport = ${port}\n`);
      // An existing, empty modules/ folder: nothing installed (a fresh one installs every module).
      if (name === 'svc-none') mkdirSync(join(dir, 'modules'));
      return { cmd: [svc.path, '--dir', dir], env: childEnv(), port };
    },
    verify(dir) {
      for (const file of ['svc.toml', 'data/api-token', 'data/svc.db']) {
        if (!existsSync(join(dir, file))) throw new Error(`svc run left no ${file}: not the first launch this bench means to measure`);
      }
      const installed = readdirSync(join(dir, 'modules')).filter((f) => f.endsWith('.module')).length;
      const expected = name === 'svc-all' ? MODULE_COUNT : 0;
      if (installed !== expected) throw new Error(`${name}: ${installed} modules installed, expected ${expected}`);
    },
  });
  const bareProgram: Program = {
    name: 'bare',
    prepare: () => ({ cmd: [bare], env: childEnv({ BARE_PORT: String(port) }), port }),
  };
  const programs = [svcProgram('svc-all'), svcProgram('svc-none'), bareProgram];

  type Name = 'svc-all' | 'svc-none' | 'bare';
  const results: Record<Name, Launch[]> = { 'svc-all': [], 'svc-none': [], bare: [] };
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
  const bareMs = ms(results.bare);
  const bareMiB = mib(results.bare);
  const rows: string[][] = [];
  for (const name of ['svc-all', 'svc-none'] as const) {
    const svcMs = ms(results[name]);
    const svcMiB = mib(results[name]);
    const label = name === 'svc-all' ? `all ${MODULE_COUNT} modules` : 'no module';
    rows.push(
      [`${label}: first 200, median`, `${fixed(median(svcMs))} ms`, `required ≤ ${GOAL_FIRST_200_MS} ms`, ratio(median(svcMs), GOAL_FIRST_200_MS)],
      [`${label}: first 200, median`, `${fixed(median(svcMs))} ms`, `goal ≤ ${AIM_FIRST_200_MS} ms`, ratio(median(svcMs), AIM_FIRST_200_MS)],
      [`${label}: first 200, median`, `${fixed(median(svcMs))} ms`, `bare Bun.serve ${fixed(median(bareMs))} ms`, ratio(median(svcMs), median(bareMs))],
      [`${label}: first 200, p90`, `${fixed(percentile(svcMs, 90))} ms`, `bare Bun.serve ${fixed(percentile(bareMs, 90))} ms`, ratio(percentile(svcMs, 90), percentile(bareMs, 90))],
      [`${label}: idle RSS, median`, `${fixed(median(svcMiB))} MiB`, `required ≤ ${GOAL_IDLE_RSS_MIB} MiB`, ratio(median(svcMiB), GOAL_IDLE_RSS_MIB)],
      [`${label}: idle RSS, median`, `${fixed(median(svcMiB))} MiB`, `goal ≤ ${AIM_IDLE_RSS_MIB} MiB`, ratio(median(svcMiB), AIM_IDLE_RSS_MIB)],
      [`${label}: idle RSS, median`, `${fixed(median(svcMiB))} MiB`, `bare Bun.serve ${fixed(median(bareMiB))} MiB`, ratio(median(svcMiB), median(bareMiB))],
      [`${label}: idle RSS, max of runs`, `${fixed(max(svcMiB))} MiB`, `bare Bun.serve ${fixed(max(bareMiB))} MiB`, ratio(max(svcMiB), max(bareMiB))],
    );
  }
  console.log(`\nstartup, ${runs} runs each (ratio = svc / peer or limit; MiB = 2^20 bytes)\n`);
  console.log(formatTable(['metric', 'svc', 'peer/limit', 'ratio'], rows));

  const allMs = median(ms(results['svc-all']));
  const allMiB = median(mib(results['svc-all']));
  const startupOk = allMs <= GOAL_FIRST_200_MS;
  const rssOk = allMiB <= GOAL_IDLE_RSS_MIB;
  console.log(`\nwith all ${MODULE_COUNT} modules: first 200 ≤ ${GOAL_FIRST_200_MS} ms (median): ${startupOk ? 'MET' : 'MISSED'} (${fixed(allMs)} ms; goal ≤ ${AIM_FIRST_200_MS} ms ${allMs <= AIM_FIRST_200_MS ? 'met' : 'not yet'})`);
  console.log(
    `with all ${MODULE_COUNT} modules: idle RSS ≤ ${GOAL_IDLE_RSS_MIB} MiB (median): ${rssOk ? 'MET' : 'MISSED'} (${fixed(allMiB)} MiB = ${fixed((allMiB * 1048576) / 1e6)} MB decimal; goal ≤ ${AIM_IDLE_RSS_MIB} MiB ${allMiB <= AIM_IDLE_RSS_MIB ? 'met' : 'not yet'})`,
  );
  if (process.env.BENCH_ENFORCE === '1' && !(startupOk && rssOk)) throw new Error('a startup requirement was missed (BENCH_ENFORCE=1)');
}

runBench('startup.bench', benchTimeoutMs(300), main);
