import { afterAll, afterEach, expect } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProcessHandle, launch, type LaunchSpec } from '../../../../src/core/supervisor/process';
import { pidAlive } from '../../../../src/core/supervisor/process/pid-probe';

/**
 * Shared by the process-layer tests: real processes, so every test registers what it started
 * and afterEach SIGKILLs it and asserts that the server and its wrapper are really gone.
 * Waits are for conditions with deadlines, never fixed sleeps.
 */
const FIXTURES = join(import.meta.dir, '../../../fixtures');
export const BUN = process.execPath;
export const FAKE_PAPER = join(FIXTURES, 'fake-paper.ts');
export const RUNNER_ECHO = join(FIXTURES, 'runner-echo.ts');
export const RUNNER_ARGV = join(FIXTURES, 'runner-argv.ts');
export const RUNNER_HOST = join(FIXTURES, 'runner-host.ts');
export const DONE = /^\[12:00:00 INFO\]: Done \(1\.234s\)! For help, type "help"$/;
export const paperArgv = (...flags: string[]) => [BUN, FAKE_PAPER, '--port', '0', '--max-lifetime-ms', '60000', ...flags];
export const echoArgv = () => [BUN, RUNNER_ECHO, '--max-lifetime-ms', '60000'];

export const TIMEOUT_MS = 5_000;

/** Polls `condition` every few ms until it holds; throws after `timeoutMs`. */
export async function eventually(condition: () => boolean, what: string, timeoutMs = TIMEOUT_MS): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(5);
  }
}

export async function within<T>(promise: Promise<T>, what: string, timeoutMs = TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every line a handle delivers from now on, with waits on them. */
export class LineLog {
  readonly lines: string[] = [];
  #waiters: (() => void)[] = [];

  constructor(handle: ProcessHandle) {
    handle.onLine((line) => {
      this.lines.push(line);
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** Index of the first line at or after `from` matching `pattern` (past or future). */
  async waitFor(pattern: RegExp, from = 0, timeoutMs = TIMEOUT_MS): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    for (let index = from; ; ) {
      for (; index < this.lines.length; index++) if (pattern.test(this.lines[index] ?? '')) return index;
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw new Error(`no line matching ${pattern} within ${timeoutMs} ms; got:\n${this.lines.slice(-30).join('\n')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** Temp dirs and processes of one test file, cleaned up after each test / the file. */
export function processScope(prefix: string) {
  const dirs: string[] = [];
  let handles: ProcessHandle[] = [];
  let pids: number[] = [];

  afterEach(async () => {
    const started = [...handles.flatMap((h) => [h.pid, h.wrapperPid]), ...pids];
    for (const handle of handles) handle.signal('SIGKILL');
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    // A SIGKILLed server lets its wrapper record the exit and end by itself.
    await eventually(() => started.every((pid) => !pidAlive(pid)), `processes ${started.join(', ')} to end`);
    for (const pid of started) expect(pidAlive(pid)).toBe(false);
    for (const handle of handles) handle.close();
    handles = [];
    pids = [];
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  return {
    workDir(): string {
      const dir = mkdtempSync(join(tmpdir(), `svc-${prefix}-`));
      dirs.push(dir);
      return dir;
    },
    /** Registers a handle for the afterEach kill-and-check. */
    track<T extends ProcessHandle>(handle: T): T {
      handles.push(handle);
      return handle;
    },
    /** Registers a bare pid (a process the test started another way). */
    trackPid(pid: number): void {
      pids.push(pid);
    },
    /** launch() in a fresh work dir, tracked, with a LineLog attached before any line is delivered. */
    async start(argv: string[], extra: Partial<LaunchSpec> = {}): Promise<{ handle: ProcessHandle; log: LineLog; workDir: string }> {
      const workDir = extra.workDir ?? this.workDir();
      const handle = this.track(await launch({ name: 'test', workDir, argv, ...extra }));
      return { handle, log: new LineLog(handle), workDir };
    },
  };
}
