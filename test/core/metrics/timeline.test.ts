import { afterEach, describe, expect, setSystemTime, test } from 'bun:test';
import { join } from 'node:path';
import { recordTimeline, Timeline, TIMELINE_MAX_STEPS } from '../../../src/core/metrics/timeline';
import { newRecord, ServiceRegistry, type ServiceRecord } from '../../../src/core/services/registry';
import { EventBus } from '../../../src/events/bus';
// Declares the auth module's events (the magic-link delivery among them) on the catalogue.
import '../../../src/modules/auth/events';
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

function open(file: string): Timeline {
  const db = openDatabase(file);
  migrate(db, 'core', CORE_MIGRATIONS);
  cleanups.unshift(() => db.close());
  return new Timeline(db);
}

function setup() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const file = join(dir, 'svc.db');
  const timeline = open(file);
  const bus = new EventBus();
  const registry = new ServiceRegistry();
  cleanups.unshift(recordTimeline(bus, timeline, (name) => registry.get(name)));
  return { file, timeline, bus, registry };
}

/** Publishes at `T0 + offsetMs` (the bus stamps events with the clock). */
function at(offsetMs: number): void {
  setSystemTime(new Date(T0 + offsetMs));
}

const shape = (timeline: Timeline, service: string) => timeline.steps(service, 100).map((s) => [s.type, s.actor]);

describe('a service’s timeline', () => {
  test('a run by an API caller, its crash and the crash handler’s restart, newest first, with the start’s node', () => {
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
    at(4_000);
    // The next start by the controller follows no crash: its own.
    bus.publish('SERVICE_STOPPED', { service: 'Lobby-1' });
    bus.publish('SERVICE_STARTING', { service: 'Lobby-1', group: 'Lobby', port: '30000' });
    // Not about Lobby-1, or too frequent for the timeline: left out of it.
    bus.publish('SERVICE_READY', { service: 'Lobby-2', group: 'Lobby' });
    bus.publish('PLAYER_CONNECTED', { player: 'Steve', uuid: '00000000-0000-0000-0000-000000000001', service: 'Lobby-1' });

    const steps = timeline.steps('Lobby-1', 100);
    expect(steps.map((s) => [s.type, s.actor, s.timestamp])).toEqual([
      ['SERVICE_STARTING', 'system', new Date(T0 + 4_000).toISOString()],
      ['SERVICE_STOPPED', 'system', new Date(T0 + 4_000).toISOString()],
      ['SERVICE_STARTING', 'crash-handler', new Date(T0 + 3_000).toISOString()],
      ['SERVICE_CRASHED', 'system', new Date(T0 + 2_000).toISOString()],
      ['SERVICE_READY', 'system', new Date(T0 + 1_000).toISOString()],
      ['SERVICE_STARTING', 'api:admin', new Date(T0).toISOString()],
    ]);
    expect(steps[5]!.data).toEqual({ service: 'Lobby-1', group: 'Lobby', port: '30000', node: 'local' });
    expect(steps[3]!.data).toEqual({ service: 'Lobby-1', exitCode: '137', restartAttempt: '1' });
    expect(timeline.steps('Lobby-1', 2).map((s) => s.type)).toEqual(['SERVICE_STARTING', 'SERVICE_STOPPED']);
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

describe('the network timeline', () => {
  test('every change, not only services’: groups, maintenance, the scaling decisions, each with its group where it has one', () => {
    const { timeline, bus, registry } = setup();
    registry.add(record('Lobby-1', 'Lobby'));
    at(0);
    bus.publish('GROUP_CREATED', { group: 'Lobby' }, 'api:admin');
    bus.publish('SCALE_UP', { group: 'Lobby', from: '0', to: '1', reason: 'minimum 1' });
    bus.publish('SERVICE_STARTING', { service: 'Lobby-1', group: 'Lobby', port: '30000' });
    // No group in its data: the service's record names it.
    bus.publish('SERVICE_STOPPING', { service: 'Lobby-1' }, 'console');
    bus.publish('MAINTENANCE_ENABLED', { scope: 'global', reason: 'update' }, 'dashboard:Alex');
    bus.publish('NODE_HEARTBEAT', { nodeId: 'n1', cpuUsage: '0.1', services: '0' });

    const all = timeline.query({ limit: 100 });
    expect(all.map((e) => [e.type, e.actor, e.service, e.group])).toEqual([
      ['MAINTENANCE_ENABLED', 'dashboard:Alex', null, null],
      ['SERVICE_STOPPING', 'console', 'Lobby-1', 'Lobby'],
      ['SERVICE_STARTING', 'autoscaler', 'Lobby-1', 'Lobby'],
      ['SCALE_UP', 'autoscaler', null, 'Lobby'],
      ['GROUP_CREATED', 'api:admin', null, 'Lobby'],
    ]);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
    expect(timeline.query({ limit: 100, group: 'Lobby' })).toHaveLength(4);
    expect(timeline.query({ limit: 100, actor: 'autoscaler' }).map((e) => e.type)).toEqual(['SERVICE_STARTING', 'SCALE_UP']);
    expect(timeline.query({ limit: 100, types: ['GROUP_CREATED', 'MAINTENANCE_ENABLED'] }).map((e) => e.type)).toEqual(['MAINTENANCE_ENABLED', 'GROUP_CREATED']);
    expect(timeline.query({ limit: 100, service: 'Lobby-1', actor: 'console' }).map((e) => e.type)).toEqual(['SERVICE_STOPPING']);
  });

  test('paged back with before, followed with after (oldest first)', () => {
    const { timeline, bus } = setup();
    at(0);
    for (let i = 0; i < 7; i++) bus.publish('GROUP_UPDATED', { group: `G${i}` }, 'api:admin');
    const first = timeline.query({ limit: 3 });
    expect(first.map((e) => e.group)).toEqual(['G6', 'G5', 'G4']);
    const second = timeline.query({ limit: 3, before: first.at(-1)!.id });
    expect(second.map((e) => e.group)).toEqual(['G3', 'G2', 'G1']);
    const last = timeline.query({ limit: 3, before: second.at(-1)!.id });
    expect(last.map((e) => e.group)).toEqual(['G0']);
    expect(timeline.query({ limit: 10, after: second[0]!.id }).map((e) => e.group)).toEqual(['G4', 'G5', 'G6']);
  });

  test('an event carrying a secret for the proxy (the auth module’s live login link) is never kept', () => {
    const { timeline, bus } = setup();
    at(0);
    bus.publish('AUTH_MAGIC_LINK_DELIVERY', { uuid: '00000000-0000-0000-0000-000000000001', name: 'Steve', url: 'http://localhost:8080/login?link=secret-token', ttl: '300', expiresAt: '0' });
    bus.publish('GROUP_DELETED', { group: 'Old' }, 'api:admin');
    expect(timeline.query({ limit: 10 }).map((e) => e.type)).toEqual(['GROUP_DELETED']);
  });

  test('a module’s resolver names the service of its own event and who caused it', () => {
    const { timeline, bus } = setup();
    const stop = timeline.addResolver((event) => (event.type === 'GROUP_UPDATED' && event.data.group === 'Lobby' ? { service: 'Lobby-1', actor: 'scheduler' } : undefined));
    at(0);
    bus.publish('GROUP_UPDATED', { group: 'Lobby' }, 'system');
    stop();
    bus.publish('GROUP_UPDATED', { group: 'Lobby' }, 'system');
    expect(timeline.query({ limit: 10 }).map((e) => [e.service, e.actor])).toEqual([
      [null, 'system'],
      ['Lobby-1', 'scheduler'],
    ]);
  });
});
