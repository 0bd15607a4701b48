/** SessionService on a fake clock over a real sqlite file: expiry, rolling refresh, disk writes, eviction. */
import { afterAll, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { migrate } from '../../../src/storage/migrate';
import { SessionStore } from '../../../src/modules/auth/session-store';
import { KEEP_ENDED_MS, SessionService, TOUCH_INTERVAL_MS, type SessionOptions } from '../../../src/modules/auth/sessions';
import { TicketBook } from '../../../src/modules/auth/tickets';
import auth0001 from '../../../src/modules/auth/migrations/0001_auth.sql' with { type: 'text' };
import { tempDir } from '../../support/controller';

const temp = tempDir('svc-auth-sessions-');
afterAll(() => temp.remove());
let files = 0;

function setup(options: Partial<SessionOptions> = {}) {
  let now = 1_700_000_000_000;
  const db = new Database(join(temp.dir, `s${++files}.db`));
  migrate(db, 'auth', [{ version: 1, name: 'auth', sql: auth0001 }]);
  const tickets = new TicketBook(() => now);
  const make = () =>
    new SessionService(new SessionStore(db), { ttlSeconds: 3600, rollingRefresh: true, maxPerUser: 3, requireTotpForAdmin: false, ...options }, () => undefined, () => false, tickets, () => now);
  return { db, make, tickets, advance: (ms: number) => (now += ms), now: () => now };
}
const alice = { uuid: '11111111-1111-4111-8111-111111111111', name: 'Alice', method: 'code' as const, totpUsed: false, ip: '127.0.0.1', userAgent: 'test' };
const row = (db: Database, id: string) => db.query<{ expires_at: number; last_used_at: number; revoked_at: number | null }, [string]>('SELECT expires_at, last_used_at, revoked_at FROM auth_sessions WHERE session_id = ?').get(id)!;

describe('SessionService', () => {
  test('validating writes to disk at most once a minute, while the expiry rolls in memory on every use', () => {
    const t = setup();
    const sessions = t.make();
    const { token, session } = sessions.issue(alice);
    const written = row(t.db, session.id);
    for (let i = 0; i < 20; i++) {
      t.advance(1000);
      expect(sessions.validate(token)).toBe(session);
    }
    expect(row(t.db, session.id)).toEqual(written);
    expect(session.expiresAt).toBe(t.now() + 3600_000);
    t.advance(TOUCH_INTERVAL_MS);
    sessions.validate(token);
    expect(row(t.db, session.id)).toEqual({ expires_at: t.now() + 3600_000, last_used_at: t.now(), revoked_at: null });
  });

  test('without rolling refresh a session ends ttl after login, used or not; then it answers expired, not unknown', () => {
    const t = setup({ rollingRefresh: false });
    const sessions = t.make();
    const { token } = sessions.issue(alice);
    t.advance(3600_000 - 1);
    expect(sessions.validate(token)).not.toBeNull();
    t.advance(1);
    expect(sessions.validate(token)).toBe('expired');
    expect(sessions.validate('not-a-session')).toBeNull();
  });

  test('beyond max_per_user the oldest sessions are revoked and their watchers told', () => {
    const t = setup();
    const sessions = t.make();
    const told: string[] = [];
    sessions.onRevoked((id) => told.push(id));
    const issued = [0, 1, 2, 3].map(() => {
      t.advance(1);
      return sessions.issue(alice);
    });
    expect(sessions.validate(issued[0]!.token)).toBe('revoked');
    expect(told).toEqual([issued[0]!.session.id]);
    for (const { token } of issued.slice(1)) expect(sessions.validate(token)).not.toBe('revoked');
    expect(sessions.activeOf(alice.uuid).map((s) => s.id)).toEqual(issued.slice(1).reverse().map((i) => i.session.id));
  });

  test('sessions come back after a restart (a new service on the same file); revoked ones stay revoked', () => {
    const t = setup();
    const first = t.make();
    const kept = first.issue(alice);
    const ended = first.issue(alice);
    first.revoke([ended.session]);
    const second = t.make();
    expect(second.validate(kept.token)).not.toBeNull();
    expect(second.validate(ended.token)).toBe('revoked');
  });

  test('a day after it ended a session is forgotten (its token is then simply unknown), and an expiry is told to watchers once', () => {
    const t = setup({ rollingRefresh: false });
    const sessions = t.make();
    const told: string[] = [];
    sessions.onRevoked((id) => told.push(id));
    const { token, session } = sessions.issue(alice);
    t.advance(3600_000);
    sessions.sweep();
    sessions.sweep();
    expect(told).toEqual([session.id]);
    expect(sessions.validate(token)).toBe('expired');
    t.advance(KEEP_ENDED_MS);
    sessions.sweep();
    expect(sessions.validate(token)).toBeNull();
    expect(t.db.query('SELECT count(*) AS n FROM auth_sessions').get()).toEqual({ n: 0 });
  });

  test('a ticket redeems to its session once; not after the session is revoked', () => {
    const t = setup();
    const sessions = t.make();
    const { session } = sessions.issue(alice);
    const first = t.tickets.mint(session.row.token_hash).ticket;
    expect(sessions.redeemTicket(first)).toBe(session);
    expect(sessions.redeemTicket(first)).toBeNull();
    const second = t.tickets.mint(session.row.token_hash).ticket;
    sessions.revoke([session]);
    expect(sessions.redeemTicket(second)).toBeNull();
  });

  test('without the permissions module a session holds no node, not even the admin one', () => {
    const t = setup();
    const { session } = t.make().issue(alice);
    expect(session.has('svc.dashboard.services.view')).toBe(false);
    expect(session.isAdmin).toBe(false);
    expect(session.permissions()).toEqual([]);
  });
});
