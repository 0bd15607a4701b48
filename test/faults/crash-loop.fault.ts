import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';

/**
 * Issue 38, finding 7, as it was found, with an operator's defaults (the 10 s scaling tick, the
 * default restart policy, the default breaker of 10 crashes within 5 min): a group whose start
 * command exits at once was started again and again by its min_instances refill (25 crashes in
 * 4 minutes with restart_on_crash = false), and any quarantine was forgotten by a controller
 * restart. Now both loops, refill and crash restarts, stop at 10 crashes; the quarantine holds
 * across a kill -9 of the controller; `svc cli` lifts one, which loops into a fresh quarantine
 * after 10 new crashes, never forever. Minutes of wall time: a fault suite, not `bun test`.
 */
const TOKEN = 'crash-loop-fault-token-0123456789';
const THRESHOLD = 10;
let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 180_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

const groupToml = (command: string, lifecycle: string) =>
  `[group]\nsoftware = "CUSTOM"\nversion = "1.21.1"\njar_name = "server.jar"\nstart_command = ["sh", "-c", ${JSON.stringify(command)}]\n[group.scaling]\nmin_instances = 1\nmax_instances = 1\n[group.lifecycle]\n${lifecycle}\n`;
const CRASH = 'echo "fixture: cannot start"; exit 3';
/** A server that runs until it is told `stop`. */
const IDLE = 'while read line; do [ "$line" = stop ] && exit 0; done';

type Api = (path: string, init?: RequestInit) => Promise<Response>;
const crashesOf = async (api: Api, group: string): Promise<number> => {
  const text = await (await api('/api/metrics')).text();
  return Number(new RegExp(`^svc_service_crashes_total\\{group="${group}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
};
const quarantineOf = async (api: Api, group: string) => (await readJson(await api(`/api/groups/${group}`))).quarantine;

/**
 * Lets `ticks` scaling ticks pass, each proven by a new group that only the refill starts (the
 * refill visits groups in name order, so Loop groups come before the Zz probes).
 */
async function scalingTicks(dir: string, api: Api, tag: string, ticks: number): Promise<void> {
  for (let i = 0; i < ticks; i++) {
    const probe = `Zz${tag}${i}`;
    writeFileSync(join(dir, `config/groups/${probe}.toml`), groupToml(IDLE, ''));
    expect((await api('/api/reload', { method: 'POST' })).status).toBe(200);
    await waitFor(async () => (await readJson(await api(`/api/services?group=${probe}`))).services.some((s: { pid: number | null }) => s.pid !== null), { what: `${probe} started by a scaling tick`, timeoutMs: 40_000, intervalMs: 250 });
  }
}

describe('crash loops with the defaults (compiled binary)', () => {
  test('the refill and crash restarts both stop at 10 crashes; the quarantine survives kill -9; a lift loops into a fresh quarantine, never forever', async () => {
    const { dir, remove } = tempDir('svc-crash-loop-fault-');
    cleanups.push(remove);
    cleanups.push(() => killGameServers(dir, []));
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
    mkdirSync(join(dir, 'config/groups'), { recursive: true });
    writeFileSync(join(dir, 'config/groups/LoopRefill.toml'), groupToml(CRASH, 'restart_on_crash = false'));
    writeFileSync(join(dir, 'config/groups/LoopRestarts.toml'), groupToml(CRASH, 'restart_on_crash = true'));

    const first = await startBinaryController(svc, dir, TOKEN, cleanups);
    const began = performance.now();
    for (const group of ['LoopRefill', 'LoopRestarts']) {
      await waitFor(() => quarantineOf(first.api, group), { what: `${group} quarantined`, timeoutMs: 240_000, intervalMs: 1000 });
    }
    // Quarantined within the window, where the fault ran 25 crashes in 4 minutes and on.
    expect(performance.now() - began).toBeLessThan(5 * 60_000);
    for (const group of ['LoopRefill', 'LoopRestarts']) {
      expect(await quarantineOf(first.api, group)).toMatchObject({ crashes: THRESHOLD, reason: `crash loop: ${THRESHOLD} crashes within 5 min` });
      expect(await crashesOf(first.api, group)).toBe(THRESHOLD);
    }
    await scalingTicks(dir, first.api, 'A', 2);
    for (const group of ['LoopRefill', 'LoopRestarts']) expect(await crashesOf(first.api, group)).toBe(THRESHOLD);

    // A controller crash: the quarantines are on disk, not in its memory.
    first.child.kill('SIGKILL');
    await first.child.exited;
    const restartedAt = Date.now();
    const second = await startBinaryController(svc, dir, TOKEN, cleanups);
    for (const group of ['LoopRefill', 'LoopRestarts']) expect(await quarantineOf(second.api, group)).toMatchObject({ crashes: THRESHOLD });
    await scalingTicks(dir, second.api, 'B', 2);
    // Nothing of either group was started by this controller (the crashed instance it found on
    // disk is reported as it was left, not run again).
    for (const group of ['LoopRefill', 'LoopRestarts']) {
      const services: { state: string; pid: number | null; startedAt: string | null }[] = (await readJson(await second.api(`/api/services?group=${group}`))).services;
      expect(services.every((s) => s.state === 'CRASHED' && s.pid === null && (s.startedAt === null || Date.parse(s.startedAt) < restartedAt))).toBe(true);
    }

    // Lifted by the remote console: it starts again, and a loop still ends at the breaker,
    // after a full threshold of new crashes (those before the lift are forgotten).
    const crashesBefore = await crashesOf(second.api, 'LoopRestarts');
    const lift = Bun.spawnSync([svc, 'cli', '--url', second.url, '-c', 'quarantine lift LoopRestarts'], { env: { PATH: process.env.PATH ?? '', SVC_API_TOKEN: TOKEN, NO_COLOR: '1' }, stdout: 'pipe', stderr: 'pipe', timeout: 30_000 });
    expect(lift.exitCode).toBe(0);
    expect(lift.stdout.toString()).toContain('the quarantine of group LoopRestarts');
    await waitFor(() => quarantineOf(second.api, 'LoopRestarts'), { what: 'LoopRestarts quarantined again', timeoutMs: 240_000, intervalMs: 1000 });
    expect((await crashesOf(second.api, 'LoopRestarts')) - crashesBefore).toBe(THRESHOLD);
    expect(await quarantineOf(second.api, 'LoopRefill')).not.toBeNull();
    const audit = await readJson(await second.api('/api/audit?action=GROUP_QUARANTINE_LIFTED'));
    expect(audit.entries[0]).toMatchObject({ target: 'LoopRestarts', actor: 'api:admin' });

    second.child.kill('SIGKILL');
    await second.child.exited;
  }, 12 * 60_000);
});
