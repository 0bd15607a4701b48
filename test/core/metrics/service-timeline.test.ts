import { afterEach, describe, expect, setSystemTime, test } from 'bun:test';
import { join } from 'node:path';
import { recordServiceTimeline, ServiceTimeline, TIMELINE_MAX_STEPS } from '../../../src/core/metrics/service-timeline';
import { newRecord, ServiceRegistry, type ServiceRecord } from '../../../src/core/services/registry';
import { EventBus } from '../../../src/events/bus';
import { openDatabase } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../../src/storage/core-migrations';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => {
  setSystemTime();
  cleanups.splice(0).forEach((f) => f());
});

const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const HOUR = 3600_000;

function record(name: string, group: string, fields: Partial<ServiceRecord> = {}): ServiceRecord {
  return { ...newRecord({ name, group, port: 30000, workDir: '/nowhere', isStatic: false, isProxy: false, memoryMaxMb: 1024, restartCount: 0 }), ...fields };
}

function open(file: string): ServiceTimeline {
  const db = openDatabase(file);
  migrate(db, 'core', CORE_MIGRATIONS);
  cleanups.unshift(() => db.close());
  return new ServiceTimeline(db);
}

function setup() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const file = join(dir, 'svc.db');
  const timeline = open(file);
  const bus = new EventBus();
  const registry = new ServiceRegistry();
  cleanups.unshift(recordServiceTimeline(bus, timeline, (name) => registry.get(name)));
  return { file, timeline, bus, registry };
}

/** Publishes at `T0 + offsetMs` (the bus stamps events with the clock). */
function at(offsetMs: number): void {
  setSystemTime(new Date(T0 + offsetMs));
}

const shape = (timeline: ServiceTimeline, service: string) => timeline.steps(service, 100).map((s) => [s.type, s.actor]);

describe('service timeline', () => {
  test('a run by an API caller and its crash and restart by the controller, newest first, with the start’s node', () => {
    const { timeline, bus, registry } = setup();
    registry.add(record('Lobby-1', 'Lobby', { nodeId: 'local' }));
    at(0);
    bus.publish('SERVICE_STARTING', { service: 'Lobby-1', group: 'Lobby', port: '30000' }, 'api:admin');
    at(1_000);
    bus.publish('SERVICE_READY', { service: 'Lobby-1', group: 'Lobby' });
    at(2_000);
    bus.publish('SERVICE_CRASHED', { service: 'Lobby-1', exitCode: '137', restartAttempt: '1' });
    at(3_000);
    bus.publish('SERVICE_STARTING', { service: 'Lobby-1', group: 'Lobby', port: '30000' });
    // Not about Lobby-1, or not a timeline event: left out.
    bus.publish('SERVICE_READY', { service: 'Lobby-2', group: 'Lobby' });
    bus.publish('PLAYER_CONNECTED', { player: 'Steve', uuid: '00000000-0000-0000-0000-000000000001', service: 'Lobby-1' });

    const steps = timeline.steps('Lobby-1', 100);
    expect(steps.map((s) => [s.type, s.actor, s.timestamp])).toEqual([
      ['SERVICE_STARTING', 'system', new Date(T0 + 3_000).toISOString()],
      ['SERVICE_CRASHED', 'system', new Date(T0 + 2_000).toISOString()],
      ['SERVICE_READY', 'system', new Date(T0 + 1_000).toISOString()],
      ['SERVICE_STARTING', 'api:admin', new Date(T0).toISOString()],
    ]);
    expect(steps[3]!.data).toEqual({ service: 'Lobby-1', group: 'Lobby', port: '30000', node: 'local' });
    expect(steps[1]!.data).toEqual({ service: 'Lobby-1', exitCode: '137', restartAttempt: '1' });
    expect(timeline.steps('Lobby-1', 2).map((s) => s.type)).toEqual(['SERVICE_STARTING', 'SERVICE_CRASHED']);
  });

  test('the autoscaler: a start within 10 s of its group’s SCALE_UP, a stop within 10 s of the SCALE_DOWN, with the reason; later ones are the controller’s', () => {
    const { timeline, bus } = setup();
    at(0);
    bus.publish('SCALE_UP', { group: 'Lobby', from: '1', to: '2', reason: 'players 40/50 above 75%' });
    at(200);
    bus.publish('SERVICE_STARTING', { service: 'Lobby-2', group: 'Lobby', port: '30001' });
    at(10_500);
    bus.publish('SERVICE_STARTING', { service: 'Lobby-3', group: 'Lobby', port: '30002' });
    // An operator's start right after a scale-up is still the operator's.
    bus.publish('SERVICE_STARTING', { service: 'Lobby-4', group: 'Lobby', port: '30003' }, 'dashboard:Alex');
    at(60_000);
    bus.publish('SCALE_DOWN', { group: 'Lobby', service: 'Lobby-2', reason: 'empty for 5 minutes' });
    bus.publish('SERVICE_STOPPING', { service: 'Lobby-2' });
    bus.publish('SERVICE_STOPPED', { service: 'Lobby-2' });
    at(200_000);
    bus.publish('SERVICE_STOPPING', { service: 'Lobby-2' });

    const lobby2 = timeline.steps('Lobby-2', 100);
    expect(lobby2.map((s) => [s.type, s.actor])).toEqual([
      ['SERVICE_STOPPING', 'system'],
      ['SERVICE_STOPPED', 'system'],
      ['SERVICE_STOPPING', 'autoscaler'],
      ['SCALE_DOWN', 'autoscaler'],
      ['SERVICE_STARTING', 'autoscaler'],
    ]);
    expect(lobby2[2]!.data.reason).toBe('empty for 5 minutes');
    expect(lobby2[4]!.data.reason).toBe('players 40/50 above 75%');
    expect(shape(timeline, 'Lobby-3')).toEqual([['SERVICE_STARTING', 'system']]);
    expect(shape(timeline, 'Lobby-4')).toEqual([['SERVICE_STARTING', 'dashboard:Alex']]);
  });

  test('kept across a reopen of the database; pruned by age; a read is capped', async () => {
    const { file, timeline, bus } = setup();
    at(0);
    bus.publish('SERVICE_READY', { service: 'Lobby-1', group: 'Lobby' });
    at(HOUR);
    for (let i = 0; i < TIMELINE_MAX_STEPS + 5; i++) bus.publish('SERVICE_CUSTOM_STATE_CHANGED', { service: 'Lobby-1', group: 'Lobby', oldState: String(i), newState: String(i + 1) });
    expect(timeline.steps('Lobby-1', 10_000)).toHaveLength(TIMELINE_MAX_STEPS);
    expect(timeline.steps('Lobby-1', 0)).toHaveLength(1);

    const reopened = open(file);
    expect(reopened.steps('Lobby-1', 1)[0]!.data.newState).toBe(String(TIMELINE_MAX_STEPS + 5));
    expect(await reopened.prune(T0 + HOUR)).toBe(1);
    expect(reopened.steps('Lobby-1', 10_000).some((s) => s.type === 'SERVICE_READY')).toBe(false);
  });
});

