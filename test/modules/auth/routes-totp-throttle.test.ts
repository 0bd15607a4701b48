/**
 * Guessing brakes on /api/profile/totp/confirm and /disable (issue 36, item 7): wrong codes
 * count per session (5 per 5 minutes) and per client address (10 a minute); beyond either, the
 * caller gets 429 AUTH_RATE_LIMITED with Retry-After before its code is even looked at. Before,
 * a stolen session could try codes without end until one switched the second factor off.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { TestController } from '../../support/controller';
import { loginAs, testPlayer } from '../../support/dashboard-login';
import { TOTP_FAILURES_PER_IP, TOTP_FAILURES_PER_SESSION } from '../../../src/modules/auth/totp-throttle';
import { enableTotp, expectError, expectJson, getAs, startAuth, totpCode, wrongTotpCode, type AuthTest } from './harness';

const from = (ip: string) => ({ 'x-forwarded-for': ip });
const post = (c: TestController, path: string, token: string, json: unknown, ip = '192.0.2.1') => c.api(path, { method: 'POST', token, json, headers: from(ip) });
const status = async (c: TestController, token: string) => expectJson(await getAs(c, '/api/profile/totp/status', token));

let t: AuthTest;
let c: TestController;
beforeAll(async () => {
  // Addresses come from X-Forwarded-For, so each test speaks from addresses of its own.
  t = await startAuth({ apiToml: 'trust_forwarded_for = true', auth: '[login_challenge]\nmax_generates_per_minute = 50\n' });
  c = t.c;
});
afterAll(() => t.stop());

describe('per session', () => {
  test(`disable: after ${TOTP_FAILURES_PER_SESSION} wrong codes the session is refused with 429, even with a right code; TOTP stays on; another session is not affected`, async () => {
    const alice = testPlayer(1, 'Alice');
    const stolen = await loginAs(c, alice);
    const own = await loginAs(c, alice);
    const { secret, recoveryCodes } = await enableTotp(c, stolen);
    const wrong = wrongTotpCode(secret);
    // Each guess from another address: the session's own count is what stops it.
    for (let i = 0; i < TOTP_FAILURES_PER_SESSION; i++) {
      await expectError(await post(c, '/api/profile/totp/disable', stolen, { code: wrong }, `198.51.100.${i + 1}`), 401, 'AUTH_TOTP_INVALID');
    }
    const refused = await post(c, '/api/profile/totp/disable', stolen, { code: recoveryCodes[0]! }, '198.51.100.99');
    const body = await expectError(refused, 429, 'AUTH_RATE_LIMITED', 'wrong codes from this session');
    expect(body.success).toBe(false);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(300);
    expect(body.message).toContain(`wait ${wait} s`);
    // The refused recovery code was not looked at: it is still unused, and TOTP is still on.
    expect(await status(c, stolen)).toEqual({ enabled: true, pendingEnrollment: false, recoveryCodesRemaining: 10 });

    // The player's own other session is judged on its own count.
    expect(await expectJson(await post(c, '/api/profile/totp/disable', own, { code: recoveryCodes[0]! }, '198.51.100.98'))).toMatchObject({ message: 'TOTP disabled' });
  });

  test('confirm: the same brake on a pending enrolment; the right code afterwards is refused too', async () => {
    const bob = testPlayer(2, 'Bob');
    const token = await loginAs(c, bob);
    const other = await loginAs(c, bob);
    const enrolment = await expectJson(await c.api('/api/profile/totp/enroll', { method: 'POST', token }));
    const wrong = wrongTotpCode(enrolment.secret);
    for (let i = 0; i < TOTP_FAILURES_PER_SESSION; i++) {
      await expectError(await post(c, '/api/profile/totp/confirm', token, { code: wrong }, `198.51.101.${i + 1}`), 401, 'AUTH_TOTP_INVALID');
    }
    await expectError(await post(c, '/api/profile/totp/confirm', token, { code: totpCode(enrolment.secret, 0) }, '198.51.101.99'), 429, 'AUTH_RATE_LIMITED');
    expect(await status(c, token)).toMatchObject({ enabled: false, pendingEnrollment: true });
    // Bob's other session has its own count.
    expect(await expectJson(await post(c, '/api/profile/totp/confirm', other, { code: totpCode(enrolment.secret, 0) }, '198.51.101.98'))).toMatchObject({ message: 'TOTP enabled' });
  });
});

describe('per address', () => {
  test(`${TOTP_FAILURES_PER_IP} wrong codes from one address, spread over sessions, close it to every session; other addresses go on`, async () => {
    const players = [testPlayer(11), testPlayer(12), testPlayer(13)];
    const sessions: { token: string; secret: string }[] = [];
    for (const p of players) {
      const token = await loginAs(c, p);
      const enrolment = await expectJson(await c.api('/api/profile/totp/enroll', { method: 'POST', token }));
      sessions.push({ token, secret: enrolment.secret });
    }
    const shared = '203.0.113.50';
    // Fewer than the per-session limit in each session, more than the per-address limit together.
    const perSession = TOTP_FAILURES_PER_SESSION - 1;
    let sent = 0;
    for (const s of sessions) {
      for (let i = 0; i < perSession && sent < TOTP_FAILURES_PER_IP; i++, sent++) {
        await expectError(await post(c, '/api/profile/totp/confirm', s.token, { code: wrongTotpCode(s.secret) }, shared), 401, 'AUTH_TOTP_INVALID');
      }
    }
    expect(sent).toBe(TOTP_FAILURES_PER_IP);
    const last = sessions.at(-1)!;
    const refused = await post(c, '/api/profile/totp/confirm', last.token, { code: totpCode(last.secret, 0) }, shared);
    await expectError(refused, 429, 'AUTH_RATE_LIMITED', 'from this address');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // The same session from another address is judged on its own.
    expect(await expectJson(await post(c, '/api/profile/totp/confirm', last.token, { code: totpCode(last.secret, 0) }, '203.0.113.51'))).toMatchObject({ message: 'TOTP enabled' });
  });

  test('a right code counts nothing: enabling and disabling with good codes is never braked', async () => {
    const carol = testPlayer(21, 'Carol');
    const token = await loginAs(c, carol);
    for (let round = 0; round < TOTP_FAILURES_PER_SESSION + 1; round++) {
      const { recoveryCodes } = await enableTotp(c, token);
      expect(await expectJson(await post(c, '/api/profile/totp/disable', token, { code: recoveryCodes[0]! }, '203.0.113.60'))).toMatchObject({ message: 'TOTP disabled' });
    }
  });
});
