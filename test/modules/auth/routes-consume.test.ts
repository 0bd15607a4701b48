/**
 * Spending codes and links for sessions: consume-challenge (codes and link tokens) and
 * consume-magic-link (link tokens only), single use under concurrency, the per-address failure
 * cap with and without a trusted X-Forwarded-For, and the login events in the audit log.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { TestController } from '../../support/controller';
import { bringOnline, loginCode, testPlayer, type Player } from '../../support/dashboard-login';
import { auditOf, consume, expectError, expectJson, readJson, startAuth, type AuthTest } from './harness';

const consumeLink = (c: TestController, token: string, headers: Record<string, string> = {}) =>
  c.api('/api/auth/consume-magic-link', { method: 'POST', token: null, json: { token }, headers });

async function magicToken(c: TestController, player: Player): Promise<string> {
  const body = await expectJson(await c.api('/api/auth/request-magic-link', { method: 'POST', token: c.service, json: player }), 202);
  return body.token;
}

/** A code that is well-formed but was never issued (codes are 6 digits; this one has letters). */
const NEVER_ISSUED = 'ABCDEF';

describe('consume-challenge and consume-magic-link', () => {
  let t: AuthTest;
  let c: TestController;
  beforeAll(async () => {
    t = await startAuth();
    c = t.c;
  });
  afterAll(() => t.stop());

  test('a code logs in once: the session answer, then 401 AUTH_CHALLENGE_INVALID', async () => {
    const alice = testPlayer(1, 'Alice');
    await bringOnline(c, alice);
    const code = await loginCode(c, alice);
    const before = Date.now();
    const body = await expectJson(await consume(c, code, { 'user-agent': 'AuthTest/1.0' }));
    expect(body).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(Number),
      user: { uuid: alice.uuid, name: 'Alice', permissions: [], isAdmin: false, totpEnabled: false },
      totpRequired: false,
      challengeId: null,
    });
    // Seven days by default.
    expect(body.expiresAt).toBeGreaterThanOrEqual(before + 604_800_000);
    const again = await consume(c, code);
    await expectError(again, 401, 'AUTH_CHALLENGE_INVALID', 'ask for a new one');
    const mine = await expectJson(await c.api('/api/auth/my-sessions', { token: body.token }));
    expect(mine.sessions).toEqual([
      expect.objectContaining({ uuid: alice.uuid, name: 'Alice', loginMethod: 'code', ip: '127.0.0.1', userAgent: 'AuthTest/1.0' }),
    ]);
  });

  test('a magic-link token works through consume-challenge and through consume-magic-link {token}', async () => {
    const bob = testPlayer(2, 'Bob');
    await bringOnline(c, bob);
    const viaChallenge = await expectJson(await consume(c, await magicToken(c, bob)));
    expect(viaChallenge.user.uuid).toBe(bob.uuid);
    const viaLink = await expectJson(await consumeLink(c, await magicToken(c, bob)));
    expect(viaLink).toMatchObject({ totpRequired: false, challengeId: null, user: { uuid: bob.uuid } });
    const mine = await expectJson(await c.api('/api/auth/my-sessions', { token: viaLink.token }));
    expect(mine.sessions.map((s: { loginMethod: string }) => s.loginMethod)).toEqual(['magic_link', 'magic_link']);
  });

  test('a code sent to consume-magic-link is 401 AUTH_MAGIC_LINK_INVALID and still works through consume-challenge', async () => {
    const carol = testPlayer(3, 'Carol');
    await bringOnline(c, carol);
    const code = await loginCode(c, carol);
    await expectError(await consumeLink(c, code), 401, 'AUTH_MAGIC_LINK_INVALID');
    expect((await expectJson(await consume(c, code))).user.uuid).toBe(carol.uuid);
    // A used link token is refused by both routes.
    const token = await magicToken(c, carol);
    expect((await consumeLink(c, token)).status).toBe(200);
    await expectError(await consumeLink(c, token), 401, 'AUTH_MAGIC_LINK_INVALID');
    await expectError(await consume(c, token), 401, 'AUTH_CHALLENGE_INVALID');
  });

  test('malformed bodies are 400 VALIDATION_FAILED', async () => {
    const post = (path: string, json: unknown) => c.api(path, { method: 'POST', token: null, json });
    await expectError(await post('/api/auth/consume-challenge', {}), 400, 'VALIDATION_FAILED');
    await expectError(await post('/api/auth/consume-challenge', { challenge: '' }), 400, 'VALIDATION_FAILED');
    await expectError(await post('/api/auth/consume-challenge', { challenge: 'x'.repeat(257) }), 400, 'VALIDATION_FAILED');
    await expectError(await post('/api/auth/consume-magic-link', { challenge: 'abc' }), 400, 'VALIDATION_FAILED');
  });

  test('the audit log has DASHBOARD_LOGIN_SUCCEEDED {uuid, name, method, totpUsed, ip} and DASHBOARD_LOGIN_FAILED with the reason', async () => {
    const dave = testPlayer(4, 'Dave');
    await bringOnline(c, dave);
    await expectError(await consume(c, NEVER_ISSUED), 401, 'AUTH_CHALLENGE_INVALID');
    await expectError(await consumeLink(c, 'no-such-link-token'), 401, 'AUTH_MAGIC_LINK_INVALID');
    const body = await expectJson(await consume(c, await loginCode(c, dave)));
    const current = (await expectJson(await c.api('/api/auth/my-sessions', { token: body.token }))).currentSessionId;

    const succeeded = (await auditOf(c, 'DASHBOARD_LOGIN_SUCCEEDED')).filter((e) => e.data.uuid === dave.uuid);
    expect(succeeded).toEqual([
      { actor: 'dashboard:Dave', target: 'Dave', data: { uuid: dave.uuid, name: 'Dave', method: 'code', totpUsed: 'false', ip: '127.0.0.1', sessionId: current } },
    ]);
    const failed = (await auditOf(c, 'DASHBOARD_LOGIN_FAILED')).slice(-2);
    expect(failed.map((e) => e.data)).toEqual([
      { reason: 'invalid_challenge', uuid: '', ip: '127.0.0.1' },
      { reason: 'invalid_magic_link', uuid: '', ip: '127.0.0.1' },
    ]);
    // Link logins say so.
    const erin = testPlayer(5, 'Erin');
    await bringOnline(c, erin);
    await expectJson(await consume(c, await magicToken(c, erin)));
    expect((await auditOf(c, 'DASHBOARD_LOGIN_SUCCEEDED')).at(-1)!.data).toMatchObject({ uuid: erin.uuid, method: 'magic_link', totpUsed: 'false' });
  });

  test('a failure for a code that names nobody carries an empty uuid', async () => {
    await expectError(await consume(c, '000000'), 401, 'AUTH_CHALLENGE_INVALID');
    expect((await auditOf(c, 'DASHBOARD_LOGIN_FAILED')).at(-1)!.data.uuid).toBe('');
  });
});

describe('single use under concurrency', () => {
  let t: AuthTest;
  // No failure cap here: every loser must see the plain "invalid" answer.
  beforeAll(async () => {
    t = await startAuth({ auth: '[login_challenge]\nmax_consume_failures_per_minute = 0\n' });
  });
  afterAll(() => t.stop());

  test('50 parallel consumes of one code: exactly one 200 with a token, 49 times 401', async () => {
    const p = testPlayer(10);
    await bringOnline(t.c, p);
    const code = await loginCode(t.c, p);
    const responses = await Promise.all(Array.from({ length: 50 }, () => consume(t.c, code)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(1);
    expect(statuses.filter((s) => s === 401).length).toBe(49);
    const winner = await readJson(responses[statuses.indexOf(200)]!);
    expect(winner.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const sessions = await expectJson(await t.c.api(`/api/auth/sessions?uuid=${p.uuid}`, { token: t.c.service }));
    expect(sessions.total).toBe(1);
  });

  test('the same holds for a magic-link token raced across both routes', async () => {
    const p = testPlayer(11);
    await bringOnline(t.c, p);
    const token = await magicToken(t.c, p);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? consume(t.c, token) : consumeLink(t.c, token))));
    expect(responses.filter((r) => r.status === 200).length).toBe(1);
    expect(responses.filter((r) => r.status === 401).length).toBe(19);
  });
});

describe('failure cap per address (max_consume_failures_per_minute = 3)', () => {
  const CAP = '[login_challenge]\nmax_consume_failures_per_minute = 3\n';

  test('three wrong codes, then even the right code is 429 AUTH_RATE_LIMITED with Retry-After, and the refusal is audited', async () => {
    const t = await startAuth({ auth: CAP });
    try {
      const p = testPlayer(20);
      await bringOnline(t.c, p);
      const code = await loginCode(t.c, p);
      for (let i = 0; i < 3; i++) await expectError(await consume(t.c, NEVER_ISSUED), 401, 'AUTH_CHALLENGE_INVALID');
      const blocked = await consume(t.c, code);
      const wait = Number(blocked.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
      await expectError(blocked, 429, 'AUTH_RATE_LIMITED', 'too many failed login attempts');
      // The magic-link route shares the cap.
      await expectError(await consumeLink(t.c, 'whatever'), 429, 'AUTH_RATE_LIMITED');
      const reasons = (await auditOf(t.c, 'DASHBOARD_LOGIN_FAILED')).map((e) => e.data.reason);
      expect(reasons).toEqual(['invalid_challenge', 'invalid_challenge', 'invalid_challenge', 'rate_limited', 'rate_limited']);
      // Nothing was spent: the code is still unconsumed in the table.
      const row = t.c.controller.kernel.db.query<{ consumed_at: number | null }, []>('SELECT consumed_at FROM auth_challenges WHERE kind = \'code\'').get();
      expect(row?.consumed_at).toBeNull();
    } finally {
      await t.stop();
    }
  });

  test('a success clears nothing: two wrong guesses, the guesser’s own login with an alt, and the third guess is the last', async () => {
    const t = await startAuth({ auth: CAP });
    try {
      const alt = testPlayer(21, 'Alt');
      await bringOnline(t.c, alt);
      for (let i = 0; i < 2; i++) await expectError(await consume(t.c, NEVER_ISSUED), 401, 'AUTH_CHALLENGE_INVALID');
      // Before, this login wiped the address's failures: an alt bought unlimited guesses.
      expect((await consume(t.c, await loginCode(t.c, alt))).status).toBe(200);
      await expectError(await consume(t.c, NEVER_ISSUED), 401, 'AUTH_CHALLENGE_INVALID');
      const blocked = await consume(t.c, NEVER_ISSUED);
      await expectError(blocked, 429, 'AUTH_RATE_LIMITED', 'too many failed login attempts');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another login of the alt does not reopen the address either: the failures age out, nothing else.
      await expectError(await consume(t.c, await loginCode(t.c, alt)), 429, 'AUTH_RATE_LIMITED');
    } finally {
      await t.stop();
    }
  });

  test('trust_forwarded_for = true: two X-Forwarded-For addresses have separate caps', async () => {
    const t = await startAuth({ auth: CAP, apiToml: 'trust_forwarded_for = true' });
    try {
      const p = testPlayer(22);
      await bringOnline(t.c, p);
      const blocked = { 'x-forwarded-for': '203.0.113.7' };
      const other = { 'x-forwarded-for': '198.51.100.9' };
      for (let i = 0; i < 3; i++) await expectError(await consume(t.c, NEVER_ISSUED, blocked), 401, 'AUTH_CHALLENGE_INVALID');
      await expectError(await consume(t.c, NEVER_ISSUED, blocked), 429, 'AUTH_RATE_LIMITED');
      await expectError(await consume(t.c, NEVER_ISSUED, other), 401, 'AUTH_CHALLENGE_INVALID');
      const session = await expectJson(await consume(t.c, await loginCode(t.c, p), other));
      expect(session.user.uuid).toBe(p.uuid);
      // The forwarded address is the one recorded for the session and in the events.
      const mine = await expectJson(await t.c.api('/api/auth/my-sessions', { token: session.token }));
      expect(mine.sessions[0].ip).toBe('198.51.100.9');
      const failed = await auditOf(t.c, 'DASHBOARD_LOGIN_FAILED');
      expect(failed.map((e) => `${e.data.ip} ${e.data.reason}`)).toEqual([
        '203.0.113.7 invalid_challenge',
        '203.0.113.7 invalid_challenge',
        '203.0.113.7 invalid_challenge',
        '203.0.113.7 rate_limited',
        '198.51.100.9 invalid_challenge',
      ]);
      expect((await auditOf(t.c, 'DASHBOARD_LOGIN_SUCCEEDED')).at(-1)!.data.ip).toBe('198.51.100.9');
    } finally {
      await t.stop();
    }
  });

  test('trust_forwarded_for = false: the header is ignored and every caller shares the socket address’s cap', async () => {
    const t = await startAuth({ auth: CAP });
    try {
      const p = testPlayer(23);
      await bringOnline(t.c, p);
      for (let i = 0; i < 3; i++) {
        await expectError(await consume(t.c, NEVER_ISSUED, { 'x-forwarded-for': `203.0.113.${i + 1}` }), 401, 'AUTH_CHALLENGE_INVALID');
      }
      await expectError(await consume(t.c, await loginCode(t.c, p), { 'x-forwarded-for': '198.51.100.9' }), 429, 'AUTH_RATE_LIMITED');
      const ips = (await auditOf(t.c, 'DASHBOARD_LOGIN_FAILED')).map((e) => e.data.ip);
      expect(new Set(ips)).toEqual(new Set(['127.0.0.1']));
    } finally {
      await t.stop();
    }
  });
});
