import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { recordServiceEvents, ServiceEventsStore } from '../../../src/core/metrics/service-events-store';
import { newRecord, ServiceRegistry, type ServiceRecord } from '../../../src/core/services/registry';
import { EventBus } from '../../../src/events/bus';
import { openDatabase } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../../src/storage/core-migrations';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

const NOW = 10_000_000_000;
const HOUR = 3600_000;

function record(name: string, group: string, fields: Partial<ServiceRecord> = {}): ServiceRecord {
  return { ...newRecord({ name, group, port: 30000, workDir: '/nowhere', isStatic: false, isProxy: false, memoryMaxMb: 1024, restartCount: 0 }), ...fields };
}

function open(file: string) {
  const db = openDatabase(file);
  migrate(db, 'core', CORE_MIGRATIONS);
  cleanups.unshift(() => db.close());
  return new ServiceEventsStore(db);
}

function setup() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const file = join(dir, 'svc.db');
  const store = open(file);
  const bus = new EventBus();
  const registry = new ServiceRegistry();
  cleanups.unshift(recordServiceEvents(bus, store, (name) => registry.get(name)));
  return { file, store, bus, registry };
}

describe('service events store', () => {
  test('crashes by group within a window', () => {
    const { store } = setup();
    store.recordCrash('Lobby-1', 'Lobby', 1, NOW - 2 * HOUR);
    store.recordCrash('Lobby-2', 'Lobby', 137, NOW - 30 * HOUR);
    store.recordCrash('BedWars-1', 'BedWars', -1, NOW - 6 * 24 * HOUR);
    store.recordCrash('Old-1', 'Old', 1, NOW - 8 * 24 * HOUR);
    expect(store.crashesByGroup(NOW - 24 * HOUR)).toEqual(new Map([['Lobby', 1]]));
    expect(store.crashesByGroup(NOW - 7 * 24 * HOUR)).toEqual(new Map([['Lobby', 2], ['BedWars', 1]]));
  });

  test('startups by group: count and total time', () => {
    const { store } = setup();
    store.recordStartup('Lobby-1', 'Lobby', 2000, NOW - HOUR);
    store.recordStartup('Lobby-2', 'Lobby', 4000, NOW - HOUR);
    store.recordStartup('BedWars-1', 'BedWars', 1500.4, NOW - HOUR);
    store.recordStartup('BedWars-2', 'BedWars', -5, NOW - HOUR); // a clock step backwards is never negative
    store.recordStartup('Lobby-3', 'Lobby', 9000, NOW - 10 * 24 * HOUR);
    expect(store.startupsByGroup(NOW - 7 * 24 * HOUR)).toEqual(
      new Map([
        ['Lobby', { count: 2, totalMs: 6000 }],
        ['BedWars', { count: 2, totalMs: 1500 }],
      ]),
    );
  });

  test('crashes survive a restart (a new store on the same file) and are pruned by age', async () => {
    const { file, store } = setup();
    for (let i = 0; i < 250; i++) store.recordCrash(`Lobby-${i}`, 'Lobby', 1, NOW - 40 * 24 * HOUR - i);
    store.recordCrash('Lobby-1', 'Lobby', 1, NOW - HOUR);
    const again = open(file);
    expect(again.crashesByGroup(NOW - 24 * HOUR)).toEqual(new Map([['Lobby', 1]]));
    expect(await again.prune(NOW - 30 * 24 * HOUR, 100)).toBe(250);
    expect(again.crashesByGroup(0)).toEqual(new Map([['Lobby', 1]]));
  });
});

describe('recording from the bus', () => {
  test('SERVICE_CRASHED is stored under the group the crash counter uses (a dedicated service: its name)', () => {
    const { bus, registry, store } = setup();
    registry.add(record('Lobby-1', 'Lobby', { state: 'CRASHED' }));
    registry.add(record('Survival', 'Survival', { state: 'CRASHED', isDedicated: true }));
    bus.publish('SERVICE_CRASHED', { service: 'Lobby-1', exitCode: 1, restartAttempt: 0 });
    bus.publish('SERVICE_CRASHED', { service: 'Survival', exitCode: 137, restartAttempt: 0 });
    bus.publish('SERVICE_CRASHED', { service: 'Gone-3', exitCode: 1, restartAttempt: 0 }); // no record: the name says it
    expect(store.crashesByGroup(0)).toEqual(new Map([['Lobby', 1], ['Survival', 1], ['Gone', 1]]));
  });

  test('STARTING → READY is one startup; READY without a STARTING seen uses the process start', () => {
    const { bus, registry, store } = setup();
    const before = Date.now();
    registry.add(record('Lobby-1', 'Lobby', { state: 'STARTING' }));
    bus.publish('SERVICE_STARTING', { service: 'Lobby-1', group: 'Lobby', port: 30000 });
    bus.publish('SERVICE_READY', { service: 'Lobby-1', group: 'Lobby' });
    // A READY again (no new STARTING) has no start left to measure from, and no process start.
    bus.publish('SERVICE_READY', { service: 'Lobby-1', group: 'Lobby' });
    const lobby = store.startupsByGroup(0).get('Lobby')!;
    expect(lobby.count).toBe(1);
    expect(lobby.totalMs).toBeLessThanOrEqual(Date.now() - before);

    // Recovered after a controller restart while STARTING: its process started 5 s ago.
    registry.add(record('BedWars-1', 'BedWars', { state: 'STARTING', startedAt: new Date(Date.now() - 5000) }));
    bus.publish('SERVICE_READY', { service: 'BedWars-1', group: 'BedWars' });
    const bedwars = store.startupsByGroup(0).get('BedWars')!;
    expect(bedwars.count).toBe(1);
    expect(bedwars.totalMs).toBeGreaterThanOrEqual(5000);
    expect(bedwars.totalMs).toBeLessThan(60_000);
  });

  test('a start that crashes or stops before READY is no startup', () => {
    const { bus, registry, store } = setup();
    registry.add(record('Lobby-1', 'Lobby', { state: 'STARTING' }));
    bus.publish('SERVICE_STARTING', { service: 'Lobby-1', group: 'Lobby', port: 30000 });
    bus.publish('SERVICE_CRASHED', { service: 'Lobby-1', exitCode: 1, restartAttempt: 0 });
    bus.publish('SERVICE_READY', { service: 'Lobby-1', group: 'Lobby' });
    registry.add(record('Lobby-2', 'Lobby', { state: 'STARTING' }));
    bus.publish('SERVICE_STARTING', { service: 'Lobby-2', group: 'Lobby', port: 30001 });
    bus.publish('SERVICE_STOPPED', { service: 'Lobby-2' });
    bus.publish('SERVICE_READY', { service: 'Lobby-2', group: 'Lobby' });
    expect(store.startupsByGroup(0).size).toBe(0);
    expect(store.crashesByGroup(0)).toEqual(new Map([['Lobby', 1]]));
  });
});
