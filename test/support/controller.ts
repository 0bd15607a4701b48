import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, type ControllerOptions } from '../../src/controller';
import { deriveServiceToken } from '../../src/core/auth';

export const MASTER_TOKEN = 'test-master-token-0123456789abcdef';
export const CLUSTER_TOKEN = 'test-cluster-token-0123456789abcdef';

export interface TestController {
  controller: Controller;
  url: string;
  dir: string;
  master: string;
  service: string;
  cluster: string;
  logs: string[];
  /** Exit codes passed to exit() by a real shutdown. */
  shutdowns: number[];
  /** Reasons of POST /api/shutdown calls that were recorded instead of obeyed. */
  shutdownRequests: string[];
  /** fetch against the controller with the master token unless `token` says otherwise. */
  api(path: string, init?: RequestInit & { token?: string | null; json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
  /** Stops the controller and keeps its directory (for a restart on the same dir; remove it yourself). */
  stopKeepingDir(): Promise<void>;
}

/** Nothing listens on port 1: an upstream pointed there fails at once, without leaving the machine. */
export const OFFLINE_UPSTREAM = 'http://127.0.0.1:1';
const UPSTREAM_KEYS = ['papermc_url', 'purpur_url', 'pufferfish_url', 'leaf_url', 'fabric_url', 'forge_url', 'forge_promotions_url', 'neoforge_url', 'mojang_url', 'modrinth_url', 'hangar_url', 'curseforge_url'];

function softwareToml(overrides: Record<string, string | number>): string {
  const values: Record<string, string | number> = Object.fromEntries(UPSTREAM_KEYS.map((key) => [key, OFFLINE_UPSTREAM]));
  Object.assign(values, overrides);
  return ['[software]', ...Object.entries(values).map(([key, value]) => `${key} = ${JSON.stringify(value)}`)].join('\n');
}

/** A temporary working directory, removed by the returned function. */
export function tempDir(prefix = 'svc-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts a real controller in-process on a free port with a fresh temp dir and sqlite file.
 * `toml` is appended to a minimal svc.toml (port 0, known tokens, no rate limit unless set).
 */
export async function startController(
  options: {
    toml?: string;
    /** The API port (default 0: any free one); a restart test reuses the first one's. */
    port?: number;
    /** Extra lines inside the [api] table. */
    apiToml?: string;
    /** Extra lines inside the [cluster] table. */
    clusterToml?: string;
    /** The cluster token (default CLUSTER_TOKEN; '' for none). */
    clusterToken?: string;
    env?: Record<string, string>;
    rateLimit?: number;
    jwt?: boolean;
    /** Let POST /api/shutdown really stop the controller (exit is still recorded, not taken). */
    realShutdown?: boolean;
    /**
     * `[software]` keys (e.g. `papermc_url` of a fake upstream). Every upstream URL not given
     * points at a closed local port, so no test reaches the internet; a `toml` with its own
     * `[software]` table replaces this one.
     */
    software?: Record<string, string | number>;
  } & Partial<ControllerOptions> = {},
): Promise<TestController> {
  // A restart test passes the first controller's dir (and removes it itself).
  const own = options.dir ? null : tempDir();
  const dir = options.dir ?? own!.dir;
  const remove = own?.remove ?? (() => undefined);
  const base = [
    '[api]',
    `port = ${options.port ?? 0}`,
    `token = "${MASTER_TOKEN}"`,
    `rate_limit = ${options.rateLimit ?? 0}`,
    // The master token spends the network components' budget too: off unless a test sets it.
    /service_rate_limit/.test(options.apiToml ?? '') ? '' : 'service_rate_limit = 0',
    `jwt_enabled = ${options.jwt ?? true}`,
    options.apiToml ?? '',
    '[cluster]',
    `token = "${options.clusterToken ?? CLUSTER_TOKEN}"`,
    options.clusterToml ?? '',
    /^\s*\[software\]/m.test(options.toml ?? '') ? '' : softwareToml(options.software ?? {}),
    // The punishments module's name lookup, like every upstream, points at a closed local port unless a test names its own.
    /^\s*\[punishments\]/m.test(options.toml ?? '') ? '' : `[punishments]\nname_lookup_url = ${JSON.stringify(OFFLINE_UPSTREAM)}`,
    // Fixture servers run from the test tree with the bun under $HOME, which no service uid or
    // sandbox can reach: no isolation unless a test asks for it (test/e2e/isolation.test.ts does).
    /^\s*\[services\]/m.test(options.toml ?? '') ? '' : '[services]\nisolation = "none"',
  ].join('\n');
  if (!options.dir) writeFileSync(join(dir, 'svc.toml'), `${base}\n${options.toml ?? ''}\n`);
  const logs: string[] = [];
  const shutdowns: number[] = [];
  const shutdownRequests: string[] = [];
  const controller = await Controller.start({
    dir,
    env: options.env ?? {},
    stdout: { write: (line: string) => logs.push(line) },
    exit: (code) => shutdowns.push(code),
    heartbeat: options.heartbeat,
    modules: options.modules,
    timing: options.timing,
    scaling: options.scaling,
    cluster: options.cluster,
    // POST /api/shutdown is recorded, not obeyed, unless a test asks for the real thing.
    onShutdownRequest: options.realShutdown ? undefined : (options.onShutdownRequest ?? ((reason) => shutdownRequests.push(reason))),
  });
  const url = controller.url;
  return {
    controller,
    url,
    dir,
    master: MASTER_TOKEN,
    service: deriveServiceToken(MASTER_TOKEN),
    cluster: CLUSTER_TOKEN,
    logs,
    shutdowns,
    shutdownRequests,
    api(path, init = {}) {
      const headers = new Headers(init.headers);
      const token = init.token === undefined ? MASTER_TOKEN : init.token;
      if (token !== null) headers.set('authorization', `Bearer ${token}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(url + path, { ...init, headers, body });
    },
    async stop() {
      await controller.stop('test finished');
      remove();
    },
    async stopKeepingDir() {
      await controller.stop('test finished');
    },
  };
}

/**
 * Waits for a condition with a bounded timeout; never a fixed sleep. `intervalMs` spaces the
 * checks (10 ms by default; longer for a check that is a request and a condition that takes
 * seconds, so a loaded machine is not flooded).
 */
export async function waitFor<T>(check: () => T | Promise<T>, { timeoutMs = 5000, what = 'condition', intervalMs = 10 } = {}): Promise<NonNullable<T>> {
  // On the monotonic clock: tests that step or fake the wall clock still time out.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Asserts the spec's error body and returns it. */
export async function expectErrorBody(response: Response): Promise<{ success: false; message: string; error: string }> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`status ${response.status}: body is not JSON: ${text.slice(0, 200)}`);
  }
  const b = body as Record<string, unknown>;
  if (b.success !== false || typeof b.message !== 'string' || typeof b.error !== 'string' || b.message.length === 0) {
    throw new Error(`status ${response.status}: not the error body: ${text.slice(0, 200)}`);
  }
  return b as { success: false; message: string; error: string };
}

/** Parses a JSON response for assertions; test code inspects arbitrary JSON shapes. */
export async function readJson(response: Response): Promise<ReturnType<typeof JSON.parse>> {
  return JSON.parse(await response.text());
}
