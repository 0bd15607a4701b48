/**
 * A full database through a real controller, in process: the statements that write an audit
 * row or a session row fail as SQLite fails on a full disk (an error with code SQLITE_FULL,
 * "database or disk is full"), and every request is either answered 507 INSUFFICIENT_STORAGE
 * naming what could not be written, with nothing of it acknowledged, or a 2xx whose rows
 * (audit included) are all there. A punishment and its audit entry are one transaction; a
 * PLAYER_CONNECTED is not acknowledged without its session row. The same through the binary
 * on a real full tmpfs: test/faults/disk.fault.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'bun:sqlite';
import { BUILTIN_MODULES } from '../../src/modules/builtin';
import { expectErrorBody, readJson, startController, type TestController } from '../support/controller';

let c: TestController;
let db: Database;

beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES, toml: '[punishments]\nname_lookup_url = ""\nexpiry_check_interval = 3600' });
  db = c.controller.kernel.db;
});
afterAll(() => c.stop());

const diskFull = () => Object.assign(new Error('database or disk is full'), { name: 'SQLiteError', code: 'SQLITE_FULL', errno: 13 });

/** While `work` runs, `target[method]` fails as a write to a full disk does. */
async function whileFull<T extends object>(target: T, method: keyof T & string, work: () => Promise<void>): Promise<void> {
  const original = target[method];
  (target as Record<string, unknown>)[method] = () => {
    throw diskFull();
  };
  try {
    await work();
  } finally {
    (target as Record<string, unknown>)[method] = original;
  }
}

/** The audit table's insert statement: every audit row of every event and route goes through it. */
const audit = () => (c.controller.kernel.audit as unknown as { insert: { run: unknown } }).insert;
/** The players module's store, where a PLAYER_CONNECTED opens its session row. */
const sessionStore = () => (c.controller.kernel.modules.lookup('players') as unknown as { store: { openSession: unknown } }).store;

const count = (sql: string, ...args: (string | number)[]) => (db.query(sql).get(...args) as { n: number }).n;

async function expectFull(response: Response, names: RegExp): Promise<void> {
  const body = await expectErrorBody(response);
  expect({ status: response.status, error: body.error }).toEqual({ status: 507, error: 'INSUFFICIENT_STORAGE' });
  expect(body.message).toMatch(/^no space left on the controller's disk \(SQLITE_FULL\): /);
  expect(body.message).toMatch(names);
}

describe('a database that cannot be written (SQLITE_FULL)', () => {
  test('a punishment is stored with its audit entry or not at all: 507 naming the audit entry, neither row kept', async () => {
    await whileFull(audit(), 'run', async () => {
      const before = { punishments: count('SELECT COUNT(*) AS n FROM punishments'), audit: count("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'PUNISHMENT_ISSUED'") };
      const res = await c.api('/api/punishments', { method: 'POST', json: { type: 'WARN', targetUuid: 'aaaaaaaa-0000-4000-8000-00000000d15c', targetName: 'Filler', reason: 'x' } });
      await expectFull(res, /: the audit log entry for PUNISHMENT_ISSUED \(in the database\) could not be written, so this request is not done; free space and send it again$/);
      expect({ punishments: count('SELECT COUNT(*) AS n FROM punishments'), audit: count("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'PUNISHMENT_ISSUED'") }).toEqual(before);
      // The in-memory index did not take a record the table does not have.
      expect((await readJson(await c.api('/api/punishments?active=false&limit=1'))).total).toBe(before.punishments);
    });
    // Room again: the same request is stored, audit row and all.
    const ok = await c.api('/api/punishments', { method: 'POST', json: { type: 'WARN', targetUuid: 'aaaaaaaa-0000-4000-8000-00000000d15c', targetName: 'Filler', reason: 'x' } });
    expect(ok.status).toBe(201);
    const { id } = await readJson(ok);
    expect(count("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'PUNISHMENT_ISSUED' AND details LIKE ?", `id=${id},%`)).toBe(1);
  });

  test('a PLAYER_CONNECTED is not acknowledged without its session row: 507 naming the player session', async () => {
    const uuid = 'bbbbbbbb-0000-4000-8000-00000000d15c';
    await whileFull(sessionStore(), 'openSession', async () => {
      const res = await c.api('/api/proxy/events', { method: 'POST', token: c.service, json: { type: 'PLAYER_CONNECTED', player: 'Filler2', uuid, service: 'Lobby-1' } });
      await expectFull(res, /the player session for PLAYER_CONNECTED/);
    });
    expect(count('SELECT COUNT(*) AS n FROM player_sessions WHERE uuid = ?', uuid)).toBe(0);
    const res = await c.api('/api/proxy/events', { method: 'POST', token: c.service, json: { type: 'PLAYER_CONNECTED', player: 'Filler2', uuid, service: 'Lobby-1' } });
    expect(res.status).toBe(200);
    expect(count('SELECT COUNT(*) AS n FROM player_sessions WHERE uuid = ? AND disconnected_at IS NULL', uuid)).toBe(1);
  });

  test('a group create whose audit entry cannot be written is answered 507 naming it, never 201', async () => {
    await whileFull(audit(), 'run', async () => {
      const res = await c.api('/api/groups', { method: 'POST', json: { name: 'FullDisk', software: 'PAPER', version: '1.21.1', minInstances: 0, maxInstances: 1 } });
      await expectFull(res, /the audit log entry for GROUP_CREATED/);
    });
    // The group file itself was written before the audit failed (a file is no part of a database
    // transaction): the change is there, just never acknowledged. Nothing claims otherwise.
    expect(existsSync(join(c.dir, 'config', 'groups', 'FullDisk.toml'))).toBe(true);
  });

  test('a config patch whose audit entry cannot be written is 507, not 500', async () => {
    await whileFull(audit(), 'run', async () => {
      const res = await c.api('/api/config', { method: 'PATCH', json: { networkName: 'Full' } });
      await expectFull(res, /the audit log entry for CONFIG_UPDATED \(in the database\) could not be written/);
    });
  });

  test('a shutdown still goes ahead (it is how an operator gets out of a full disk); the lost audit entry is logged', async () => {
    await whileFull(audit(), 'run', async () => {
      const res = await c.api('/api/shutdown', { method: 'POST', json: {} });
      expect(res.status).toBe(202);
    });
    expect(c.shutdownRequests).toHaveLength(1);
    expect(c.logs.some((line) => line.includes('the shutdown goes ahead without its audit entry'))).toBe(true);
  });
});
