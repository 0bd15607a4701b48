import { describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { EventBus } from '../../src/events/bus';
import type { Logger } from '../../src/log';
import { RecordWriteError } from '../../src/storage/disk-full';
import { acknowledgedWrites } from '../../src/storage/write-scope';
import { EVENT_CATALOGUE, type SvcEvent } from '../../src/modules/contract';
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

describe("records: an event's durable rows are part of the change they record", () => {
  const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

  function setup() {
    const db = new Database(':memory:');
    db.run('CREATE TABLE change (v TEXT)');
    db.run('CREATE TABLE record (type TEXT)');
    const log: unknown[] = [];
    const logger = { error: (...args: unknown[]) => log.push(args) } as unknown as Logger;
    const bus = new EventBus(logger, db);
    const order: string[] = [];
    let failing = false;
    bus.subscribe((e) => order.push(`listener ${e.type}`));
    bus.subscribe(
      (e) => {
        order.push(`recorder ${e.type}`);
        db.query('INSERT INTO record (type) VALUES (?)').run(e.type);
        if (failing) throw full();
      },
      { records: 'the test record' },
    );
    const rows = (table: string) => (db.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { db, bus, order, log, rows, fail: (on: boolean) => (failing = on) };
  }

  test('recorders run before every other listener, whatever the order they subscribed in', () => {
    const { bus, order } = setup();
    bus.publish('API_WARNING', { message: 'x' });
    expect(order).toEqual(['recorder API_WARNING', 'listener API_WARNING']);
  });

  test('inside bus.transaction: the records go in with the change; the others hear of it after the commit', () => {
    const { db, bus, order, rows } = setup();
    const result = bus.transaction(() => {
      db.run("INSERT INTO change (v) VALUES ('a')");
      bus.publish('API_WARNING', { message: 'one' });
      bus.publish('API_ERROR', { error: 'two' });
      order.push('end of work');
      return 7;
    });
    expect(result).toBe(7);
    expect(order).toEqual(['recorder API_WARNING', 'recorder API_ERROR', 'end of work', 'listener API_WARNING', 'listener API_ERROR']);
    expect({ change: rows('change'), record: rows('record') }).toEqual({ change: 1, record: 2 });
  });

  test('inside bus.transaction: a record that cannot be written rolls the change back, throws it named, and nobody hears of the event', () => {
    const { db, bus, order, rows, fail } = setup();
    fail(true);
    let caught: unknown;
    try {
      bus.transaction(() => {
        db.run("INSERT INTO change (v) VALUES ('a')");
        bus.publish('API_WARNING', { message: 'one' });
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RecordWriteError);
    expect((caught as RecordWriteError).what).toBe('the test record for API_WARNING');
    expect((caught as RecordWriteError).code).toBe('SQLITE_FULL');
    expect({ change: rows('change'), record: rows('record') }).toEqual({ change: 0, record: 0 });
    expect(order).toEqual(['recorder API_WARNING']);
    expect(db.inTransaction).toBe(false);
  });

  test('outside a transaction, in a request: the change happened, the others hear of it, and the request answers with the lost record', async () => {
    const { bus, order, rows, fail, log } = setup();
    fail(true);
    let caught: unknown;
    try {
      await acknowledgedWrites(async () => {
        await Promise.resolve();
        bus.publish('API_WARNING', { message: 'x' });
        return 'acknowledged';
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RecordWriteError);
    expect(order).toEqual(['recorder API_WARNING', 'listener API_WARNING']);
    // The recorder's own transaction was rolled back: no half-written set of records.
    expect(rows('record')).toBe(0);
    expect(log).toHaveLength(1);
  });

  test('outside any request (a timer, a process exit): logged, delivered, nothing thrown at the publisher', async () => {
    const { bus, order, fail, log } = setup();
    fail(true);
    expect(() => bus.publish('API_WARNING', { message: 'x' })).not.toThrow();
    expect(order).toEqual(['recorder API_WARNING', 'listener API_WARNING']);
    expect(log).toHaveLength(1);
    // A request already answered is not failed afterwards by work it left running.
    let later: () => void = () => undefined;
    expect(await acknowledgedWrites(async () => ((later = () => bus.publish('API_ERROR', { error: 'x' })), 'done'))).toBe('done');
    expect(() => later()).not.toThrow();
  });

  test('a plain listener that fails for want of room fails the request too; one failing otherwise (a bug) is only logged', async () => {
    const bus = new EventBus({ error: () => undefined } as unknown as Logger);
    let error: Error = Object.assign(new Error('no space'), { code: 'ENOSPC' });
    bus.subscribe(() => {
      throw error;
    });
    await expect(acknowledgedWrites(async () => bus.publish('API_WARNING', { message: 'x' }))).rejects.toBe(error);
    error = new TypeError('a bug');
    expect((await acknowledgedWrites(async () => bus.publish('API_WARNING', { message: 'x' }))).type).toBe('API_WARNING');
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
