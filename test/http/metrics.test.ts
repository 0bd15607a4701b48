import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SERVICE_STATES, type ServiceState } from '../../src/core/services/lifecycle';
import { newRecord, type ServiceRecord } from '../../src/core/services/registry';
import { parseExposition, type Exposition, type MetricType } from '../core/metrics/exposition';
import { startController, type TestController } from '../support/controller';

let c: TestController;
const inserted: string[] = [];

beforeAll(async () => {
  c = await startController();
});
afterAll(async () => {
  for (const name of inserted) c.controller.kernel.services.remove(name);
  await c.stop();
});

function insert(name: string, group: string, state: ServiceState, extra: Partial<ServiceRecord> = {}): void {
  const record = newRecord({ name, group, port: 0, workDir: `/nonexistent/${name}`, isStatic: false, isProxy: false, memoryMaxMb: 1024, restartCount: 0 });
  Object.assign(record, { state, ...extra });
  c.controller.kernel.services.add(record);
  inserted.push(name);
}

async function scrape(): Promise<{ text: string; parsed: Exposition }> {
  const res = await c.api('/api/metrics', { token: c.service });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const text = await res.text();
  return { text, parsed: parseExposition(text) };
}

/** Every sample of a family as `labels → value`, label values joined by `|` in the order given. */
function series(parsed: Exposition, name: string, ...labels: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of parsed.families.get(name)?.samples ?? []) out[labels.map((l) => s.labels[l]).join('|')] = s.value;
  return out;
}

const FAMILIES: Record<string, MetricType> = {
  svc_info: 'gauge',
  svc_uptime_seconds: 'gauge',
  svc_services_total: 'gauge',
  svc_services_by_state: 'gauge',
  svc_services_by_group: 'gauge',
  svc_players_total: 'gauge',
  svc_warmpool_size: 'gauge',
  svc_warmpool_target: 'gauge',
  svc_service_crashes_total: 'counter',
  svc_scaling_events_total: 'counter',
  svc_placement_blocked_total: 'counter',
  svc_state_sync_bytes: 'gauge',
  svc_state_sync_pushes_total: 'counter',
  svc_http_request_duration_seconds: 'histogram',
  process_cpu_seconds_total: 'counter',
  process_resident_memory_bytes: 'gauge',
  process_start_time_seconds: 'gauge',
  // read from /proc/self: Linux only
  ...(process.platform === 'linux' ? { process_virtual_memory_bytes: 'gauge', process_open_fds: 'gauge', process_max_fds: 'gauge' } : {}),
};

const zeroStates = () => Object.fromEntries(SERVICE_STATES.map((s) => [s, 0]));

describe('GET /api/metrics', () => {
  test('401 without a token, 401 with a wrong one', async () => {
    expect((await c.api('/api/metrics', { token: null })).status).toBe(401);
    expect((await c.api('/api/metrics', { token: 'not-a-token' })).status).toBe(401);
  });

  test('a fresh controller: every family with HELP and TYPE, zeros where nothing happened', async () => {
    const { parsed } = await scrape();
    for (const [name, type] of Object.entries(FAMILIES)) {
      const family = parsed.families.get(name);
      expect(family, name).toBeDefined();
      expect(family!.type, name).toBe(type);
      expect(family!.help, name).toBeTruthy();
    }
    expect(parsed.value('svc_info', { version: '0.13.0' })).toBe(1);
    expect(parsed.value('svc_uptime_seconds')).toBeGreaterThanOrEqual(0);
    expect(parsed.value('svc_services_total')).toBe(0);
    expect(series(parsed, 'svc_services_by_state', 'state')).toEqual(zeroStates());
    expect(parsed.value('svc_players_total')).toBe(0);
    expect(parsed.value('svc_state_sync_bytes')).toBe(0);
    expect(series(parsed, 'svc_state_sync_pushes_total', 'result')).toEqual({ success: 0, failed: 0, conflict: 0, quota: 0 });
    // no groups yet: the per-group families have HELP and TYPE and nothing else
    for (const name of ['svc_services_by_group', 'svc_warmpool_size', 'svc_warmpool_target', 'svc_service_crashes_total', 'svc_scaling_events_total', 'svc_placement_blocked_total']) {
      expect(parsed.families.get(name)!.samples, name).toEqual([]);
    }
  });

  test('groups, services and events show up in the series', async () => {
    const group = (name: string, warmPoolSize: number) => c.api('/api/groups', { method: 'POST', json: { name, software: 'PAPER', version: '1.21.4', minInstances: 0, maxInstances: 0, warmPoolSize } });
    expect((await group('Lobby', 2)).status).toBe(201);
    expect((await group('BedWars', 0)).status).toBe(201);

    insert('Lobby-1', 'Lobby', 'PREPARED');
    insert('Lobby-2', 'Lobby', 'READY', { playerCount: 5 });
    insert('BedWars-1', 'BedWars', 'READY', { playerCount: 2 });
    insert('BedWars-2', 'BedWars', 'CRASHED');
    // a group that is no longer configured still carries its services
    insert('Gone-1', 'Gone', 'PREPARED');
    insert('Survival', 'Survival', 'STOPPED', { isDedicated: true });

    const bus = c.controller.kernel.bus;
    bus.publish('SERVICE_CRASHED', { service: 'BedWars-2', exitCode: 1, restartAttempt: 0 }); // known: record's group
    bus.publish('SERVICE_CRASHED', { service: 'Lobby-7', exitCode: 1, restartAttempt: 0 }); // unknown: from the name
    bus.publish('SERVICE_CRASHED', { service: 'Survival', exitCode: 137, restartAttempt: 1 }); // dedicated: its own name
    bus.publish('SERVICE_CRASHED', { service: 'Mystery-12', exitCode: 1, restartAttempt: 0 }); // unknown group, unknown service
    bus.publish('SCALE_UP', { group: 'Lobby', from: 1, to: 2, reason: 'players' });
    bus.publish('SCALE_UP', { group: 'Lobby', from: 2, to: 3, reason: 'players' });
    bus.publish('SCALE_DOWN', { group: 'BedWars', service: 'BedWars-1', reason: 'empty' });
    bus.publish('PLACEMENT_BLOCKED', { group: 'BedWars', reason: 'no node matches' });
    bus.publish('PLACEMENT_BLOCKED', { group: 'BedWars', reason: 'no node matches' });

    const { parsed, text } = await scrape();
    for (const [name, type] of Object.entries(FAMILIES)) expect(parsed.families.get(name)?.type, name).toBe(type);
    // HELP is one line per family
    expect(text.split('\n').filter((l) => l.startsWith('# HELP ')).length).toBe(Object.keys(FAMILIES).length);

    expect(parsed.value('svc_services_total')).toBe(6);
    expect(series(parsed, 'svc_services_by_state', 'state')).toEqual({ ...zeroStates(), PREPARED: 2, READY: 2, CRASHED: 1, STOPPED: 1 });
    expect(series(parsed, 'svc_services_by_group', 'group')).toEqual({ BedWars: 2, Lobby: 2, Gone: 1, Survival: 1 });
    // the network total (/api/status's totalPlayers): READY backends here, no proxy, empty roster
    expect(parsed.value('svc_players_total')).toBe(7);
    expect(parsed.value('svc_players_total')).toBe(c.controller.kernel.players.networkTotal());

    // warm pool size: groups with a pool (0 included) and any group with PREPARED services
    expect(series(parsed, 'svc_warmpool_size', 'group')).toEqual({ Lobby: 1, Gone: 1 });
    expect(series(parsed, 'svc_warmpool_target', 'group')).toEqual({ BedWars: 0, Lobby: 2 });

    expect(series(parsed, 'svc_service_crashes_total', 'group')).toEqual({ BedWars: 1, Lobby: 1, Mystery: 1, Survival: 1 });
    expect(series(parsed, 'svc_scaling_events_total', 'group', 'direction')).toEqual({ 'BedWars|up': 0, 'BedWars|down': 1, 'Lobby|up': 2, 'Lobby|down': 0 });
    expect(series(parsed, 'svc_placement_blocked_total', 'group')).toEqual({ BedWars: 2, Lobby: 0 });
    expect(parsed.families.get('svc_scaling_events_total')!.samples.every((s) => Object.keys(s.labels).sort().join() === 'direction,group')).toBe(true);
  });

  test('a label value that needs escaping still parses', async () => {
    c.controller.kernel.bus.publish('PLACEMENT_BLOCKED', { group: 'we"ird\\na\nme', reason: 'test' });
    const { parsed } = await scrape();
    expect(parsed.value('svc_placement_blocked_total', { group: 'we"ird\\na\nme' })).toBe(1);
  });

  test('a counter only grows: a service leaving the registry keeps its crashes', async () => {
    c.controller.kernel.services.remove('BedWars-2');
    inserted.splice(inserted.indexOf('BedWars-2'), 1);
    c.controller.kernel.bus.publish('SERVICE_CRASHED', { service: 'BedWars-2', exitCode: 1, restartAttempt: 1 });
    const { parsed } = await scrape();
    expect(parsed.value('svc_service_crashes_total', { group: 'BedWars' })).toBe(2);
    expect(parsed.value('svc_services_by_state', { state: 'CRASHED' })).toBe(0);
  });
});
