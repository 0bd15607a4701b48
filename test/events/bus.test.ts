import { describe, expect, test } from 'bun:test';
import { EventBus } from '../../src/events/bus';
import { EVENT_CATALOGUE, type SvcEvent } from '../../src/events/catalogue';
import { detailsOf, isAudited } from '../../src/core/audit/recorder';

describe('EventBus', () => {
  test('stringifies values, drops absent optional keys and keys outside the catalogue', () => {
    const bus = new EventBus();
    const seen: SvcEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    bus.publish('SCALE_UP', { group: 'Lobby', from: 1, to: 2, reason: 'players' });
    bus.publish('PLAYER_TAB_UPDATED', { uuid: 'u', format: undefined });
    bus.publish('GROUP_CREATED', { group: 'G', secret: 'x' } as { group: string });
    expect(seen.map((e) => e.data)).toEqual([{ group: 'Lobby', from: '1', to: '2', reason: 'players' }, { uuid: 'u' }, { group: 'G' }]);
    expect(seen[0]!.actor).toBe('system');
  });

  test('SERVICE_MESSAGE carries the sender data at top level', () => {
    const bus = new EventBus();
    const event = bus.publish('SERVICE_MESSAGE', { from: 'Lobby-1', to: 'controller', channel: 'stats', tps: 19.9, ok: true });
    expect(event.data).toEqual({ from: 'Lobby-1', to: 'controller', channel: 'stats', tps: '19.9', ok: 'true' });
  });

  test('a module event carries its module id, folded into data', () => {
    const bus = new EventBus();
    const seen: SvcEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    bus.publish('DISPLAY_UPDATED', { group: 'Lobby' });
    bus.publish('PERMISSION_GROUP_CREATED', { group: 'Admin', moduleId: 'perms' });
    expect(seen.map((e) => e.data)).toEqual([
      { group: 'Lobby', moduleId: 'display' },
      { group: 'Admin', moduleId: 'perms' },
    ]);
  });

  test('a throwing listener does not stop delivery to the others', () => {
    const bus = new EventBus();
    const got: string[] = [];
    bus.subscribe(() => {
      throw new Error('boom');
    });
    bus.subscribe((e) => got.push(e.type));
    bus.publish('API_WARNING', { message: 'x' });
    expect(got).toEqual(['API_WARNING']);
  });

  test('unsubscribe stops delivery', () => {
    const bus = new EventBus();
    const got: string[] = [];
    const off = bus.subscribe((e) => got.push(e.type));
    off();
    bus.publish('API_WARNING', { message: 'x' });
    expect(got).toEqual([]);
    expect(bus.listenerCount).toBe(0);
  });
});

describe('catalogue', () => {
  test('holds every core event type of the spec with its keys', () => {
    const expected: Record<string, string[]> = {
      SERVICE_STARTING: ['service', 'group', 'port'],
      SERVICE_CRASHED: ['service', 'exitCode', 'restartAttempt'],
      SERVICE_RECOVERED: ['service', 'group', 'pid', 'port'],
      SCALE_DOWN: ['group', 'service', 'reason'],
      SYNC_COMPLETED: ['service', 'filesInManifest', 'filesReceived', 'bytesReceived', 'durationMs'],
      PLAYER_SERVER_SWITCH: ['player', 'uuid', 'from', 'to'],
      MOTD_UPDATED: ['line1', 'line2', 'maxPlayers', 'playerCountOffset'],
      STRESS_TEST_UPDATED: ['simulatedPlayers', 'targetPlayers', 'targetGroup', 'perService'],
      CLI_SESSION_CONNECTED: ['sessionId', 'remoteIp', 'clientUsername', 'clientHostname', 'clientOs', 'location'],
      CLI_SESSION_DISCONNECTED: ['sessionId', 'remoteIp', 'clientUsername', 'durationSeconds', 'commandCount'],
      SVC_UPDATE_AVAILABLE: ['currentVersion', 'newVersion', 'updateType'],
      PUNISHMENT_ISSUED: ['id', 'type', 'target', 'targetUuid', 'issuer', 'reason', 'expiresAt', 'scope', 'scopeTarget', 'kickMessage', 'moduleId'],
      RESOURCE_PACK_STATUS: ['player', 'pack', 'status', 'moduleId'],
    };
    for (const [type, keys] of Object.entries(expected)) {
      expect(Object.keys(EVENT_CATALOGUE[type as keyof typeof EVENT_CATALOGUE].keys)).toEqual(keys);
    }
    expect(Object.keys(EVENT_CATALOGUE).length).toBeGreaterThanOrEqual(81);
    for (const type of Object.keys(EVENT_CATALOGUE)) expect(type).toMatch(/^[A-Z][A-Z0-9_]+$/);
  });
});

describe('audit rule', () => {
  const ev = (type: keyof typeof EVENT_CATALOGUE, actor: SvcEvent['actor']): SvcEvent => ({ type, actor, data: {}, timestamp: '' });
  test('always, actor-only, never', () => {
    expect(isAudited(ev('GROUP_CREATED', 'system'))).toBe(true);
    expect(isAudited(ev('SERVICE_STOPPING', 'system'))).toBe(false);
    expect(isAudited(ev('SERVICE_STOPPING', 'api:admin'))).toBe(true);
    expect(isAudited(ev('NODE_HEARTBEAT', 'api:admin'))).toBe(false);
  });
  test('details read as key=value pairs', () => {
    expect(detailsOf({ group: 'Lobby', from: 1 })).toBe('group=Lobby, from=1');
  });
});
