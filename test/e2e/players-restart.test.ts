/**
 * The players module's roster through a kill -9 of the compiled controller. Two fake-paper
 * backends outlive the controller; while none watches, one of them dies. The next controller
 * keeps the session on the survivor (same connectedAt, so playtime runs on) and closes the one
 * on the dead server at the last moment the first controller was known alive, not at the
 * restart: the player cannot have played while nothing recorded it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../../src/core/supervisor/process/pid-probe';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const TOKEN = 'players-restart-token-0123456789';
const ALICE = 'a11ce000-0000-4000-8000-00000000a11c';
const BOB = 'b0b00000-0000-4000-8000-000000000b0b';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).forEach((f) => f()));


/** The process group of `pid`: the svc wrapper that records the server's exit leads it. */
function processGroupOf(pid: number): number {
  const pgid = Number(Bun.spawnSync(['ps', '-o', 'pgid=', '-p', String(pid)]).stdout.toString().trim());
  if (!Number.isInteger(pgid) || pgid <= 0) throw new Error(`no process group for pid ${pid}`);
  return pgid;
}

async function startBinary(dir: string) {
  const { child, out, api } = await startBinaryController(svc, dir, TOKEN, cleanups);
  const get = async (path: string) => {
    const res = await api(path);
    expect(res.status).toBe(200);
    return readJson(res);
  };
  /** What the Velocity bridge posts (it holds the master token). */
  const report = async (json: Record<string, string>) => expect((await api('/api/proxy/events', { method: 'POST', body: JSON.stringify(json) })).status).toBe(200);
  return { child, out, api, get, report };
}

describe('the player roster survives the controller (compiled binary)', () => {
  test('kill -9: open sessions come back as the roster; one on a server that died meanwhile closes at the last-alive time', async () => {
    const { dir, remove } = tempDir('svc-players-restart-');
    cleanups.push(remove);
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
    mkdirSync(join(dir, 'config/groups'), { recursive: true });
    writeFileSync(
      join(dir, 'config/groups/Arena.toml'),
      `[group]\nsoftware = "CUSTOM"\nversion = "1.21.1"\njar_name = "server.jar"\nstart_command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAKE_PAPER)}, "--port", "{port}"]\n[group.scaling]\nmin_instances = 2\n[group.lifecycle]\nrestart_on_crash = false\n`,
    );

    // First controller: installs every module on this first start, boots Arena-1 and Arena-2.
    const first = await startBinary(dir);
    const view = async (name: string) => {
      const found = await readJson(await first.api(`/api/services/${name}`));
      return found.state === 'READY' ? found : null;
    };
    const [arena1, arena2] = await Promise.all([
      waitFor(() => view('Arena-1'), { what: 'Arena-1 READY', timeoutMs: 20_000 }),
      waitFor(() => view('Arena-2'), { what: 'Arena-2 READY', timeoutMs: 20_000 }),
    ]);
    // Whatever happens to the assertions, no game server outlives the test.
    cleanups.push(() => killGameServers(dir, [arena1.pid, arena2.pid]));
    const arena2Wrapper = processGroupOf(arena2.pid);

    await first.report({ type: 'PLAYER_CONNECTED', player: 'Alice', uuid: ALICE, service: 'Arena-1' });
    await first.report({ type: 'PLAYER_CONNECTED', player: 'Bob', uuid: BOB, service: 'Arena-2' });
    const online = await first.get('/api/players/online');
    const aliceOnline = { uuid: ALICE, name: 'Alice', service: 'Arena-1', group: 'Arena', connectedAt: expect.stringMatching(ISO), proxy: null };
    const bobOnline = { uuid: BOB, name: 'Bob', service: 'Arena-2', group: 'Arena', connectedAt: expect.stringMatching(ISO), proxy: null };
    expect([...online].sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name))).toEqual([aliceOnline, bobOnline]);
    const alice = await first.get(`/api/players/online/${ALICE}`);
    const bobConnectedAt: string = (await first.get(`/api/players/online/${BOB}`)).connectedAt;

    // The controller dies without a word; then Bob's server dies while nobody watches.
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await first.child.exited;
    process.kill(arena2.pid, 'SIGKILL');
    await waitFor(() => !pidAlive(arena2.pid) && !pidAlive(arena2Wrapper), { what: 'Arena-2 and its wrapper gone' });
    expect(pidAlive(arena1.pid)).toBe(true);

    const secondStartedAt = Date.now();
    const second = await startBinary(dir);
    expect((await readJson(await second.api('/api/services/Arena-1'))).pid).toBe(arena1.pid);

    // Alice is still online, in the same session.
    expect(await second.get('/api/players/online')).toEqual([alice]);
    expect(await second.get(`/api/players/online/${ALICE}`)).toEqual(alice);

    // Bob's session ended with the first controller's last sign of life, before this start.
    const bobHistory = await second.get(`/api/players/history/${BOB}`);
    expect(bobHistory).toEqual([{ service: 'Arena-2', group: 'Arena', connectedAt: bobConnectedAt, disconnectedAt: expect.stringMatching(ISO) }]);
    const bobEnded = Date.parse(bobHistory[0].disconnectedAt);
    expect(bobEnded).toBeGreaterThanOrEqual(Date.parse(bobConnectedAt));
    expect(bobEnded).toBeLessThanOrEqual(killedAt + 1000);
    expect(bobEnded).toBeLessThan(secondStartedAt);
    expect(await second.get(`/api/players/info/${BOB}`)).toEqual({
      uuid: BOB,
      name: 'Bob',
      firstSeen: bobConnectedAt,
      lastSeen: bobHistory[0].disconnectedAt,
      totalPlaytimeSeconds: Math.floor((bobEnded - Date.parse(bobConnectedAt)) / 1000),
      online: false,
      currentService: null,
    });
    const missing = await second.api(`/api/players/online/${BOB}`);
    expect(missing.status).toBe(404);
    expect((await readJson(missing)).error).toBe('PLAYER_NOT_ONLINE');

    // Core's listing answers from the restored roster.
    expect(await second.get('/api/players')).toEqual({
      players: [{ name: 'Alice', uuid: ALICE, service: 'Arena-1', server: 'Arena-1', group: 'Arena', source: 'roster', proxy: null }],
      total: 1,
      count: 1,
      online: 1,
      services: [],
    });
    expect(await second.get('/api/players/stats')).toEqual({ online: 1, totalUnique: 2, perService: { 'Arena-1': 1 } });

    // Alice's playtime counts from her original connect, across the restart; her disconnect closes it.
    await waitFor(async () => (await second.get(`/api/players/info/${ALICE}`)).totalPlaytimeSeconds >= 1, { what: 'a second of playtime for Alice', timeoutMs: 5000 });
    await second.report({ type: 'PLAYER_DISCONNECTED', player: 'Alice', uuid: ALICE, service: 'Arena-1' });
    const aliceInfo = await second.get(`/api/players/info/${ALICE}`);
    expect(aliceInfo).toMatchObject({ uuid: ALICE, name: 'Alice', firstSeen: alice.connectedAt, online: false, currentService: null });
    expect(aliceInfo.totalPlaytimeSeconds).toBeGreaterThan(0);
    const aliceHistory = await second.get(`/api/players/history/${ALICE}`);
    expect(aliceHistory).toEqual([{ service: 'Arena-1', group: 'Arena', connectedAt: alice.connectedAt, disconnectedAt: aliceInfo.lastSeen }]);
    expect(Date.parse(aliceInfo.lastSeen)).toBeGreaterThan(secondStartedAt);
    expect(await second.get('/api/players/online')).toEqual([]);

    // A graceful stop leaves no game server behind (Arena-1 and the Arena-2 that refilled min_instances).
    second.child.kill('SIGTERM');
    expect(await second.child.exited).toBe(0);
    await waitFor(() => !pidAlive(arena1.pid), { what: 'Arena-1 gone' });
    const leftovers = () => Bun.spawnSync(['ps', '-eo', 'args=']).stdout.toString().split('\n').filter((l) => l.includes(dir));
    await waitFor(() => leftovers().length === 0, { what: 'no process of the test dir left' });
  }, 60_000);
});
