/**
 * Shared helpers of the benchmarks (test/bench/*.bench.ts): the binary under test, child
 * processes that are always cleaned up, /proc readings, statistics and tables.
 * Not a bench itself (run.ts only runs *.bench.ts) and never loaded by `bun test`.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, release, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { binaryName, buildTarget, hostTarget } from '../../build';

export const REPO = resolve(import.meta.dir, '../..');
export const BENCH_DIR = import.meta.dir;

// ---------------------------------------------------------------------------------------------
// Cleanup registry: every child and temp dir a bench makes is removed on success, failure,
// timeout and Ctrl-C alike.

type Proc = Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
const liveChildren = new Set<Proc>();
const liveDirs = new Set<string>();

/** A new empty temp dir, removed by cleanupAll() unless removed earlier with removeDir(). */
export function makeTempDir(prefix: string, base = tmpdir()): string {
  const dir = mkdtempSync(join(base, prefix));
  liveDirs.add(dir);
  return dir;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  liveDirs.delete(dir);
}

/** Synchronous last-resort cleanup: SIGKILL every child still running, remove every temp dir. */
export function cleanupAll(): void {
  for (const proc of liveChildren) {
    try {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  liveChildren.clear();
  for (const dir of liveDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
  liveDirs.clear();
}

/**
 * Runs a bench's main function with a watchdog: on success, error, timeout, SIGINT/SIGTERM or an
 * event loop that drains before main settles, children are killed and temp dirs removed.
 */
export function runBench(name: string, timeoutMs: number, main: () => Promise<void>): void {
  let settled = false;
  const fail = (why: string, code = 1): void => {
    if (settled) return;
    settled = true;
    console.error(`\n${name}: FAILED: ${why}`);
    const exits = [...liveChildren].map((proc) => proc.exited);
    cleanupAll();
    // Reap the killed children (briefly) so none is left behind as a zombie.
    void Promise.race([Promise.all(exits), Bun.sleep(2000)]).then(() => process.exit(code));
  };
  const watchdog = setTimeout(() => fail(`timed out after ${Math.round(timeoutMs / 1000)} s (set BENCH_TIMEOUT_S to change)`), timeoutMs);
  process.on('SIGINT', () => fail('interrupted (SIGINT)', 130));
  process.on('SIGTERM', () => fail('terminated (SIGTERM)', 143));
  process.on('beforeExit', () => fail('the event loop drained before the bench finished'));
  process.on('exit', () => cleanupAll());
  main().then(
    () => {
      if (settled) return;
      settled = true;
      clearTimeout(watchdog);
      cleanupAll();
      process.exit(0);
    },
    (error: unknown) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)),
  );
}

/** Bench-wide time limit: BENCH_TIMEOUT_S or the given default. */
export function benchTimeoutMs(defaultSeconds: number): number {
  return envNumber('BENCH_TIMEOUT_S', defaultSeconds) * 1000;
}

export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}=${raw}: expected a positive number`);
  return value;
}

/** The environment children get: the caller's, minus every SVC_* (as bun test's preload does). */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('SVC_') || key === 'BUN_BE_BUN' || key.startsWith('BARE_')) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

// ---------------------------------------------------------------------------------------------
// Child processes

/** A child process whose stdout and stderr are drained line by line (a full pipe would stall it). */
export class Child {
  readonly proc: Proc;
  readonly started = performance.now();
  private readonly lines: string[] = [];
  private readonly watchers = new Set<(line: string) => void>();

  constructor(
    readonly label: string,
    cmd: string[],
    options: { env: Record<string, string>; cwd?: string },
  ) {
    this.proc = Bun.spawn(cmd, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: options.env, cwd: options.cwd });
    liveChildren.add(this.proc);
    void this.pump(this.proc.stdout);
    void this.pump(this.proc.stderr);
  }

  get pid(): number {
    return this.proc.pid;
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  private async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          this.push(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          newline = buffer.indexOf('\n');
        }
      }
    } catch {
      /* the stream closes when the process dies */
    }
    if (buffer.length > 0) this.push(buffer);
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > 400) this.lines.splice(0, this.lines.length - 200);
    for (const watch of this.watchers) watch(line);
  }

  /** "exit code N" / "signal SIGX" / "running", for error messages. */
  describeExit(): string {
    if (this.proc.signalCode !== null) return `killed by ${this.proc.signalCode}`;
    if (this.proc.exitCode !== null) return `exit code ${this.proc.exitCode}`;
    return 'running';
  }

  /** Throws (with the last output lines) when the process has ended. */
  assertRunning(context: string): void {
    if (!this.running) throw new Error(`${this.label} (pid ${this.pid}) ended (${this.describeExit()}) ${context}; its last output:\n${this.tail(40)}`);
  }

  /** The last output lines, for error messages. */
  tail(count = 20): string {
    return this.lines.slice(-count).join('\n');
  }

  /** Resolves with the first non-undefined value of pick(line), over past and future lines. */
  waitForLine<T>(pick: (line: string) => T | undefined, timeoutMs: number, what: string): Promise<T> {
    for (const line of this.lines) {
      const value = pick(line);
      if (value !== undefined) return Promise.resolve(value);
    }
    return new Promise<T>((resolvePromise, reject) => {
      const finish = (error: Error | undefined, value?: T): void => {
        clearTimeout(timer);
        this.watchers.delete(watch);
        if (error) reject(error);
        else resolvePromise(value as T);
      };
      const watch = (line: string): void => {
        const value = pick(line);
        if (value !== undefined) finish(undefined, value);
      };
      const timer = setTimeout(() => finish(new Error(`${this.label}: no ${what} within ${timeoutMs} ms; output:\n${this.tail()}`)), timeoutMs);
      this.watchers.add(watch);
      void this.proc.exited.then((code) => {
        // Let the pumps deliver the last lines before giving up.
        setTimeout(() => finish(new Error(`${this.label}: exited (${code}) before ${what}; output:\n${this.tail()}`)), 50);
      });
    });
  }

  /** Waits up to timeoutMs for the process to end by itself, then stops it; resolves with the exit code. */
  async waitExit(timeoutMs: number): Promise<number | null> {
    await Promise.race([this.proc.exited, Bun.sleep(timeoutMs)]);
    if (this.running) console.error(`  ${this.label} (pid ${this.pid}) still running ${timeoutMs} ms after it should have ended: stopping it`);
    return this.stop(2000);
  }

  /** SIGTERM, then SIGKILL after graceMs; resolves with the exit code (null when killed by a signal). */
  async stop(graceMs = 5000): Promise<number | null> {
    if (this.running) {
      this.proc.kill('SIGTERM');
      const exitedInTime = await Promise.race([this.proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
      if (!exitedInTime) {
        console.error(`  ${this.label} (pid ${this.pid}) ignored SIGTERM for ${graceMs} ms: SIGKILL`);
        this.proc.kill('SIGKILL');
      }
    }
    await this.proc.exited;
    liveChildren.delete(this.proc);
    return this.proc.signalCode === null ? this.proc.exitCode : null;
  }
}

/** Runs a command to completion with a time limit; returns stdout (throws on failure). */
export function runQuick(cmd: string[], env: Record<string, string> = childEnv(), timeoutMs = 10_000): string {
  const result = Bun.spawnSync(cmd, { env, stdout: 'pipe', stderr: 'pipe', timeout: timeoutMs });
  if (!result.success) throw new Error(`${cmd.join(' ')} failed (${result.exitCode ?? result.signalCode}): ${result.stderr.toString().trim()}`);
  return result.stdout.toString().trim();
}

// ---------------------------------------------------------------------------------------------
// /proc readings (Linux)

/** VmRSS of a process in KiB. */
export function readRssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]);
}

let clockTicks: number | undefined;

/** User + system CPU seconds a process has used so far. */
export function readCpuSeconds(pid: number): number {
  clockTicks ??= Number(runQuick(['getconf', 'CLK_TCK'])) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / clockTicks;
}

/** CPU seconds the whole machine has spent busy (not idle or waiting on I/O), all cores. */
export function readMachineBusySeconds(): number {
  clockTicks ??= Number(runQuick(['getconf', 'CLK_TCK'])) || 100;
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((sum, n) => sum + n, 0);
  return (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) / clockTicks;
}

/**
 * How busy the machine is without us: cores used over `ms`. Benchmarks on a shared 2-core
 * machine are noisy when this is high, so each bench prints it before it starts.
 */
export async function backgroundLoad(ms = 1000): Promise<number> {
  const busy0 = readMachineBusySeconds();
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  await Bun.sleep(ms);
  const self = process.cpuUsage(self0);
  const seconds = (performance.now() - t0) / 1000;
  return Math.max(0, (readMachineBusySeconds() - busy0 - (self.user + self.system) / 1e6) / seconds);
}

export function loadLine(label: string, cores: number): string {
  const loadavg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const warn = cores > 0.15 ? '  WARNING: other processes are using CPU; results will be noisy' : '';
  return `${label}: other processes ${fixed(cores * 100, 0)}% of a core over 1 s; loadavg ${loadavg}${warn}`;
}

// ---------------------------------------------------------------------------------------------
// Ports and HTTP

/** True when nothing listens on 127.0.0.1:port. */
export function isPortFree(port: number): boolean {
  try {
    const listener = Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } });
    listener.stop(true);
    return true;
  } catch {
    return false;
  }
}

export async function waitForPortFree(port: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!isPortFree(port)) {
    if (performance.now() > deadline) throw new Error(`port ${port} is still in use after ${timeoutMs} ms`);
    await Bun.sleep(20);
  }
}

export function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

/** GET with a time limit; returns status and body. */
export async function get(url: string, headers: Record<string, string> = {}, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, body: await response.text() };
}

/** The port in a JSON log line such as the controller's "API listening on …". */
export function listeningPort(line: string, msgPrefix: string): number | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
    if (typeof entry.msg === 'string' && entry.msg.startsWith(msgPrefix) && typeof entry.port === 'number' && entry.port > 0) return entry.port;
  } catch {
    /* not JSON */
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The binaries under test

function newestMtime(path: string): { mtime: number; file: string } {
  const stat = statSync(path);
  if (!stat.isDirectory()) return { mtime: stat.mtimeMs, file: path };
  let newest = { mtime: 0, file: path };
  for (const entry of readdirSync(path)) {
    const candidate = newestMtime(join(path, entry));
    if (candidate.mtime > newest.mtime) newest = candidate;
  }
  return newest;
}

/** The newest file among everything compiled into the svc binary. */
function newestSource(): { mtime: number; file: string } {
  let newest = { mtime: 0, file: '' };
  for (const path of ['src', 'config', 'package.json', 'build.ts', 'bun.lock']) {
    const full = join(REPO, path);
    if (!existsSync(full)) continue;
    const candidate = newestMtime(full);
    if (candidate.mtime > newest.mtime) newest = candidate;
  }
  return newest;
}

export interface SvcBinary {
  path: string;
  /** Why this binary: "BENCH_SVC_BINARY", "dist (up to date)", "fresh build (…)". */
  origin: string;
}

/**
 * The svc binary to measure: BENCH_SVC_BINARY if set; else dist/svc-<host> when it is newer
 * than every source; else a fresh build into a temp dir (BENCH_BUILD=1 forces that). A failed
 * build falls back to a stale dist binary with a warning.
 */
export async function resolveSvcBinary(): Promise<SvcBinary> {
  const forced = process.env.BENCH_SVC_BINARY;
  if (forced) {
    const path = resolve(forced);
    if (!existsSync(path)) throw new Error(`BENCH_SVC_BINARY=${forced}: no such file`);
    return { path, origin: 'BENCH_SVC_BINARY' };
  }
  const target = hostTarget();
  const dist = join(REPO, 'dist', binaryName(target));
  const newest = newestSource();
  let reason: string;
  if (process.env.BENCH_BUILD === '1') reason = 'BENCH_BUILD=1';
  else if (!existsSync(dist)) reason = `no ${binaryName(target)} in dist/`;
  else if (statSync(dist).mtimeMs < newest.mtime) reason = `dist/${binaryName(target)} is older than ${newest.file.slice(REPO.length + 1)}`;
  else return { path: dist, origin: 'dist/ (newer than every source file)' };

  const dir = makeTempDir('svc-bench-bin-');
  const outfile = join(dir, binaryName(target));
  const started = performance.now();
  try {
    await buildTarget(target, outfile);
  } catch (error) {
    if (!existsSync(dist)) throw error;
    console.warn(`WARNING: building the current sources failed; measuring the stale ${dist} instead.\n${String(error).slice(0, 2000)}`);
    return { path: dist, origin: `STALE dist/ (${reason}; the fresh build failed)` };
  }
  return { path: outfile, origin: `fresh build of the working tree in ${Math.round(performance.now() - started)} ms (${reason})` };
}

/**
 * Compiles bare-server.ts the way build.ts compiles svc (same Bun, minify, bytecode, esm), so
 * the baseline differs from svc only in what the code does.
 */
export async function buildBareServer(entry: 'bare-server' | 'bare-elysia' = 'bare-server'): Promise<string> {
  const target = hostTarget();
  const dir = makeTempDir(`svc-bench-${entry}-`);
  const outfile = join(dir, `${entry}${target.startsWith('windows') ? '.exe' : ''}`);
  const result = await Bun.build({
    entrypoints: [join(BENCH_DIR, `${entry}.ts`)],
    compile: { target: `bun-${target}` as Bun.Build.CompileTarget, outfile },
    minify: true,
    bytecode: true,
    format: 'esm',
  });
  if (!result.success) throw new AggregateError(result.logs, `build of ${entry}.ts failed:\n${result.logs.map(String).join('\n')}`);
  return outfile;
}

/** Prints what was measured with what: binaries, Bun, machine, git state. */
export function printSetup(title: string, svc: SvcBinary, extra: string[] = []): void {
  const stat = statSync(svc.path);
  let svcVersion = '?';
  let embeddedBun = '?';
  try {
    svcVersion = runQuick([svc.path, 'version']);
  } catch (error) {
    svcVersion = `(\`version\` failed: ${String(error).slice(0, 200)})`;
  }
  try {
    // A compiled Bun executable behaves as the bun CLI with BUN_BE_BUN=1.
    embeddedBun = runQuick([svc.path, '--revision'], childEnv({ BUN_BE_BUN: '1' }));
  } catch {
    /* older runtimes */
  }
  let git = '?';
  try {
    const head = runQuick(['git', '-C', REPO, 'rev-parse', '--short', 'HEAD']);
    const dirty = runQuick(['git', '-C', REPO, 'status', '--porcelain', '--', 'src', 'config', 'package.json', 'build.ts', 'bun.lock']);
    git = `${head}${dirty ? ` + uncommitted changes to ${dirty.split('\n').length} source file(s)` : ''}`;
  } catch {
    /* not a git checkout */
  }
  const cpu = cpus();
  console.log(`== ${title} ==`);
  console.log(`svc binary : ${svc.path}`);
  console.log(`             ${svcVersion}, ${(stat.size / 1024 / 1024).toFixed(1)} MiB, modified ${stat.mtime.toISOString()}, embedded Bun ${embeddedBun}`);
  console.log(`             origin: ${svc.origin}; git ${git}`);
  console.log(`bench Bun  : ${Bun.version}+${Bun.revision.slice(0, 9)} (${process.execPath})`);
  console.log(`machine    : ${cpu.length} × ${cpu[0]?.model.trim() ?? '?'}, Linux ${release()}`);
  for (const line of extra) console.log(line);
  console.log('');
}

// ---------------------------------------------------------------------------------------------
// Statistics and output

function sorted(values: readonly number[]): number[] {
  if (values.length === 0) throw new Error('no samples');
  return [...values].sort((a, b) => a - b);
}

export function median(values: readonly number[]): number {
  const s = sorted(values);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  const s = sorted(values);
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)));
  return s[rank - 1]!;
}

export function min(values: readonly number[]): number {
  return sorted(values)[0]!;
}

export function max(values: readonly number[]): number {
  return sorted(values).at(-1)!;
}

export function fixed(value: number, digits = 1): string {
  return value.toFixed(digits);
}

/** A plain-text table with `|` separators and a header rule. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
}

export interface PacedResult {
  /** Latency of each request from its due time (so a stalled sender counts against the server, not hidden). */
  latencies: number[];
  failed: number;
  firstFailure?: string;
  seconds: number;
}

/**
 * Open-loop GETs: request n is due at start + n / rate, whatever the answers before it did;
 * paths are taken round-robin from `first` on. Answers other than 200 count as failed.
 */
export async function pacedGets(url: string, paths: readonly string[], options: { rate: number; seconds: number; headers: Record<string, string>; first?: number }): Promise<PacedResult> {
  const { rate, seconds, headers, first = 0 } = options;
  const latencies: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  const inFlight: Promise<void>[] = [];
  const total = seconds * rate;
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    for (; sent < due; sent++) {
      const dueAt = start + (sent / rate) * 1000;
      const path = paths[(first + sent) % paths.length]!;
      inFlight.push(
        fetch(url + path, { headers })
          .then(async (res) => {
            const body = await res.text();
            if (res.status !== 200) {
              failed++;
              firstFailure ??= `${res.status} ${path}: ${body.slice(0, 200)}`;
            }
          })
          .catch((error: unknown) => {
            failed++;
            firstFailure ??= `${path}: ${String(error)}`;
          })
          .then(() => void latencies.push(performance.now() - dueAt)),
      );
    }
    await Bun.sleep(1);
  }
  await Promise.all(inFlight);
  return { latencies, failed, firstFailure, seconds: (performance.now() - start) / 1000 };
}
