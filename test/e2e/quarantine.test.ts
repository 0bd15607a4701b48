import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';

/**
 * Issue 38, finding 7, through the compiled binary: a group whose start command exits at once,
 * with restart_on_crash = false, is started again and again by its min_instances refill until
 * the breaker quarantines it (the default 10 crashes within 5 min); the quarantine is in
 * /api/groups, the doctor (live and `svc doctor`) and `svc cli`; it holds after the controller
 * restarts (nothing starts the group); it is lifted by the API and the group starts again.
 */
const TOKEN = 'quarantine-e2e-token-0123456789';
const DEFAULT_THRESHOLD = 10;
const LOOP_SLOTS = 5;
let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

const groupToml = (command: string, min: number) =>
  `[group]\nsoftware = "CUSTOM"\nversion = "1.21.1"\njar_name = "server.jar"\nstart_command = ["sh", "-c", ${JSON.stringify(command)}]\n[group.scaling]\nmin_instances = ${min}\nmax_instances = ${min}\n[group.lifecycle]\nrestart_on_crash = false\n`;

type Api = (path: string, init?: RequestInit) => Promise<Response>;
const servicesOf = async (api: Api, group: string): Promise<{ name: string; state: string; startedAt: string | null; pid: number | null }[]> => (await readJson(await api(`/api/services?group=${group}`))).services;

function run(args: string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const result = Bun.spawnSync([svc, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'pipe', stderr: 'pipe', timeout: 30_000 });
  return { code: result.exitCode ?? -1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

describe('the crash-loop breaker remembers (compiled binary)', () => {
  test('quarantined by the refill, still quarantined after a restart with no new start, shown, lifted by the API, started again', async () => {
    const { dir, remove } = tempDir('svc-quarantine-e2e-');
    cleanups.push(remove);
    cleanups.push(() => killGameServers(dir, []));
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[controller]\nscaling_tick_interval = 1\n[services]\nisolation = "none"\n');
    mkdirSync(join(dir, 'config/groups'), { recursive: true });
    // Five slots: each refill tick (1 s) starts five that crash, so the breaker trips at the second tick, not the tenth.
    writeFileSync(join(dir, 'config/groups/Loop.toml'), groupToml('echo "fixture: cannot start"; exit 3', LOOP_SLOTS));

    const first = await startBinaryController(svc, dir, TOKEN, cleanups);
    const quarantine = await waitFor(async () => (await readJson(await first.api('/api/groups/Loop'))).quarantine, { what: 'Loop quarantined', timeoutMs: 60_000, intervalMs: 200 });
    expect(quarantine).toMatchObject({ reason: `crash loop: ${DEFAULT_THRESHOLD} crashes within 5 min`, crashes: DEFAULT_THRESHOLD, lastExitCode: 3 });
    expect(quarantine.lastService).toMatch(new RegExp(`^Loop-[1-${LOOP_SLOTS}]$`));
    expect(quarantine.lift).toContain('DELETE /api/groups/Loop/quarantine');
    expect(await first.api('/api/metrics').then((r) => r.text())).toContain(`svc_service_crashes_total{group="Loop"} ${DEFAULT_THRESHOLD}`);
    await first.out.waitForLine((l) => l.includes('group Loop is quarantined since') && l.includes('"level":50'));

    // Shown by the live doctor and the remote console.
    const doctor = await readJson(await first.api('/api/doctor'));
    const finding = doctor.sections.flatMap((s: { findings: { level: string; message: string; hint: string }[] }) => s.findings).find((f: { message: string }) => f.message.startsWith('group Loop is quarantined'));
    expect(finding).toMatchObject({ level: 'FAIL', hint: expect.stringContaining('quarantine lift Loop') });
    const listed = run(['cli', '--url', first.url, '-c', 'quarantine list'], { SVC_API_TOKEN: TOKEN, NO_COLOR: '1' });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`group Loop  since ${quarantine.since}  crash loop: ${DEFAULT_THRESHOLD} crashes within 5 min`);
    const refused = await first.api('/api/services/Loop/start', { method: 'POST' });
    expect(refused.status).toBe(409);
    expect((await readJson(refused)).error).toBe('GROUP_QUARANTINED');

    // The controller goes (as after a crash) and comes back on the same directory.
    first.child.kill('SIGKILL');
    await first.child.exited;
    const offline = run(['doctor', '--dir', dir]);
    expect(offline.stdout).toMatch(/FAIL\s+group Loop is quarantined since/);

    const restartedAt = Date.now();
    const second = await startBinaryController(svc, dir, TOKEN, cleanups);
    expect((await readJson(await second.api('/api/groups/Loop'))).quarantine).toEqual(quarantine);
    await second.out.waitForLine((l) => l.includes('not started at boot') && l.includes('group Loop is quarantined'), 20_000);
    // A group created now is started by the scaling refill at its next tick; the same tick
    // passes over Loop (groups are visited in name order: Loop, then Probe). Two such ticks.
    for (const probe of ['Probe', 'Probe2']) {
      writeFileSync(join(dir, `config/groups/${probe}.toml`), groupToml('while read line; do [ "$line" = stop ] && exit 0; done', 1));
      expect((await second.api('/api/reload', { method: 'POST' })).status).toBe(200);
      await waitFor(async () => (await servicesOf(second.api, probe)).some((s) => s.pid !== null), { what: `${probe} started by a scaling tick`, timeoutMs: 20_000, intervalMs: 100 });
    }
    const loop = await servicesOf(second.api, 'Loop');
    expect(loop.every((s) => s.state === 'CRASHED' && s.pid === null && (s.startedAt === null || Date.parse(s.startedAt) < restartedAt))).toBe(true);
    expect((await readJson(await second.api('/api/status'))).groups.find((g: { name: string }) => g.name === 'Loop').quarantined).toBe(true);

    // Lifted by the API: the refill starts it again.
    const liftedAt = Date.now();
    const lifted = await second.api('/api/groups/Loop/quarantine', { method: 'DELETE' });
    expect(lifted.status).toBe(200);
    expect(await readJson(lifted)).toMatchObject({ lifted: true, quarantine: { since: quarantine.since } });
    await waitFor(async () => (await servicesOf(second.api, 'Loop')).some((s) => s.startedAt !== null && Date.parse(s.startedAt) >= liftedAt), { what: 'Loop started again', timeoutMs: 20_000, intervalMs: 100 });
    const audit = await readJson(await second.api('/api/audit?action=GROUP_QUARANTINE_LIFTED'));
    expect(audit.entries[0]).toMatchObject({ actor: 'api:admin', target: 'Loop' });

    // The game servers are ended by the cleanup (killGameServers), not by a 30 s graceful stop.
    second.child.kill('SIGKILL');
    await second.child.exited;
  }, 120_000);
});
