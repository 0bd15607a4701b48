/**
 * Dashboard sessions over HTTP: who am I, my sessions, revoking one, the others, myself, the
 * machine view and logout-all, the revocation events, the per-player cap, WebSocket tickets,
 * survival across a restart, and validation that does not write to the database per request.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { waitFor, type TestController } from '../../support/controller';
import { loginAs, testPlayer } from '../../support/dashboard-login';
import { auditOf, expectError, expectJson, getAs, login, meOf, startAuth, type AuthTest } from './harness';

const SESSION_ID = /^[0-9a-f]{16}$/;
const post = (c: TestController, path: string, token: string | null) => c.api(path, { method: 'POST', token });
const del = (c: TestController, path: string, token: string | null) => c.api(path, { method: 'DELETE', token });
const mySessions = async (c: TestController, token: string) => expectJson(await getAs(c, '/api/auth/my-sessions', token));

let t: AuthTest;
let c: TestController;
beforeAll(async () => {
  t = await startAuth();
  c = t.c;
});
afterAll(() => t.stop());

describe('me', () => {
  test('a session gets its identity; API tokens have none (403); no or a wrong token is 401', async () => {
    const alice = testPlayer(1, 'Alice');
    const token = await loginAs(c, alice, ['svc.dashboard.services.view']);
    expect(await meOf(c, token)).toEqual({ uuid: alice.uuid, name: 'Alice', permissions: ['svc.dashboard.services.view'], isAdmin: false, totpEnabled: false });
    await expectError(await getAs(c, '/api/auth/me', c.master), 403, 'FORBIDDEN', 'dashboard session');
    await expectError(await getAs(c, '/api/auth/me', c.service), 403, 'FORBIDDEN');
    await expectError(await getAs(c, '/api/auth/me', null), 401, 'UNAUTHORIZED');
    await expectError(await getAs(c, '/api/auth/me', 'A'.repeat(43)), 401, 'AUTH_FAILED');
  });

  test('an admin session says isAdmin', async () => {
    const token = await loginAs(c, testPlayer(2, 'Boss'), ['svc.dashboard.admin']);
    expect(await meOf(c, token)).toMatchObject({ isAdmin: true, permissions: ['svc.dashboard.admin'] });
  });
});

describe('my sessions', () => {
  test('lists the caller’s own sessions, newest first, and marks the current one', async () => {
    const carol = testPlayer(3, 'Carol');
    const first = await login(c, carol);
    const second = await login(c, carol);
    await loginAs(c, testPlayer(4, 'Dave')); // someone else's session is not listed
    const body = await mySessions(c, first.token);
    expect(body.sessions).toHaveLength(2);
    for (const s of body.sessions) {
      expect(Object.keys(s).sort()).toEqual(['createdAt', 'expiresAt', 'ip', 'lastUsedAt', 'loginMethod', 'name', 'sessionId', 'userAgent', 'uuid']);
      expect(s).toMatchObject({ uuid: carol.uuid, name: 'Carol', ip: '127.0.0.1', loginMethod: 'code' });
      expect(s.sessionId).toMatch(SESSION_ID);
    }
    expect(body.sessions[0].createdAt).toBeGreaterThanOrEqual(body.sessions[1].createdAt);
    const secondId = (await mySessions(c, second.token)).currentSessionId;
    expect(body.currentSessionId).not.toBe(secondId);
    expect(body.sessions.map((s: { sessionId: string }) => s.sessionId).sort()).toEqual([body.currentSessionId, secondId].sort());
  });

  test('DELETE my-sessions/{id}: a sibling is logged out; an id of someone else is 404; a malformed id is 400', async () => {
    const erin = testPlayer(5, 'Erin');
    const mine = await login(c, erin);
    const sibling = await login(c, erin);
    const siblingId = (await mySessions(c, sibling.token)).currentSessionId;
    const stranger = await loginAs(c, testPlayer(6, 'Frank'));
    const strangerId = (await mySessions(c, stranger)).currentSessionId;

    await expectError(await del(c, `/api/auth/my-sessions/${strangerId}`, mine.token), 404, 'AUTH_SESSION_INVALID');
    expect((await getAs(c, '/api/auth/me', stranger)).status).toBe(200);
    for (const bad of ['xyz', siblingId.toUpperCase(), siblingId.slice(0, 8), `${siblingId}0`]) {
      await expectError(await del(c, `/api/auth/my-sessions/${bad}`, mine.token), 400, 'VALIDATION_FAILED');
    }
    await expectError(await del(c, '/api/auth/my-sessions/0123456789abcdef', mine.token), 404, 'AUTH_SESSION_INVALID');

    expect(await expectJson(await del(c, `/api/auth/my-sessions/${siblingId}`, mine.token))).toEqual({ success: true, message: 'Session revoked', error: null });
    await expectError(await getAs(c, '/api/auth/me', sibling.token), 401, 'AUTH_SESSION_INVALID', 'logged out');
    await expectError(await del(c, `/api/auth/my-sessions/${siblingId}`, mine.token), 404, 'AUTH_SESSION_INVALID');
    expect((await mySessions(c, mine.token)).sessions).toHaveLength(1);
    await expectError(await del(c, `/api/auth/my-sessions/${siblingId}`, null), 401, 'UNAUTHORIZED');
  });

  test('revoke-others keeps only the current session', async () => {
    const gina = testPlayer(7, 'Gina');
    const keep = await login(c, gina);
    const others = [await login(c, gina), await login(c, gina)];
    expect(await expectJson(await post(c, '/api/auth/my-sessions/revoke-others', keep.token))).toEqual({ revoked: 2 });
    for (const o of others) await expectError(await getAs(c, '/api/auth/me', o.token), 401, 'AUTH_SESSION_INVALID');
    expect((await getAs(c, '/api/auth/me', keep.token)).status).toBe(200);
    expect(await expectJson(await post(c, '/api/auth/my-sessions/revoke-others', keep.token))).toEqual({ revoked: 0 });
    await expectError(await post(c, '/api/auth/my-sessions/revoke-others', c.master), 403, 'FORBIDDEN');
  });

  test('logout ends the calling session only', async () => {
    const hank = testPlayer(8, 'Hank');
    const a = await login(c, hank);
    const b = await login(c, hank);
    expect(await expectJson(await post(c, '/api/auth/logout', a.token))).toEqual({ success: true, message: 'Session revoked', error: null });
    await expectError(await getAs(c, '/api/auth/me', a.token), 401, 'AUTH_SESSION_INVALID');
    await expectError(await post(c, '/api/auth/logout', a.token), 401, 'AUTH_SESSION_INVALID');
    expect((await getAs(c, '/api/auth/me', b.token)).status).toBe(200);
    await expectError(await post(c, '/api/auth/logout', null), 401, 'UNAUTHORIZED');
  });
});

describe('machine view: sessions and logout-all', () => {
  test('GET /api/auth/sessions?uuid= for API tokens only', async () => {
    const ivy = testPlayer(9, 'Ivy');
    const token = await loginAs(c, ivy, ['svc.dashboard.admin']);
    const one = await expectJson(await getAs(c, `/api/auth/sessions?uuid=${ivy.uuid}`, c.service));
    expect(one.total).toBe(1);
    expect(one.sessions[0]).toMatchObject({ uuid: ivy.uuid, name: 'Ivy', loginMethod: 'code' });
    // Undashed is the same player.
    expect((await expectJson(await getAs(c, `/api/auth/sessions?uuid=${ivy.uuid.replace(/-/g, '')}`, c.service))).total).toBe(1);
    const all = await expectJson(await getAs(c, '/api/auth/sessions', c.master));
    expect(all.total).toBe(all.sessions.length);
    expect(all.total).toBeGreaterThan(1);
    await expectError(await getAs(c, `/api/auth/sessions?uuid=${ivy.uuid}`, token), 403, 'FORBIDDEN', 'dashboard session cannot');
    await expectError(await getAs(c, '/api/auth/sessions?uuid=nope', c.service), 400, 'VALIDATION_FAILED');
    await expectError(await getAs(c, '/api/auth/sessions', null), 401, 'UNAUTHORIZED');
  });

  test('POST /api/auth/logout-all?uuid= ends every session of that player only', async () => {
    const jack = testPlayer(10, 'Jack');
    const admin = await loginAs(c, jack, ['svc.dashboard.admin']);
    const second = await login(c, jack);
    const bystander = await loginAs(c, testPlayer(11, 'Kim'));
    await expectError(await post(c, `/api/auth/logout-all?uuid=${jack.uuid}`, admin), 403, 'FORBIDDEN');
    await expectError(await post(c, '/api/auth/logout-all', c.service), 400, 'VALIDATION_FAILED');
    expect(await expectJson(await post(c, `/api/auth/logout-all?uuid=${jack.uuid}`, c.service))).toEqual({ revoked: 2 });
    for (const token of [admin, second.token]) await expectError(await getAs(c, '/api/auth/me', token), 401, 'AUTH_SESSION_INVALID');
    expect((await getAs(c, '/api/auth/me', bystander)).status).toBe(200);
    const before = t.events.length;
    expect(await expectJson(await post(c, `/api/auth/logout-all?uuid=${jack.uuid}`, c.service))).toEqual({ revoked: 0 });
    expect(t.events.slice(before).filter((e) => e.type === 'DASHBOARD_SESSION_REVOKED')).toEqual([]);
  });

  test('every revocation is audited as DASHBOARD_SESSION_REVOKED with its scope', async () => {
    const leo = testPlayer(12, 'Leo');
    const a = await login(c, leo);
    const b = await login(c, leo);
    const cc = await login(c, leo);
    const d = await login(c, leo);
    const bId = (await mySessions(c, b.token)).currentSessionId;
    const aId = (await mySessions(c, a.token)).currentSessionId;
    expect((await del(c, `/api/auth/my-sessions/${bId}`, a.token)).status).toBe(200);
    expect((await post(c, '/api/auth/logout', a.token)).status).toBe(200);
    expect(await expectJson(await post(c, '/api/auth/my-sessions/revoke-others', cc.token))).toEqual({ revoked: 1 });
    expect(d.token).toBeString();
    expect(await expectJson(await post(c, `/api/auth/logout-all?uuid=${leo.uuid}`, c.service))).toEqual({ revoked: 1 });

    const mine = (await auditOf(c, 'DASHBOARD_SESSION_REVOKED')).filter((e) => e.data.uuid === leo.uuid);
    expect(mine.map((e) => ({ actor: e.actor, scope: e.data.scope, count: e.data.count }))).toEqual([
      { actor: 'dashboard:Leo', scope: 'sibling', count: '1' },
      { actor: 'dashboard:Leo', scope: 'self', count: '1' },
      { actor: 'dashboard:Leo', scope: 'others', count: '1' },
      { actor: 'api:service', scope: 'all', count: '1' },
    ]);
    expect(mine[0]!.data.sessionId).toBe(bId);
    expect(mine[1]!.data.sessionId).toBe(aId);
    expect(mine[0]!.data.ip).toBe('127.0.0.1');
  });
});

describe('ws-ticket', () => {
  test('a session gets a single-use wt_ ticket valid 30 s; API tokens get 403', async () => {
    const token = await loginAs(c, testPlayer(13, 'Mia'), ['svc.dashboard.overview']);
    const before = Date.now();
    const body = await expectJson(await getAs(c, '/api/auth/ws-ticket', token));
    expect(Object.keys(body).sort()).toEqual(['expiresAt', 'ticket']);
    expect(body.ticket).toMatch(/^wt_[A-Za-z0-9_-]{32}$/);
    expect(body.expiresAt).toBeGreaterThanOrEqual(before + 30_000);
    expect(body.expiresAt).toBeLessThanOrEqual(Date.now() + 30_000);
    await expectError(await getAs(c, '/api/auth/ws-ticket', c.master), 403, 'FORBIDDEN');
    await expectError(await getAs(c, '/api/auth/ws-ticket', null), 401, 'UNAUTHORIZED');

    // The ticket opens the event socket once; a second use is refused.
    const url = `${c.url.replace('http', 'ws')}/api/events?token=${body.ticket}`;
    const subscribers = c.controller.eventSubscribers;
    const first = new WebSocket(url);
    await waitFor(() => c.controller.eventSubscribers === subscribers + 1, { what: 'the ticket socket to subscribe' });
    const second = new WebSocket(url);
    const code = await new Promise<number>((resolve) => second.addEventListener('close', (e) => resolve(e.code)));
    expect(code).toBe(1008);
    first.close();
  });
});

describe('max_per_user = 2', () => {
  test('a third login revokes the oldest session', async () => {
    const capped = await startAuth({ auth: '[sessions]\nmax_per_user = 2\n' });
    try {
      const p = testPlayer(20, 'Ned');
      const first = await login(capped.c, p);
      const second = await login(capped.c, p);
      const third = await login(capped.c, p);
      await expectError(await getAs(capped.c, '/api/auth/me', first.token), 401, 'AUTH_SESSION_INVALID');
      for (const s of [second, third]) expect((await getAs(capped.c, '/api/auth/me', s.token)).status).toBe(200);
      expect((await mySessions(capped.c, third.token)).sessions).toHaveLength(2);
    } finally {
      await capped.stop();
    }
  });
});

describe('persistence', () => {
  test('a session survives a restart; a logged-out one stays logged out', async () => {
    const own = await startAuth();
    try {
      const p = testPlayer(30, 'Olga');
      const live = await loginAs(own.c, p, ['svc.dashboard.services.view']);
      const ended = await login(own.c, p);
      expect((await post(own.c, '/api/auth/logout', ended.token)).status).toBe(200);
      await own.restart();
      expect(await meOf(own.c, live)).toMatchObject({ uuid: p.uuid, name: 'Olga', permissions: ['svc.dashboard.services.view'] });
      expect((await getAs(own.c, '/api/services', live)).status).toBe(200);
      await expectError(await getAs(own.c, '/api/auth/me', ended.token), 401, 'AUTH_SESSION_INVALID');
    } finally {
      await own.stop();
    }
  });

  test('validating a session writes nothing per request (use is stored at most once a minute)', async () => {
    const p = testPlayer(31, 'Pia');
    const session = await login(c, p, ['svc.dashboard.services.view']);
    const id = (await mySessions(c, session.token)).currentSessionId;
    const db = new Database(join(c.dir, 'data', 'svc.db'), { readonly: true });
    try {
      const row = () => db.query<{ last_used_at: number; expires_at: number }, [string]>('SELECT last_used_at, expires_at FROM auth_sessions WHERE session_id = ?').get(id);
      const stored = row();
      expect(stored).not.toBeNull();
      for (let i = 0; i < 10; i++) {
        expect((await getAs(c, '/api/services', session.token)).status).toBe(200);
        expect((await getAs(c, '/api/auth/me', session.token)).status).toBe(200);
      }
      expect(row()).toEqual(stored);
      // The answer still reflects the use: memory is ahead of the disk.
      const listed = (await mySessions(c, session.token)).sessions[0];
      expect(listed.lastUsedAt).toBeGreaterThanOrEqual(stored!.last_used_at);
      expect(listed.expiresAt).toBeGreaterThanOrEqual(stored!.expires_at);
    } finally {
      db.close();
    }
  });
});
