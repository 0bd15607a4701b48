import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { historyMinutes, isDown, isUp, NetworkHistory, thinEvenly } from '../../../src/core/metrics/network-history';
import { MAX_SAMPLES } from '../../../src/core/metrics/service-history';
import { PlayerTracker } from '../../../src/core/players/tracker';
import { newRecord, ServiceRegistry, type ServiceRecord } from '../../../src/core/services/registry';
import { EventBus } from '../../../src/events/bus';
import { createLogger } from '../../../src/log';
import { openDatabase } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../../src/storage/core-migrations';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

const NOW = 10_000_000_000;
const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });

function record(name: string, group: string, fields: Partial<ServiceRecord> = {}): ServiceRecord {
  return { ...newRecord({ name, group, port: 30000, workDir: '/nowhere', isStatic: false, isProxy: false, memoryMaxMb: 1024, restartCount: 0 }), ...fields };
}

function setup(groupNames = ['Lobby', 'BedWars', 'Proxy']) {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const file = join(dir, 'svc.db');
  const db = openDatabase(file);
  migrate(db, 'core', CORE_MIGRATIONS);
  cleanups.unshift(() => db.close());
  const registry = new ServiceRegistry();
  const players = new PlayerTracker({ bus: new EventBus(), registry, log });
  const history = new NetworkHistory({ db, records: () => registry.all(), networkPlayers: () => players.networkTotal(), groupNames: () => groupNames });
  return { db, file, registry, players, history };
}


describe('historyMinutes', () => {
  test.each([
    [undefined, 60],
    [1, 5],
    [5, 5],
    [240, 240],
    [1440, 1440],
    [99_999, 1440],
    [-3, 5],
  ])('%p → %p', (given, expected) => expect(historyMinutes(given)).toBe(expected));
});

describe('thinEvenly', () => {
  test('keeps short lists whole', () => {
    expect(thinEvenly([1, 2, 3], 5)).toEqual([1, 2, 3]);
    expect(thinEvenly([], 5)).toEqual([]);
  });

  test('picks at most max, spread evenly, the first and the last kept, order kept', () => {
    const rows = Array.from({ length: 8640 }, (_, i) => i);
    const thinned = thinEvenly(rows, MAX_SAMPLES);
    expect(thinned).toHaveLength(MAX_SAMPLES);
    expect(thinned[0]).toBe(0);
    expect(thinned.at(-1)).toBe(8639);
    const gaps = thinned.slice(1).map((v, i) => v - thinned[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(5);
  });

  test('one sample asked: the newest', () => expect(thinEvenly([1, 2, 3], 1)).toEqual([3]));
});

describe('up and down', () => {
  test.each([
    ['READY', 0, false, true, false],
    ['DRAINING', 0, false, true, false],
    ['STARTING', 0, false, false, false],
    ['STARTING', 1, false, false, true],
    ['PREPARING', 2, false, false, true],
    ['CRASHED', 0, false, false, true],
    ['CRASHED', 0, true, false, false],
    ['STOPPED', 3, false, false, false],
    ['STOPPING', 1, false, false, false],
  ] as const)('%s restartCount=%p pooled=%p: up %p, down %p', (state, restartCount, pooled, up, down) => {
    const s = record('X-1', 'X', { state, restartCount, pooled });
    expect(isUp(s)).toBe(up);
    expect(isDown(s)).toBe(down);
  });
});

describe('network history', () => {
  test('a sample counts players as /api/status does: running services only, every group listed', () => {
    const { history, registry, players } = setup();
    registry.add(record('Lobby-1', 'Lobby', { state: 'READY', playerCount: 3 }));
    registry.add(record('Lobby-2', 'Lobby', { state: 'DRAINING', playerCount: 2 }));
    registry.add(record('Lobby-3', 'Lobby', { state: 'STOPPED', playerCount: 7 })); // a stopped record keeps its last count
    registry.add(record('Proxy-1', 'Proxy', { state: 'READY', playerCount: 4, isProxy: true }));
    registry.add(record('Survival', 'Survival', { state: 'READY', playerCount: 1, isDedicated: true }));
    const sample = history.sample(NOW);
    expect(sample).toEqual({
      timestamp: new Date(NOW).toISOString(),
      totalPlayers: players.networkTotal(),
      byGroup: { Lobby: 5, BedWars: 0, Proxy: 4, Survival: 1 },
      up: 4,
      down: 0,
    });
    // Backends 3 + 2 + 1 = 6, proxies 4: the larger.
    expect(sample.totalPlayers).toBe(6);
    expect(history.players(60, NOW)).toEqual([{ timestamp: sample.timestamp, totalPlayers: 6, byGroup: sample.byGroup }]);
  });

  test('the window: oldest first, only the last `minutes`', () => {
    const { history, registry } = setup();
    const lobby = record('Lobby-1', 'Lobby', { state: 'READY' });
    registry.add(lobby);
    for (const [minutesAgo, count] of [[30, 1], [4, 2], [1, 3]] as const) {
      lobby.playerCount = count;
      history.sample(NOW - minutesAgo * 60_000);
    }
    expect(history.players(5, NOW).map((s) => s.totalPlayers)).toEqual([2, 3]);
    expect(history.players(60, NOW).map((s) => s.byGroup.Lobby)).toEqual([1, 2, 3]);
    // A sample from "the future" (the clock went back) is not in a window ending now.
    history.sample(NOW + 60_000);
    expect(history.players(60, NOW)).toHaveLength(3);
  });

  test('a day of samples every 10 s comes back as at most 2000, newest included', () => {
    const { history, registry } = setup();
    const lobby = record('Lobby-1', 'Lobby', { state: 'READY' });
    registry.add(lobby);
    for (let i = 8639; i >= 0; i--) {
      lobby.playerCount = i === 0 ? 42 : 1;
      history.sample(NOW - i * 10_000);
    }
    const samples = history.players(1440, NOW);
    expect(samples).toHaveLength(MAX_SAMPLES);
    expect(samples[0]!.timestamp).toBe(new Date(NOW - 8639 * 10_000).toISOString());
    expect(samples.at(-1)).toMatchObject({ timestamp: new Date(NOW).toISOString(), totalPlayers: 42 });
  });

  test('availability: up / (up + down) over the window, 100 with nothing to count', () => {
    const { history, registry } = setup();
    expect(history.availability(NOW - 86_400_000, NOW)).toBe(100);
    history.sample(NOW - 1000); // no services: counts nothing
    expect(history.availability(NOW - 86_400_000, NOW)).toBe(100);
    const a = record('Lobby-1', 'Lobby', { state: 'READY' });
    const b = record('Lobby-2', 'Lobby', { state: 'READY' });
    registry.add(a);
    registry.add(b);
    for (let i = 0; i < 3; i++) history.sample(NOW - 500 + i); // 6 up
    b.state = 'CRASHED';
    history.sample(NOW - 100); // 1 up, 1 down
    expect(history.availability(NOW - 86_400_000, NOW)).toBe(87.5);
    // Older than the window: not counted.
    b.state = 'CRASHED';
    a.state = 'CRASHED';
    history.sample(NOW - 2 * 86_400_000);
    expect(history.availability(NOW - 86_400_000, NOW)).toBe(87.5);
  });

  test('samples persist in the file and retention prunes them', async () => {
    const { history, file, registry } = setup();
    registry.add(record('Lobby-1', 'Lobby', { state: 'READY', playerCount: 2 }));
    for (let i = 0; i < 1500; i++) history.sample(NOW - 40 * 86_400_000 - i);
    history.sample(NOW);
    const reopened = openDatabase(file);
    cleanups.unshift(() => reopened.close());
    const again = new NetworkHistory({ db: reopened, records: () => [], networkPlayers: () => 0, groupNames: () => [] });
    expect(again.players(60, NOW)).toEqual([{ timestamp: new Date(NOW).toISOString(), totalPlayers: 2, byGroup: { Lobby: 2, BedWars: 0, Proxy: 0 } }]);
    expect(await history.prune(NOW - 30 * 86_400_000, 400)).toBe(1500);
    expect(history.players(1440, NOW)).toHaveLength(1);
  });
});
