import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryName, buildTarget, hostTarget } from '../../build';
import { Wakeup } from './wake';

let built: Promise<string> | undefined;

/**
 * Builds into one fixed folder per name under the temp dir, replacing what the last run left:
 * bun test fires no 'exit' to clean up after itself, so per-run folders (~110 MB each) would
 * pile up. The build goes to a private name first and is renamed into place, so a file being
 * served or run from that path is never half-written.
 */
async function buildInto(name: string, version?: string): Promise<string> {
  const dir = join(tmpdir(), 'svc-test-binaries');
  mkdirSync(dir, { recursive: true });
  const final = join(dir, name);
  const partial = `${final}.${process.pid}.building`;
  await buildTarget(hostTarget(), partial, { version });
  renameSync(partial, final);
  return final;
}

/**
 * The compiled `svc` for this machine, built once per test run (the binary is self-contained;
 * SVC_TEST_BINARY points at a prebuilt one instead).
 */
export function svcBinary(): Promise<string> {
  const prebuilt = process.env.SVC_TEST_BINARY;
  if (prebuilt && existsSync(prebuilt)) return Promise.resolve(prebuilt);
  built ??= buildInto(binaryName(hostTarget()));
  return built;
}

/** Lines of a child's stream, collected as they arrive; `waitForLine` blocks until one matches. */
export class LineCollector {
  readonly lines: string[] = [];
  private partial = '';
  private readonly wakeup = new Wakeup();
  ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    void this.pump(stream);
  }

  private async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const parts = (this.partial + decoder.decode(chunk, { stream: true })).split('\n');
      this.partial = parts.pop() ?? '';
      this.lines.push(...parts);
      this.wake();
    }
    if (this.partial) this.lines.push(this.partial);
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    this.wakeup.wake();
  }

  async waitForLine(match: (line: string) => boolean, timeoutMs = 10_000): Promise<string> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(match);
      if (found !== undefined) return found;
      if (this.ended) throw new Error(`stream ended without the expected line; got:\n${this.lines.join('\n')}`);
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw new Error(`timed out waiting for a line; got:\n${this.lines.join('\n')}`);
      await this.wakeup.wait(remaining);
    }
  }

  get text(): string {
    return this.lines.join('\n') + (this.partial ? `\n${this.partial}` : '');
  }
}

/**
 * Kills the given pids and every process group whose leader's command line names `dir` (the
 * sh wrappers of a test's game servers), so no game server outlives a test that failed.
 */
export function killGameServers(dir: string, pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  const listing = Bun.spawnSync(['ps', '-eo', 'pid=,args=']).stdout.toString();
  for (const line of listing.split('\n')) {
    if (!line.includes(dir)) continue;
    const pid = Number(line.trim().split(/\s+/)[0]);
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* not a group leader or gone */
    }
  }
}

/**
 * The compiled controller started on `dir` with the master token `token` and JSON logs; it
 * answers once its log says the API listens. `cleanups` gets the SIGKILL that ends it whatever
 * the test does. `api` sends the token and a JSON content type.
 */
export async function startBinaryController(svc: string, dir: string, token: string, cleanups: (() => void)[]) {
  const child = Bun.spawn([svc, '--dir', dir], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', SVC_API_TOKEN: token }, stdout: 'pipe', stderr: 'pipe' });
  cleanups.push(() => child.kill('SIGKILL'));
  const out = new LineCollector(child.stdout);
  const listening = await out.waitForLine((l) => l.includes('API listening'));
  const url = `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`;
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });
  return { child, out, url, api };
}

const variants = new Map<string, Promise<string>>();

/** The svc binary built as release `version` (a stand-in for a newer or older release in update tests). */
export function svcBinaryAs(version: string): Promise<string> {
  let variant = variants.get(version);
  if (!variant) {
    variant = buildInto(`${binaryName(hostTarget())}-as-${version}`, version);
    variants.set(version, variant);
  }
  return variant;
}
