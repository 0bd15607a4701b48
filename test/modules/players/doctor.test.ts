/**
 * The players module's doctor section over a real sqlite file with the module's migration and
 * real sessions; core is a stand-in holding only what the section reads (the services and the
 * size of core's roster). Also: the module offers the section on a running controller.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Finding } from '../../../src/core/doctor/model';
import { playersModule } from '../../../src/modules/players';
import { playersDoctorSection, type PlayersDoctorCore } from '../../../src/modules/players/doctor';
import type { ServiceView } from '../../../src/modules/players/reconcile';
import { ALIVE, TICK_MS } from '../../../src/modules/players/runtime';
import { PlayerSessions } from '../../../src/modules/players/sessions';
import { PlayerStore } from '../../../src/modules/players/store';
import { openDatabase, type Database } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { readJson, startController, tempDir } from '../../support/controller';

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const T0 = Date.parse('2026-11-25T10:00:00Z');

let dir: ReturnType<typeof tempDir>;
let db: Database;
let store: PlayerStore;
let sessions: PlayerSessions;
let now: number;
let services: ServiceView[];
let roster: number;
let retention: number;

const service = (name: string, state: ServiceView['state'], isProxy = false): ServiceView => ({ name, state, isProxy, playerCount: 0, playersReportedAt: null });
const core: PlayersDoctorCore = { services: { all: () => services }, players: { roster: { get size() { return roster; } } } };

async function findings(): Promise<Finding[]> {
  return playersDoctorSection({ sessions, store, settings: { historyRetentionDays: retention } }, core, () => now).run();
}
const levels = (list: Finding[]) => list.map((f) => f.level);

beforeEach(() => {
  dir = tempDir('svc-players-doctor-');
  db = openDatabase(join(dir.dir, 'svc.db'));
  migrate(db, 'players', playersModule.migrations!);
  store = new PlayerStore(db);
  now = T0;
  sessions = new PlayerSessions(store, () => 'Lobby', () => now);
  services = [service('Proxy-1', 'READY', true), service('Lobby-1', 'READY'), service('Lobby-2', 'READY')];
  roster = 0;
  retention = 180;
  store.setState(ALIVE, T0);
});
afterEach(() => {
  db.close();
  dir.remove();
});

describe('players doctor section', () => {
  test('all well: who is online where, how many were seen, how long history is kept', async () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    sessions.arrive(B, 'Bob', 'Lobby-2', now);
    roster = 2;
    expect(await findings()).toEqual([
      { level: 'OK', message: '2 player(s) online on 2 service(s); 2 player(s) seen', hint: null },
      { level: 'OK', message: 'closed sessions are kept 180 day(s) (playtime totals for good)', hint: null },
    ]);
  });

  test('a session on a service that holds no players now is a WARN naming the service', async () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    sessions.arrive(B, 'Bob', 'Lobby-2', now);
    roster = 2;
    services = [service('Proxy-1', 'READY', true), service('Lobby-1', 'READY'), service('Lobby-2', 'STOPPED')];
    const list = await findings();
    expect(levels(list)).toEqual(['WARN', 'OK', 'OK']);
    expect(list[0]!.message).toBe('1 session(s) open on services that hold no players now (Lobby-2)');
  });

  test("core's roster disagreeing with the open sessions is a WARN with both counts", async () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    roster = 3;
    const list = await findings();
    expect(levels(list)).toEqual(['WARN', 'OK', 'OK']);
    expect(list[0]!.message).toBe("core's roster has 3 player(s) online, the open sessions 1");
  });

  test('a check that stopped running is a WARN; a few seconds late is not', async () => {
    now = T0 + 2 * TICK_MS;
    expect(levels(await findings())).toEqual(['OK', 'OK']);
    now = T0 + 10 * TICK_MS;
    const list = await findings();
    expect(levels(list)).toEqual(['WARN', 'OK', 'OK']);
    expect(list[0]!.message).toStartWith('the players check last ran 150 s ago (it runs every 15 s)');
  });

  test('history kept for good is said, with where to change it', async () => {
    retention = 0;
    expect((await findings())[1]).toEqual({
      level: 'OK',
      message: 'every closed session is kept (history_retention_days = 0): the session table only grows',
      hint: 'set history_retention_days in config/modules/players/players.toml to prune it',
    });
  });
});

test('a controller with the module reports the section in GET /api/doctor', async () => {
  const c = await startController({ modules: [playersModule] });
  try {
    const report = await readJson(await c.api('/api/doctor'));
    const section = report.sections.find((s: { name: string }) => s.name === 'Players');
    expect(levels(section.findings)).toEqual(['OK', 'OK']);
    expect(section.findings[0].message).toBe('0 player(s) online on 0 service(s); 0 player(s) seen');
  } finally {
    await c.stop();
  }
});
