/**
 * Issue 38 through the compiled binary: a game server that forks leaves nothing behind after its
 * stop, its crash and a restart, also after a kill -9 of the controller and a re-attach, and
 * under uid isolation and the uid+bwrap sandbox (finding 3); a stop while a restart after a
 * crash waits out its backoff keeps the service stopped; a start command that is not found
 * (exit 127) is diagnosed by name and not restarted.
 *
 * The fixture (test/fixtures/forking-server.sh) runs three `sleep <tag>` children and
 * grandchildren, found by their command line wherever they are.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';
import { FORKING_SERVER, forkingServerArgv, groupOf, killSleepers, sleepersOf, uniqueTag } from '../support/process-tree';

const TOKEN = 'process-trees-token-0123456789abcdef';
const IS_ROOT = process.getuid?.() === 0 && process.platform === 'linux';
const HAS_BWRAP = existsSync('/usr/bin/bwrap');

let svc: string;
const cleanups: (() => void)[] = [];
const tags: string[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterEach(() => tags.splice(0).forEach(killSleepers));
afterAll(() => cleanups.splice(0).forEach((f) => f()));

type Controller = Awaited<ReturnType<typeof startBinaryController>>;

/** A controller folder: svc.toml with `isolation`, and the groups as `config/groups/<name>.toml`. */
function site(isolation: string, groups: Record<string, string>): string {
  const { dir, remove } = tempDir('svc-trees-');
  cleanups.push(remove);
  cleanups.push(() => killGameServers(dir, []));
  // Services live under the folder; uid isolation needs others to pass through the ones above it.
  chmodSync(dir, 0o711);
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "${isolation}"\n`);
  mkdirSync(join(dir, 'config/groups'), { recursive: true });
  for (const [name, toml] of Object.entries(groups)) writeFileSync(join(dir, `config/groups/${name}.toml`), toml);
  return dir;
}

/** A group file: one instance at most, started by the test; `lifecycle` more [group.lifecycle] lines. */
function groupToml(command: string[], lifecycle = '', type = 'DYNAMIC'): string {
  return `[group]\ntype = "${type}"\nsoftware = "CUSTOM"\nversion = "1.21.1"\nstart_command = ${JSON.stringify(command)}\n[group.scaling]\nmin_instances = 0\nmax_instances = 1\n[group.lifecycle]\ndrain_timeout = 0\n${lifecycle}`;
}

function newTag(): string {
  const tag = uniqueTag();
  tags.push(tag);
  return tag;
}

const view = async (c: Controller, name: string) => readJson(await c.api(`/api/services/${name}`));

async function startReady(c: Controller, group: string, tag: string, sleepers = 3): Promise<{ pid: number; name: string }> {
  expect((await c.api(`/api/services/${group}/start`, { method: 'POST' })).status).toBe(201);
  const name = `${group}-1`;
  const ready = await waitFor(async () => {
    const v = await view(c, name);
    return v.state === 'READY' ? v : null;
  }, { what: `${name} READY`, timeoutMs: 15_000 });
  await waitFor(() => sleepersOf(tag).length === sleepers, { what: 'the sleepers' });
  return { pid: ready.pid, name };
}

/** READY again with another pid, and the only sleepers left are the new server's. */
async function replacedBy(c: Controller, name: string, oldPid: number, tag: string, sleepers = 3): Promise<number> {
  const fresh = await waitFor(async () => {
    const v = await view(c, name);
    return v.state === 'READY' && v.pid !== oldPid ? v : null;
  }, { what: `${name} READY again`, timeoutMs: 15_000 });
  await waitFor(() => sleepersOf(tag).length === sleepers, { what: 'only the new server\'s sleepers' });
  return fresh.pid;
}

const exec = (c: Controller, name: string, command: string) => c.api(`/api/services/${name}/exec`, { method: 'POST', body: JSON.stringify({ command }) });

describe('process trees through the binary (isolation none)', () => {
  test('a forking server leaves nothing after a crash, a restart and a stop', async () => {
    const tag = newTag();
    const dir = site('none', { Fork: groupToml(forkingServerArgv(tag)) });
    const c = await startBinaryController(svc, dir, TOKEN, cleanups);
    const first = await startReady(c, 'Fork', tag);
    const firstGroup = sleepersOf(tag).map(groupOf);
    expect(new Set(firstGroup).size).toBe(1);

    expect((await exec(c, first.name, 'crash')).status).toBe(200);
    const second = await replacedBy(c, first.name, first.pid, tag);
    expect(sleepersOf(tag).some((pid) => groupOf(pid) === firstGroup[0])).toBe(false);

    expect((await c.api(`/api/services/${first.name}/restart`, { method: 'POST' })).status).toBe(200);
    await replacedBy(c, first.name, second, tag);

    expect((await c.api(`/api/services/${first.name}/stop`, { method: 'POST' })).status).toBe(200);
    expect(sleepersOf(tag)).toEqual([]);
  }, 60_000);

  test('after a kill -9 of the controller: re-attached, its crash and its stop still end the whole group', async () => {
    const tag = newTag();
    const dir = site('none', { Kept: groupToml(forkingServerArgv(tag)) });
    const first = await startBinaryController(svc, dir, TOKEN, cleanups);
    const running = await startReady(first, 'Kept', tag);
    first.child.kill('SIGKILL');
    await first.child.exited;
    expect(sleepersOf(tag).length).toBe(3); // the service lives on without a controller

    const second = await startBinaryController(svc, dir, TOKEN, cleanups);
    await second.out.waitForLine((line) => line.includes('recovered a running service') && line.includes(running.name));
    expect((await view(second, running.name)).pid).toBe(running.pid);
    expect((await exec(second, running.name, 'crash')).status).toBe(200);
    await replacedBy(second, running.name, running.pid, tag);
    expect((await second.api(`/api/services/${running.name}/stop`, { method: 'POST' })).status).toBe(200);
    expect(sleepersOf(tag)).toEqual([]);
  }, 60_000);

  test('stop while the restart after a crash waits out its backoff: it stays stopped', async () => {
    const tag = newTag();
    const dir = site('none', { Backoff: groupToml(forkingServerArgv(tag), 'restart_on_crash = true\nmax_restarts = 10\n') });
    const c = await startBinaryController(svc, dir, TOKEN, cleanups);
    let current = await startReady(c, 'Backoff', tag);
    // Restarts come at once, then after 1 s, 2 s: the third crash leaves 2 s to stop in.
    for (let crash = 1; crash <= 2; crash++) {
      expect((await exec(c, current.name, 'crash')).status).toBe(200);
      current = { name: current.name, pid: await replacedBy(c, current.name, current.pid, tag) };
    }
    expect((await exec(c, current.name, 'crash')).status).toBe(200);
    const crashed = await waitFor(async () => {
      const v = await view(c, current.name);
      return v.state === 'CRASHED' && v.restartCount === 2 ? v : null;
    }, { what: 'the third crash' });
    const crashedAt = performance.now();
    expect(crashed.diagnosis).toContain('code 3');
    expect((await c.api(`/api/services/${current.name}/stop`, { method: 'POST' })).status).toBe(200);
    expect(performance.now() - crashedAt).toBeLessThan(2_000);
    await c.out.waitForLine((line) => line.includes('the restart scheduled after its crash is called off'));
    // Past the moment the restart was due (2 s after the crash, plus a margin): still gone.
    await waitFor(() => performance.now() - crashedAt > 3_500, { what: 'the backoff to pass', timeoutMs: 6_000 });
    expect((await c.api(`/api/services/${current.name}`)).status).toBe(404);
    expect(sleepersOf(tag)).toEqual([]);
    // Three restarts were scheduled, one per crash; the last one never ran.
    expect(c.out.lines.filter((line) => line.includes('restarting after a crash') && line.includes(current.name)).length).toBe(3);
  }, 60_000);

  test('exit 127: "program not found" naming the program, CRASHED, not restarted', async () => {
    const dir = site('none', { Missing: groupToml(['/nonexistent/server-bin', '--nogui'], 'restart_on_crash = true\nmax_restarts = 5\n') });
    const c = await startBinaryController(svc, dir, TOKEN, cleanups);
    expect((await c.api('/api/services/Missing/start', { method: 'POST' })).status).toBe(201);
    const refusal = await c.out.waitForLine((line) => line.includes('not restarted: program not found'));
    expect(JSON.parse(refusal)).toMatchObject({ service: 'Missing-1', exitCode: 127 });
    const crashed = await view(c, 'Missing-1');
    expect(crashed).toMatchObject({ state: 'CRASHED', restartCount: 0 });
    expect(crashed.diagnosis).toContain('program not found: "/nonexistent/server-bin"');
    expect(c.out.lines.filter((line) => line.includes('restarting after a crash'))).toEqual([]);
  }, 30_000);
});

describe.skipIf(!IS_ROOT)('process trees under isolation (root)', () => {
  test.each([
    ['uid', 'uid'],
    ...(HAS_BWRAP ? [['uid+bwrap', 'auto']] : []),
  ])('%s: the group, and a child that left it (setsid), end with the server', async (_mode, isolation) => {
    const tag = newTag();
    // The script comes from the group's template: the sandbox sees nothing of the test tree.
    const dir = site(isolation!, { Jail: groupToml(['/bin/sh', 'forking-server.sh', tag, 'escape'], 'restart_on_crash = true\n', 'STATIC') });
    mkdirSync(join(dir, 'templates/Jail'), { recursive: true });
    copyFileSync(FORKING_SERVER, join(dir, 'templates/Jail/forking-server.sh'));
    const c = await startBinaryController(svc, dir, TOKEN, cleanups);
    const first = await startReady(c, 'Jail', tag, 4);
    expect((await exec(c, first.name, 'crash')).status).toBe(200);
    await replacedBy(c, first.name, first.pid, tag, 4);
    expect((await c.api(`/api/services/${first.name}/stop`, { method: 'POST' })).status).toBe(200);
    expect(sleepersOf(tag)).toEqual([]);
  }, 60_000);
});
