/**
 * The auth module's windows with the wall clock and the monotonic clock faked apart: what lives
 * in memory for a while (tickets, passkey ceremonies, the pace of session writes) follows the
 * monotonic clock, and a wall-clock step back locks nobody out of codes or passkeys.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { ApiError, registerErrorCodes } from '../../../src/errors';
import { ChallengeService } from '../../../src/modules/auth/challenges';
import { AUTH_MODULE_ERRORS } from '../../../src/modules/auth/errors';
import { PasskeyService } from '../../../src/modules/auth/passkeys';
import { relyingPartyOf } from '../../../src/modules/auth/relying-party';
import { AUTH_MIGRATIONS } from '../../../src/modules/auth/schema';
import { SessionStore } from '../../../src/modules/auth/session-store';
import { SessionService, TOUCH_INTERVAL_MS } from '../../../src/modules/auth/sessions';
import { TICKET_TTL_MS, TicketBook } from '../../../src/modules/auth/tickets';
import { migrate } from '../../../src/storage/migrate';
import { tempDir } from '../../support/controller';

registerErrorCodes(AUTH_MODULE_ERRORS);
const HOUR = 3_600_000;
const temp = tempDir('svc-auth-clocks-');
afterAll(() => temp.remove());
let files = 0;

/** A wall clock and a monotonic one, moved apart. */
function clocks() {
  const c = { wall: 1_700_000_000_000, mono: 50_000 };
  return { ...c, c, now: () => c.wall, mono: () => c.mono };
}

function database(): Database {
  const db = new Database(join(temp.dir, `a${++files}.db`));
  migrate(db, 'auth', AUTH_MIGRATIONS);
  return db;
}

describe('auth windows across wall-clock steps', () => {
  test('a WebSocket ticket lives 30 s of monotonic time; a step back of an hour does not stretch it; its expiry shows on the wall clock', () => {
    const t = clocks();
    const book = new TicketBook(t.now, t.mono);
    const { ticket, expiresAt } = book.mint('hash-a');
    expect(expiresAt).toBe(t.c.wall + TICKET_TTL_MS);
    const kept = book.mint('hash-a').ticket;
    t.c.wall -= HOUR;
    t.c.mono += TICKET_TTL_MS - 1;
    expect(book.redeem(ticket)).toBe('hash-a');
    t.c.mono += 1;
    expect(book.redeem(kept)).toBeNull();
  });

  test('passkey ceremonies expire on the monotonic clock: after a step back the cap frees in the TTL, not in an hour', async () => {
    const t = clocks();
    const rp = relyingPartyOf({ enabled: true, rp_id: '', rp_name: 'svc', origins: [], challenge_ttl_seconds: 60, max_credentials_per_user: 10, allow_origin_port: false }, 'https://dash.example.net');
    const passkeys = new PasskeyService(database(), rp, { challengeTtlMs: 60_000, maxPerUser: 10, maxOpenCeremonies: 2 }, t.now, t.mono);
    await passkeys.loginStart();
    await passkeys.loginStart();
    t.c.wall -= HOUR;
    let refused: unknown;
    try {
      await passkeys.loginStart();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).headers?.['Retry-After']).toBe('60');
    t.c.mono += 60_000;
    expect((await passkeys.loginStart()).ceremonyId).toBeString();
  });

  test('session use keeps being written once a minute of monotonic time after a step back', () => {
    const t = clocks();
    const db = database();
    const sessions = new SessionService(new SessionStore(db), { ttlSeconds: 24 * 3600, rollingRefresh: true, maxPerUser: 3, requireTotpForAdmin: false }, () => undefined, () => false, new TicketBook(t.now, t.mono), t.now, t.mono);
    const { token, session } = sessions.issue({ uuid: '11111111-1111-4111-8111-111111111111', name: 'Alice', method: 'code', totpUsed: false, ip: '127.0.0.1', userAgent: 'test' });
    t.c.wall -= HOUR;
    t.c.mono += TOUCH_INTERVAL_MS;
    expect(sessions.validate(token)).toBe(session);
    const row = db.query<{ last_used_at: number }, [string]>('SELECT last_used_at FROM auth_sessions WHERE session_id = ?').get(session.id)!;
    expect(row.last_used_at).toBe(t.c.wall);
  });

  test('after a step back, the codes of the minute before it do not count against the player for an hour', () => {
    const t = clocks();
    const config = { code_ttl_seconds: 300, code_length: 6, code_alphabet: 'numeric' as const, magic_link_ttl_seconds: 60, magic_link_token_bytes: 32, magic_link_enabled: true, max_generates_per_minute: 3, max_consume_failures_per_minute: 10 };
    const challenges = new ChallengeService(database(), config, t.now);
    const alice = { uuid: '11111111-1111-4111-8111-111111111111', name: 'Alice' };
    for (let i = 0; i < 3; i++) challenges.issueCode(alice);
    expect(() => challenges.issueCode(alice)).toThrow('per minute');
    t.c.wall -= HOUR;
    expect(challenges.issueCode(alice).secret).toMatch(/^\d{6}$/);
  });
});
