import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { playersModule } from '../../../src/modules/players';
import { PlayerSessions } from '../../../src/modules/players/sessions';
import { likeSubstring, PlayerStore } from '../../../src/modules/players/store';
import { PlayerViews } from '../../../src/modules/players/views';
import { openDatabase, type Database } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { tempDir } from '../../support/controller';

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const groups: Record<string, string> = { 'Lobby-1': 'Lobby', 'Lobby-2': 'Lobby', 'BedWars-1': 'BedWars' };

let dir: ReturnType<typeof tempDir>;
let db: Database;
let store: PlayerStore;
let sessions: PlayerSessions;
let now: number;
let views: PlayerViews;

/** A fresh file database with the module's migrations, as the registry applies them. */
function open(): void {
  db = openDatabase(join(dir.dir, 'svc.db'));
  migrate(db, 'players', playersModule.migrations!);
  store = new PlayerStore(db);
  // One fake clock for both: the tests move `now` and pass it as the wall-clock time of each event.
  sessions = new PlayerSessions(store, (s) => groups[s] ?? 'unknown', () => now);
  views = new PlayerViews(store, sessions, () => now);
}

beforeEach(() => {
  dir = tempDir('svc-players-');
  now = Date.parse('2026-11-25T10:00:00Z');
  open();
});
afterEach(() => {
  db.close();
  dir.remove();
});

describe('sessions', () => {
  test('connect opens a session and records the player; disconnect closes it and adds the playtime', () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    expect(views.online()).toEqual([{ uuid: A, name: 'Alice', service: 'Lobby-1', group: 'Lobby', connectedAt: '2026-11-25T10:00:00.000Z', proxy: null }]);
    now += 90_500;
    sessions.leave(A, now);
    expect(views.online()).toEqual([]);
    expect(views.info(A)).toEqual({ uuid: A, name: 'Alice', firstSeen: '2026-11-25T10:00:00.000Z', lastSeen: '2026-11-25T10:01:30.500Z', totalPlaytimeSeconds: 90, online: false, currentService: null });
    expect(views.history(A, 20)).toEqual([{ service: 'Lobby-1', group: 'Lobby', connectedAt: '2026-11-25T10:00:00.000Z', disconnectedAt: '2026-11-25T10:01:30.500Z' }]);
  });

  test('a switch closes one session and opens the next; playtime counts the whole stay, the running session included', () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    now += 60_000;
    sessions.arrive(A, 'Alice', 'BedWars-1', now);
    now += 30_000;
    expect(views.history(A, 20).map((s) => [s.service, s.disconnectedAt !== null])).toEqual([
      ['BedWars-1', false],
      ['Lobby-1', true],
    ]);
    expect(views.info(A)).toMatchObject({ totalPlaytimeSeconds: 90, online: true, currentService: 'BedWars-1' });
    expect(views.stats()).toEqual({ online: 1, totalUnique: 1, perService: { 'BedWars-1': 1 } });
  });

  test('a retried connect to the same service keeps the session; a rename is recorded', () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    sessions.arrive(A, 'Alice', 'Lobby-1', now + 5_000);
    expect(views.history(A, 20)).toHaveLength(1);
    sessions.arrive(A, 'Alicia', 'Lobby-1', now + 6_000);
    expect(views.history(A, 20)).toHaveLength(1);
    expect(views.info(A)?.name).toBe('Alicia');
    expect(sessions.onlineByName('alicia')?.uuid).toBe(A);
    expect(sessions.onlineByName('alice')).toBeUndefined();
  });

  test('a disconnect of a player with no open session only moves last seen; an unknown one records nothing', () => {
    const t0 = now;
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    now += 1_000;
    sessions.leave(A, now);
    sessions.leave(A, t0 + 50_000);
    expect(views.info(A)).toMatchObject({ lastSeen: new Date(t0 + 50_000).toISOString(), totalPlaytimeSeconds: 1 });
    sessions.leave(B, now);
    expect(views.info(B)).toBeUndefined();
  });

  test('the serialised roster is made again after every change, never served stale', () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    const first = views.onlineJson();
    expect(views.onlineJson()).toBe(first);
    sessions.arrive(B, 'Bob', 'Lobby-1', now);
    expect(JSON.parse(views.onlineJson()).map((p: { name: string }) => p.name)).toEqual(['Alice', 'Bob']);
    sessions.arrive(A, 'Alicia', 'Lobby-1', now);
    expect(JSON.parse(views.onlineJson())[1]).toMatchObject({ name: 'Alicia' });
    sessions.leave(B, now);
    sessions.closeService('Lobby-1', now);
    expect(views.onlineJson()).toBe('[]');
  });

  test('closing a service ends exactly its sessions', () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    sessions.arrive(B, 'Bob', 'Lobby-2', now);
    expect(sessions.closeService('Lobby-1', now + 10_000)).toBe(1);
    expect(views.online().map((p) => p.name)).toEqual(['Bob']);
    expect(views.history(A, 1)[0]!.disconnectedAt).toBe(new Date(now + 10_000).toISOString());
    expect(views.stats().perService).toEqual({ 'Lobby-2': 1 });
  });

  test('the open sessions are the roster after the process is gone', () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    sessions.arrive(B, 'Bob', 'BedWars-1', now + 1_000);
    db.close();
    open();
    expect(sessions.load(now + 5_000).map((s) => [s.name, s.service, s.connectedAt])).toEqual([
      ['Alice', 'Lobby-1', now],
      ['Bob', 'BedWars-1', now + 1_000],
    ]);
    expect(views.stats()).toEqual({ online: 2, totalUnique: 2, perService: { 'Lobby-1': 1, 'BedWars-1': 1 } });
  });

  test('two open rows of one player (an old database) keep the newest and close the other', () => {
    store.upsertPlayer(A, 'Alice', now);
    store.openSession(A, 'Alice', 'Lobby-1', 'Lobby', now);
    store.openSession(A, 'Alice', 'Lobby-2', 'Lobby', now + 3_000);
    expect(sessions.load(now + 9_000).map((s) => s.service)).toEqual(['Lobby-2']);
    expect(views.history(A, 20).map((s) => s.disconnectedAt)).toEqual([null, new Date(now + 3_000).toISOString()]);
  });
});

describe('search', () => {
  test('q is a plain, case-insensitive substring: % and _ match only themselves', () => {
    const names = ['Under_Score', 'UnderXScore', 'Percent%Sign', 'PercentSign', '.BedrockSteve', 'back\\slash'];
    names.forEach((name, i) => store.upsertPlayer(`${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`, name, now + i));
    const search = (q: string) => views.known(q, 50).map((p) => p.name);
    expect(search('r_s')).toEqual(['Under_Score']);
    expect(search('%')).toEqual(['Percent%Sign']);
    expect(search('\\')).toEqual(['back\\slash']);
    expect(search('BEDROCK')).toEqual(['.BedrockSteve']);
    expect(search('score')).toEqual(['UnderXScore', 'Under_Score']);
    expect(views.known('', 2).map((p) => p.name)).toEqual(['back\\slash', '.BedrockSteve']);
  });

  test('likeSubstring escapes the wildcards and the escape character', () => {
    expect(likeSubstring('a%b_c\\d')).toBe('%a\\%b\\_c\\\\d%');
  });

  test('/all values are strings, as the dashboard declares them', () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    now += 42_000;
    expect(views.known('ali', 50)).toEqual([
      { uuid: A, name: 'Alice', firstSeen: '2026-11-25T10:00:00.000Z', lastSeen: '2026-11-25T10:00:00.000Z', totalPlaytimeSeconds: '42', online: 'true' },
    ]);
  });

  test('names up to 32 characters are kept whole (Floodgate prefixes)', () => {
    const name = '.' + 'x'.repeat(31);
    sessions.arrive(A, name, 'Lobby-1', now);
    expect(views.info(A)?.name).toBe(name);
  });
});

describe('session lengths across wall-clock steps', () => {
  test('playtime is measured on the monotonic clock: a step of the wall clock during a session moves its timestamps only', () => {
    let mono = 5_000;
    const measured = new PlayerSessions(store, (s) => groups[s] ?? 'unknown', () => mono);
    const measuredViews = new PlayerViews(store, measured, () => now);
    measured.arrive(A, 'Alice', 'Lobby-1', now);
    mono += 60_000;
    now += 60_000 + 3_600_000; // a minute later, and the wall clock stepped an hour forward
    expect(measuredViews.info(A)?.totalPlaytimeSeconds).toBe(60);
    mono += 30_000;
    now -= 2 * 3_600_000; // and then two hours back
    measured.leave(A, now);
    expect(measuredViews.info(A)).toMatchObject({ totalPlaytimeSeconds: 90, online: false });
  });

  test('a session read back after a restart has no monotonic start: its length comes from the wall clock', () => {
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    const again = new PlayerSessions(store, (s) => groups[s] ?? 'unknown', () => 0);
    again.load(now);
    again.leave(A, now + 42_000);
    expect(views.info(A)?.totalPlaytimeSeconds).toBe(42);
  });
});

describe('pruning', () => {
  test('old closed sessions go, open ones and totals stay', () => {
    const t0 = now;
    sessions.arrive(A, 'Alice', 'Lobby-1', now);
    now += 10_000;
    sessions.leave(A, now);
    sessions.arrive(B, 'Bob', 'Lobby-1', t0);
    expect(store.pruneClosed(t0 + 20_000)).toBe(1);
    expect(views.history(A, 20)).toEqual([]);
    expect(views.info(A)?.totalPlaytimeSeconds).toBe(10);
    expect(views.online().map((p) => p.name)).toEqual(['Bob']);
  });
});
