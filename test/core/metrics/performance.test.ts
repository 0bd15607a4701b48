import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { DashboardMetrics } from '../../../src/core/metrics/dashboard-metrics';
import { groupRows } from '../../../src/core/metrics/group-rows';
import { performanceSummary } from '../../../src/core/metrics/performance';
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
const HOUR = 3600_000;
const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });

function record(name: string, group: string, fields: Partial<ServiceRecord> = {}): ServiceRecord {
  return { ...newRecord({ name, group, port: 30000, workDir: '/nowhere', isStatic: false, isProxy: false, memoryMaxMb: 1000, restartCount: 0 }), ...fields };
}

const GROUPS = [
  { name: 'Lobby', maxPlayers: 50 },
  { name: 'BedWars', maxPlayers: 16 },
];
const DEDICATED = [{ name: 'Survival' }];

describe('groupRows', () => {
  test('configured groups, then dedicated services, then groups only running services still name', () => {
    const records = [record('Zed-1', 'Zed'), record('Lobby-1', 'Lobby'), record('Alpha-1', 'Alpha'), record('Survival', 'Survival', { isDedicated: true })];
    expect(groupRows(GROUPS, DEDICATED, records)).toEqual([
      { name: 'Lobby', isDedicated: false, maxPlayersPerInstance: 50 },
      { name: 'BedWars', isDedicated: false, maxPlayersPerInstance: 16 },
      { name: 'Survival', isDedicated: true, maxPlayersPerInstance: 0 },
      { name: 'Alpha', isDedicated: false, maxPlayersPerInstance: 0 },
      { name: 'Zed', isDedicated: false, maxPlayersPerInstance: 0 },
    ]);
  });
});

describe('performanceSummary', () => {
  const records = [
    record('Lobby-1', 'Lobby', { state: 'READY', pid: 11, playerCount: 10, tps: 20 }),
    record('Lobby-2', 'Lobby', { state: 'READY', pid: 12, playerCount: 5, tps: 17 }),
    record('Lobby-3', 'Lobby', { state: 'STARTING', pid: 13, playerCount: 0, tps: null }),
    record('Lobby-4', 'Lobby', { state: 'CRASHED', pid: null, playerCount: 9 }),
    record('Survival', 'Survival', { state: 'READY', pid: 21, playerCount: 2, isDedicated: true, memoryMaxMb: 4000 }),
  ];
  const memory = new Map([
    ['Lobby-1', 500],
    ['Lobby-2', 250],
    ['Lobby-3', 150],
    ['Survival', 1000],
  ]);
  const summary = performanceSummary({
    records,
    rows: groupRows(GROUPS, DEDICATED, records),
    networkPlayers: 17,
    crashes24h: new Map([['Lobby', 2], ['Gone', 1]]),
    crashes7d: new Map([['Lobby', 5], ['Gone', 1], ['BedWars', 3]]),
    startups: new Map([
      ['Lobby', { count: 3, totalMs: 9000 }],
      ['Survival', { count: 1, totalMs: 21_000 }],
    ]),
    uptimePercent: 99.5,
    memoryUsedMb: (s) => memory.get(s.name) ?? 0,
  });

  test('network-wide figures', () => {
    expect({ ...summary, groups: undefined }).toEqual({
      crashesLast24h: 3,
      crashesLast7d: 9,
      averageStartupSeconds: 7.5, // (9 + 21) s over 4 starts
      uptimePercent: 99.5,
      totalMemoryUsedMb: 1900,
      totalMemoryMaxMb: 4000 + 3 * 1000, // services with a process
      networkPlayers: 17,
      serviceCount: 5,
      readyServiceCount: 3,
      groups: undefined,
    });
  });

  test('per group, groups with nothing running in zeros, a dedicated service as its own row', () => {
    expect(summary.groups).toEqual([
      {
        groupName: 'Lobby',
        isDedicated: false,
        crashesLast24h: 2,
        averageStartupSeconds: 3,
        averageMemoryPercent: 30, // (50 + 25 + 15) / 3
        averageTps: 18.5, // READY services only
        playerCount: 15, // the crashed record's 9 are not on the network
        maxPlayers: 150, // 3 active instances × 50
        serviceCount: 4,
        readyServiceCount: 2,
      },
      { groupName: 'BedWars', isDedicated: false, crashesLast24h: 0, averageStartupSeconds: 0, averageMemoryPercent: 0, averageTps: 0, playerCount: 0, maxPlayers: 0, serviceCount: 0, readyServiceCount: 0 },
      { groupName: 'Survival', isDedicated: true, crashesLast24h: 0, averageStartupSeconds: 21, averageMemoryPercent: 25, averageTps: 0, playerCount: 2, maxPlayers: 0, serviceCount: 1, readyServiceCount: 1 },
    ]);
  });
});

describe('DashboardMetrics (real sqlite, real bus)', () => {
  function setup(retained?: string) {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const file = retained ?? join(dir, 'svc.db');
    const db = openDatabase(file);
    migrate(db, 'core', CORE_MIGRATIONS);
    cleanups.unshift(() => db.close());
    const bus = new EventBus();
    const registry = new ServiceRegistry();
    const players = new PlayerTracker({ bus, registry, log });
    const metrics = new DashboardMetrics({ db, bus, registry, groups: { list: () => GROUPS }, dedicated: { list: () => DEDICATED }, players, memoryUsedMb: () => 100 });
    return { file, db, bus, registry, metrics };
  }

  test('a crash on the bus counts after a restart on the same file; the history and the clamp', () => {
    const first = setup();
    first.registry.add(record('BedWars-1', 'BedWars', { state: 'CRASHED' }));
    first.bus.publish('SERVICE_CRASHED', { service: 'BedWars-1', exitCode: 1, restartAttempt: 0 });
    first.registry.add(record('Lobby-1', 'Lobby', { state: 'READY', pid: 1, playerCount: 3 }));
    first.metrics.sample(Date.now() - 2 * 60_000);

    const second = setup(first.file);
    const performance = second.metrics.performance();
    expect(performance.crashesLast24h).toBe(1);
    expect(performance.crashesLast7d).toBe(1);
    expect(performance.groups.find((g) => g.groupName === 'BedWars')!.crashesLast24h).toBe(1);
    // The sampled tick saw one service up, one down.
    expect(performance.uptimePercent).toBe(50);
    // Nothing runs in the new registry: zeros, every configured row listed.
    expect(performance.groups.map((g) => [g.groupName, g.serviceCount])).toEqual([['Lobby', 0], ['BedWars', 0], ['Survival', 0]]);

    // minutes 1 is 5: the sample 2 minutes ago is in; 99999 is a day: the same one sample.
    expect(second.metrics.playerHistory(1).map((s) => s.byGroup)).toEqual([{ Lobby: 3, BedWars: 0, Survival: 0 }]);
    expect(second.metrics.playerHistory(99_999)).toHaveLength(1);
  });

  test('pruning keeps events for the 7-day figures even with a shorter retention', async () => {
    const { metrics } = setup();
    const now = Date.now();
    metrics.events.recordCrash('Lobby-1', 'Lobby', 1, now - 5 * 24 * HOUR);
    metrics.events.recordCrash('Lobby-1', 'Lobby', 1, now - 9 * 24 * HOUR);
    metrics.network.sample(now - 2 * 24 * HOUR);
    metrics.network.sample(now - HOUR);
    // retention_days = 1
    expect(await metrics.prune(now - 24 * HOUR, now)).toBe(2);
    expect(metrics.performance(now).crashesLast7d).toBe(1);
    expect(metrics.playerHistory(1440, now)).toHaveLength(1);
  });
});
