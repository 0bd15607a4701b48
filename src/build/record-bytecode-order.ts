/**
 * Records which functions a start of the controller runs, for build.ts's `bytecodeOrder`: Bun
 * then lays that bytecode out together at the front of the executable, so a start touches
 * fewer of its pages (measured with every module: 5.9 → 3.4 MiB of the payload resident).
 *
 * The recorded start is the common one: a fresh directory (every module installed), the first
 * answers, the calls a dashboard makes when it opens, a moment idle, a graceful stop. A profile
 * from an older build still applies (functions are matched by their content); re-record after
 * large changes to the start path:
 *
 *   bun run record-order      rebuilds the host binary, records, writes src/build/startup.bytecode-order
 *
 * A build tool, not part of the binary: nothing under src/ imports this folder.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryName, buildTarget, BYTECODE_ORDER, hostTarget } from '../../build';

const DASHBOARD_OPENING = ['/api/health', '/api/groups', '/api/services', '/api/dedicated', '/api/modules', '/api/metrics/performance', '/api/players/all', '/api/audit?limit=20'];
const START_TIMEOUT_MS = 20_000;
const IDLE_MS = 1500;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-order-'));
  try {
    const binary = await buildTarget(hostTarget(), join(work, binaryName(hostTarget())));
    const dir = join(work, 'run');
    const order = join(work, 'order');
    // Any free port; everything else as a first launch has it.
    mkdirSync(dir);
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\n');
    const child = Bun.spawn([binary, '--dir', dir], { env: { ...process.env, BUN_BYTECODE_ORDER_OUT: order }, stdout: 'ignore', stderr: 'inherit' });
    const url = await waitForUrl(dir, child);
    const token = readFileSync(join(dir, 'data', 'api-token'), 'utf8').trim();
    for (const path of DASHBOARD_OPENING) await (await fetch(url + path, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
    await Bun.sleep(IDLE_MS);
    child.kill('SIGTERM');
    if ((await child.exited) !== 0) throw new Error(`the controller exited with ${child.exitCode}`);
    copyFileSync(order, BYTECODE_ORDER);
    console.log(`wrote ${BYTECODE_ORDER}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The API's URL, from the runtime file the controller writes once it listens. */
async function waitForUrl(dir: string, child: Bun.Subprocess): Promise<string> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the controller exited with ${child.exitCode} before listening`);
    try {
      const { url } = JSON.parse(readFileSync(join(dir, 'data', 'controller.json'), 'utf8')) as { url: string };
      const health = await fetch(`${url}/api/health`);
      if (health.ok) return url;
    } catch {
      // not listening yet
    }
    await Bun.sleep(20);
  }
  throw new Error(`the controller did not answer within ${START_TIMEOUT_MS} ms`);
}

if (import.meta.main) await main();
