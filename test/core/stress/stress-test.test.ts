import { afterAll, afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { GroupStore } from '../../../src/core/groups/store';
import { newRecord, ServiceRegistry, type ServiceRecord } from '../../../src/core/services/registry';
import { StressTest } from '../../../src/core/stress/stress-test';
import { ApiError } from '../../../src/errors';
import { EventBus } from '../../../src/events/bus';
import type { SvcEvent } from '../../../src/events/catalogue';
import { createLogger } from '../../../src/log';
import { tempDir, waitFor } from '../../support/controller';

/** A registry that counts how often the stress test reads a group: one read per tick. */
class CountingRegistry extends ServiceRegistry {
  reads = 0;
  override ofGroup(group: string): ServiceRecord[] {
    this.reads++;
    return super.ofGroup(group);
  }
}

const tmp = tempDir('svc-stress-');
afterAll(() => tmp.remove());
const groups = new GroupStore(join(tmp.dir, 'groups'));
groups.load();
groups.create({ name: 'Lobby', software: 'PAPER', version: '1.21.1', maxPlayers: 10 });
groups.create({ name: 'Proxy', software: 'VELOCITY', version: '3.3.0' });
const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });

const record = (name: string, state: ServiceRecord['state'] = 'READY', isProxy = false): ServiceRecord => ({
  ...newRecord({ name, group: name.split('-')[0]!, port: 30000, workDir: '/tmp/x', isStatic: false, isProxy, memoryMaxMb: 1024, restartCount: 0 }),
  state,
});

let registry: CountingRegistry;
let bus: EventBus;
let now: number;
let stress: StressTest;
let events: SvcEvent[];

beforeEach(() => {
  registry = new CountingRegistry();
  bus = new EventBus();
  now = 1_000_000;
  events = [];
  bus.subscribe((event) => event.type === 'STRESS_TEST_UPDATED' && events.push(event));
  stress = new StressTest({ registry, groups, bus, log, tickMs: { ramping: 5, holding: 10 }, now: () => now });
  registry.add(record('Lobby-1'));
  registry.add(record('Lobby-2'));
  registry.add(record('Proxy-1', 'READY', true));
});
afterEach(() => stress.close());

const last = () => events[events.length - 1]!.data;
const waitForSplit = (perService: string) => waitFor(() => events.some((e) => e.data.perService === perService), { what: `perService ${perService}` });
const codeOf = (action: () => unknown): string => {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return `${error.errorCode}: ${error.message}`;
    throw error;
  }
  throw new Error('expected an ApiError');
};

describe('StressTest', () => {
  test('inactive status is all zeros', () => {
    expect(stress.active).toBe(false);
    expect(stress.status()).toEqual({ active: false, group: null, currentPlayers: 0, targetPlayers: 0, totalCapacity: 0, overflow: 0, elapsedSeconds: 0, services: {}, proxyServices: {} });
  });

  test('ramps linearly to the goal, split over the READY backends; events carry the split', async () => {
    const started = stress.start({ players: 16, group: 'Lobby', rampSeconds: 10 }, 'api:admin');
    expect(stress.active).toBe(true);
    expect(started).toMatchObject({ active: true, group: 'Lobby', currentPlayers: 0, targetPlayers: 16, totalCapacity: 20 });
    expect(events[0]).toMatchObject({ actor: 'api:admin', data: { simulatedPlayers: '0', targetPlayers: '16', targetGroup: 'Lobby', perService: 'Lobby-1=0,Lobby-2=0' } });

    now += 5_000;
    await waitForSplit('Lobby-1=4,Lobby-2=4');
    expect(last()).toEqual({ simulatedPlayers: '8', targetPlayers: '16', targetGroup: 'Lobby', perService: 'Lobby-1=4,Lobby-2=4' });
    now += 2_500;
    await waitForSplit('Lobby-1=6,Lobby-2=6');
    now += 10_000; // past the end of the ramp: the goal, not beyond
    await waitForSplit('Lobby-1=8,Lobby-2=8');
    expect(stress.status()).toEqual({
      active: true,
      group: 'Lobby',
      currentPlayers: 16,
      targetPlayers: 16,
      totalCapacity: 20,
      overflow: 0,
      elapsedSeconds: 17,
      services: { 'Lobby-1': 8, 'Lobby-2': 8 },
      proxyServices: { 'Proxy-1': 16 },
    });
    // Simulated players never touch the real counts.
    expect(registry.all().map((s) => s.playerCount)).toEqual([0, 0, 0]);
    expect(events.every((e) => e.type === 'STRESS_TEST_UPDATED')).toBe(true);
  });

  test('publishes only when the count or the split changes', async () => {
    stress.start({ players: 6, group: 'Lobby', rampSeconds: 0 }, 'api:admin');
    expect(last()).toMatchObject({ simulatedPlayers: '6', perService: 'Lobby-1=3,Lobby-2=3' });
    const published = events.length;
    const reads = registry.reads;
    await waitFor(() => registry.reads >= reads + 3, { what: 'three more ticks' });
    expect(events.length).toBe(published);
    expect(events[published - 1]!.actor).toBe('api:admin');
  });

  test('services that appear or leave are picked up on the next tick', async () => {
    stress.start({ players: 16, group: 'Lobby', rampSeconds: 0 }, 'api:admin');
    expect(last().perService).toBe('Lobby-1=8,Lobby-2=8');
    registry.add(record('Lobby-3', 'STARTING'));
    registry.add(record('Lobby-10'));
    await waitForSplit('Lobby-1=6,Lobby-2=5,Lobby-10=5');
    expect(events[events.length - 1]!.actor).toBe('system');
    registry.get('Lobby-3')!.state = 'READY';
    await waitForSplit('Lobby-1=4,Lobby-2=4,Lobby-3=4,Lobby-10=4');
    registry.get('Lobby-2')!.state = 'STOPPING';
    registry.remove('Lobby-10');
    await waitForSplit('Lobby-1=8,Lobby-3=8');
    expect(Object.keys(stress.status().services)).toEqual(['Lobby-1', 'Lobby-3']);
  });

  test('over capacity: capped per service, the rest is overflow; no services at all overflows everything', async () => {
    stress.start({ players: 25, group: 'Lobby', rampSeconds: 0 }, 'api:admin');
    expect(stress.status()).toMatchObject({ currentPlayers: 20, targetPlayers: 25, totalCapacity: 20, overflow: 5 });
    expect(last()).toMatchObject({ simulatedPlayers: '20', targetPlayers: '25', perService: 'Lobby-1=10,Lobby-2=10' });
    registry.remove('Lobby-1');
    registry.remove('Lobby-2');
    await waitFor(() => last().simulatedPlayers === '0', { what: 'the load to vanish with its services' });
    expect(last().perService).toBe('');
    expect(stress.status()).toMatchObject({ currentPlayers: 0, totalCapacity: 0, overflow: 25, services: {}, proxyServices: { 'Proxy-1': 0 } });
  });

  test('ramp moves the goal from the current count over the new duration', async () => {
    stress.start({ players: 16, group: 'Lobby', rampSeconds: 0 }, 'api:admin');
    const ramped = stress.ramp({ players: 4, durationSeconds: 10 }, 'api:ops');
    expect(ramped).toMatchObject({ currentPlayers: 16, targetPlayers: 4 });
    expect(events[events.length - 1]).toMatchObject({ actor: 'api:ops', data: { simulatedPlayers: '16', targetPlayers: '4' } });
    now += 5_000;
    await waitForSplit('Lobby-1=5,Lobby-2=5');
    now += 5_000;
    await waitForSplit('Lobby-1=2,Lobby-2=2');
    // A new ramp starts from where the old one is now, not from its goal.
    now += 1_000;
    stress.ramp({ players: 14, durationSeconds: 10 }, 'api:admin');
    now += 5_000;
    await waitForSplit('Lobby-1=5,Lobby-2=4');
    stress.ramp({ players: 2, durationSeconds: 0 }, 'api:admin');
    expect(stress.status()).toMatchObject({ currentPlayers: 2, targetPlayers: 2 });
  });

  test('stop publishes zeros and goes idle; a new test may start', () => {
    stress.start({ players: 6, group: 'Lobby', rampSeconds: 0 }, 'api:admin');
    const stopped = stress.stop('api:admin');
    expect(stopped.active).toBe(false);
    expect(stress.active).toBe(false);
    expect(events[events.length - 1]).toMatchObject({ actor: 'api:admin', data: { simulatedPlayers: '0', targetPlayers: '0', targetGroup: 'Lobby', perService: 'Lobby-1=0,Lobby-2=0' } });
    expect(stress.start({ players: 2, group: 'Lobby', rampSeconds: 0 }, 'api:admin').currentPlayers).toBe(2);
  });

  test('refusals: already running, unknown group, proxy group, nothing running', () => {
    expect(codeOf(() => stress.stop('api:admin'))).toStartWith('STRESS_NOT_RUNNING');
    expect(codeOf(() => stress.ramp({ players: 1, durationSeconds: 1 }, 'api:admin'))).toStartWith('STRESS_NOT_RUNNING');
    expect(codeOf(() => stress.start({ players: 1, group: 'Nope', rampSeconds: 0 }, 'api:admin'))).toStartWith('GROUP_NOT_FOUND');
    const proxy = codeOf(() => stress.start({ players: 1, group: 'Proxy', rampSeconds: 0 }, 'api:admin'));
    expect(proxy).toStartWith('VALIDATION_FAILED');
    expect(proxy).toContain('stress tests target backend groups');
    expect(events).toEqual([]);
    stress.start({ players: 1, group: 'Lobby', rampSeconds: 0 }, 'api:admin');
    expect(codeOf(() => stress.start({ players: 1, group: 'Lobby', rampSeconds: 0 }, 'api:admin'))).toStartWith('STRESS_ALREADY_RUNNING');
  });

  test('close ends the test without an event', () => {
    stress.start({ players: 6, group: 'Lobby', rampSeconds: 0 }, 'api:admin');
    const published = events.length;
    stress.close();
    expect(stress.active).toBe(false);
    expect(events.length).toBe(published);
  });
});
