/**
 * Requests as long as their work, through the compiled binary (issue 38, finding 4): a stop
 * that needs the kill took 30 s and was cut at 12 s with an empty reply (Bun.serve's idle
 * timeout), so its answer, and the spec's 409 SERVICE_STOP_FAILED, never reached the caller.
 *
 * Two forking servers that ignore `stop` and SIGTERM are stopped at once through the API:
 *   - Hang: killed after the 30 s stop timeout; the caller gets 200 after more than 30 s, and
 *     nothing the server forked is left;
 *   - Frozen: its wrapper (the parent that records the exit) is frozen with SIGSTOP, so after
 *     the kill the exit is never seen: the caller gets 409 SERVICE_STOP_FAILED after the 10 s
 *     kill timeout on top (about 40 s), the children are gone all the same (the kill reaches the
 *     whole group but the wrapper), and once the wrapper runs again the stop finishes by itself.
 *
 *   bun test ./test/faults/long-requests.fault.ts     (about 45 s)
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';
import { forkingServerArgv, killSleepers, sleepersOf, uniqueTag } from '../support/process-tree';

const TOKEN = 'long-requests-token-0123456789abcdef';
let svc: string;
const cleanups: (() => void)[] = [];
let frozen: number | null = null;
beforeAll(async () => {
  svc = await svcBinary();
}, 180_000);
afterAll(() => {
  if (frozen !== null) process.kill(frozen, 'SIGCONT');
  cleanups.splice(0).forEach((f) => f());
});

const groupToml = (command: string[]) =>
  `[group]\nsoftware = "CUSTOM"\nversion = "1.21.1"\nstart_command = ${JSON.stringify(command)}\n[group.scaling]\nmin_instances = 0\nmax_instances = 1\n[group.lifecycle]\ndrain_timeout = 0\nrestart_on_crash = false\n`;

describe('a stop that needs the kill answers its caller', () => {
  test('200 after the 30 s kill, 409 SERVICE_STOP_FAILED after the kill timeout; nothing of either is left', async () => {
    const hangTag = uniqueTag();
    const frozenTag = uniqueTag();
    cleanups.push(() => [hangTag, frozenTag].forEach(killSleepers));
    const { dir, remove } = tempDir('svc-long-');
    cleanups.push(remove);
    cleanups.push(() => killGameServers(dir, []));
    chmodSync(dir, 0o711);
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
    mkdirSync(join(dir, 'config/groups'), { recursive: true });
    writeFileSync(join(dir, 'config/groups/Hang.toml'), groupToml(forkingServerArgv(hangTag, 'hang')));
    writeFileSync(join(dir, 'config/groups/Frozen.toml'), groupToml(forkingServerArgv(frozenTag, 'hang')));
    const c = await startBinaryController(svc, dir, TOKEN, cleanups);

    for (const [group, tag] of [['Hang', hangTag], ['Frozen', frozenTag]] as const) {
      expect((await c.api(`/api/services/${group}/start`, { method: 'POST' })).status).toBe(201);
      await waitFor(async () => (await readJson(await c.api(`/api/services/${group}-1`))).state === 'READY', { what: `${group}-1 READY`, timeoutMs: 15_000 });
      await waitFor(() => sleepersOf(tag).length === 3, { what: `${group}'s sleepers` });
    }
    const record = JSON.parse(readFileSync(join(dir, 'data/run/Frozen-1/process.json'), 'utf8')) as { pid: number; wrapperPid: number };
    frozen = record.wrapperPid;
    process.kill(frozen, 'SIGSTOP');

    const timed = async (name: string) => {
      const started = performance.now();
      const response = await c.api(`/api/services/${name}/stop`, { method: 'POST' });
      return { status: response.status, body: await readJson(response), seconds: (performance.now() - started) / 1000 };
    };
    const [hang, stuck] = await Promise.all([timed('Hang-1'), timed('Frozen-1')]);

    expect(hang.status).toBe(200);
    expect(hang.body).toMatchObject({ success: true });
    expect(hang.seconds).toBeGreaterThan(29);
    expect(sleepersOf(hangTag)).toEqual([]);

    expect(stuck.status).toBe(409);
    expect(stuck.body).toMatchObject({ success: false, error: 'SERVICE_STOP_FAILED' });
    expect(stuck.body.message).toContain(`pid ${record.pid}`);
    expect(stuck.seconds).toBeGreaterThan(39);
    expect((await readJson(await c.api('/api/services/Frozen-1'))).state).toBe('STOPPING');
    expect(sleepersOf(frozenTag)).toEqual([]); // the kill reached the whole group but the frozen wrapper

    // The wrapper runs again: it records the kill, and the stop finishes by itself.
    process.kill(frozen, 'SIGCONT');
    frozen = null;
    await waitFor(async () => (await c.api('/api/services/Frozen-1')).status === 404, { what: 'the late stop to finish', timeoutMs: 10_000 });
  }, 120_000);
});
