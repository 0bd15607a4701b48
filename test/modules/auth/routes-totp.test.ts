/**
 * TOTP over HTTP with live codes computed by otplib from the enrolment secret: enrol, confirm,
 * the second login step (live code, recovery code, five wrong codes void the login), disable,
 * and `require_for_admin`, which holds admin sessions to the profile routes until they enrol.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { TestController } from '../../support/controller';
import { bringOnline, loginAs, loginCode, testPlayer } from '../../support/dashboard-login';
import { auditOf, consume, enableTotp, expectError, expectJson, getAs, meOf, startAuth, totpCode, totpVerify, wrongTotpCode, type AuthTest } from './harness';

const RECOVERY = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{4}-[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{4}$/;
const post = (c: TestController, path: string, token: string | null, json?: unknown) => c.api(path, { method: 'POST', token, json });
const status = async (c: TestController, token: string) => expectJson(await getAs(c, '/api/profile/totp/status', token));

describe('TOTP enrolment and the login step', () => {
  let t: AuthTest;
  let c: TestController;
  // Many logins of one player within a minute, and many wrong codes from one address (failures
  // age out, a success clears none): lift the issuance limit and the failure cap.
  beforeAll(async () => {
    t = await startAuth({ auth: '[login_challenge]\nmax_generates_per_minute = 50\nmax_consume_failures_per_minute = 100\n[totp]\nissuer = "My Net"\n' });
    c = t.c;
  });
  afterAll(() => t.stop());

  const alice = testPlayer(1, 'Alice');
  let token: string;
  let secret: string;
  let recoveryCodes: string[];
  /** The live code that completed a login (replaying it must fail). */
  let usedCode: string;

  /** A first login step for Alice: must ask for TOTP; the pending challenge id. */
  async function pendingLogin(): Promise<string> {
    const body = await expectJson(await consume(c, await loginCode(c, alice)));
    expect(body).toEqual({ token: null, expiresAt: null, user: null, totpRequired: true, challengeId: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) });
    return body.challengeId;
  }

  test('enrol: secret, otpauth URI and 10 recovery codes; pending until confirmed', async () => {
    token = await loginAs(c, alice);
    expect(await status(c, token)).toEqual({ enabled: false, pendingEnrollment: false, recoveryCodesRemaining: 0 });
    const enrolment = await expectJson(await post(c, '/api/profile/totp/enroll', token));
    secret = enrolment.secret;
    recoveryCodes = enrolment.recoveryCodes;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrolment.otpauthUri).toBe(`otpauth://totp/My%20Net:Alice?secret=${secret}&issuer=My%20Net&algorithm=SHA1&digits=6&period=30`);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(RECOVERY);
    expect(await status(c, token)).toEqual({ enabled: false, pendingEnrollment: true, recoveryCodesRemaining: 10 });
    // A pending enrolment does not ask for TOTP at login yet.
    expect((await expectJson(await consume(c, await loginCode(c, alice)))).totpRequired).toBe(false);
  });

  test('confirm: a wrong code is 401, a malformed body 400, a live code switches TOTP on', async () => {
    await expectError(await post(c, '/api/profile/totp/confirm', token, { code: wrongTotpCode(secret) }), 401, 'AUTH_TOTP_INVALID');
    await expectError(await post(c, '/api/profile/totp/confirm', token, {}), 400, 'VALIDATION_FAILED');
    await expectError(await post(c, '/api/profile/totp/confirm', token, { code: '' }), 400, 'VALIDATION_FAILED');
    await expectError(await post(c, '/api/profile/totp/confirm', null, { code: '123456' }), 401, 'UNAUTHORIZED');
    expect(await expectJson(await post(c, '/api/profile/totp/confirm', token, { code: totpCode(secret, 0) }))).toEqual({ success: true, message: 'TOTP enabled', error: null });
    expect(await status(c, token)).toEqual({ enabled: true, pendingEnrollment: false, recoveryCodesRemaining: 10 });
    expect((await meOf(c, token)).totpEnabled).toBe(true);
  });

  test('enrolling again while enabled is 409 AUTH_TOTP_ALREADY_ENABLED; the status routes need a session', async () => {
    await expectError(await post(c, '/api/profile/totp/enroll', token), 409, 'AUTH_TOTP_ALREADY_ENABLED');
    await expectError(await getAs(c, '/api/profile/totp/status', c.master), 403, 'FORBIDDEN');
    await expectError(await getAs(c, '/api/profile/totp/status', null), 401, 'UNAUTHORIZED');
  });

  test('five wrong codes void the pending login: the sixth, even right, is 401 AUTH_CHALLENGE_INVALID', async () => {
    const challengeId = await pendingLogin();
    const wrong = wrongTotpCode(secret);
    for (let i = 1; i <= 5; i++) await expectError(await totpVerify(c, challengeId, wrong), 401, 'AUTH_TOTP_INVALID', i < 5 ? `${5 - i} tries left` : 'void');
    await expectError(await totpVerify(c, challengeId, totpCode(secret, 1)), 401, 'AUTH_CHALLENGE_INVALID');
    const failed = (await auditOf(c, 'DASHBOARD_LOGIN_FAILED')).filter((e) => e.data.reason === 'totp_invalid');
    expect(failed).toHaveLength(5);
    expect(failed[0]!.data).toEqual({ reason: 'totp_invalid', uuid: alice.uuid, ip: '127.0.0.1' });
  });

  test('a live code completes the login: a session with totpEnabled, audited with totpUsed true', async () => {
    const challengeId = await pendingLogin();
    // Nothing is announced until the second step is done.
    const succeededBefore = (await auditOf(c, 'DASHBOARD_LOGIN_SUCCEEDED')).length;
    expect(succeededBefore).toBeGreaterThan(0);
    await expectError(await totpVerify(c, 'no-such-challenge', '123456'), 401, 'AUTH_CHALLENGE_INVALID');
    await expectError(await c.api('/api/auth/totp-verify', { method: 'POST', token: null, json: { challengeId } }), 400, 'VALIDATION_FAILED');
    usedCode = totpCode(secret, 1);
    const body = await expectJson(await totpVerify(c, challengeId, usedCode));
    expect(body).toEqual({ token: expect.any(String), expiresAt: expect.any(Number), user: { uuid: alice.uuid, name: 'Alice', permissions: [], isAdmin: false, totpEnabled: true } });
    const succeeded = await auditOf(c, 'DASHBOARD_LOGIN_SUCCEEDED');
    expect(succeeded).toHaveLength(succeededBefore + 1);
    expect(succeeded.at(-1)!.data).toMatchObject({ uuid: alice.uuid, name: 'Alice', method: 'code', totpUsed: 'true', ip: '127.0.0.1' });
    // The challenge is spent.
    await expectError(await totpVerify(c, challengeId, usedCode), 401, 'AUTH_CHALLENGE_INVALID');
  });

  test('the same live code cannot complete a second login (replay)', async () => {
    const challengeId = await pendingLogin();
    await expectError(await totpVerify(c, challengeId, usedCode), 401, 'AUTH_TOTP_INVALID');
  });

  test('a recovery code completes a login once, in any case and without the dash', async () => {
    const typed = recoveryCodes[0]!.replace('-', '').toLowerCase();
    const body = await expectJson(await totpVerify(c, await pendingLogin(), typed));
    expect(body.user.totpEnabled).toBe(true);
    expect((await status(c, body.token)).recoveryCodesRemaining).toBe(9);
    await expectError(await totpVerify(c, await pendingLogin(), recoveryCodes[0]!), 401, 'AUTH_TOTP_INVALID');
  });

  test('disable needs a code: none is 400, a wrong one 401, a recovery code switches TOTP off', async () => {
    await expectError(await post(c, '/api/profile/totp/disable', token, {}), 400, 'VALIDATION_FAILED');
    await expectError(await post(c, '/api/profile/totp/disable', token, { code: wrongTotpCode(secret) }), 401, 'AUTH_TOTP_INVALID');
    await expectError(await post(c, '/api/profile/totp/disable', token, { code: recoveryCodes[0]! }), 401, 'AUTH_TOTP_INVALID');
    expect(await expectJson(await post(c, '/api/profile/totp/disable', token, { code: recoveryCodes[1]! }))).toEqual({ success: true, message: 'TOTP disabled', error: null });
    expect(await status(c, token)).toEqual({ enabled: false, pendingEnrollment: false, recoveryCodesRemaining: 0 });
    expect((await expectJson(await consume(c, await loginCode(c, alice)))).totpRequired).toBe(false);
    await expectError(await post(c, '/api/profile/totp/disable', token, { code: '123456' }), 401, 'AUTH_TOTP_INVALID', 'not enabled');
  });

  test('disable with a live code', async () => {
    const bob = testPlayer(2, 'Bob');
    const bobToken = await loginAs(c, bob);
    const enrolment = await enableTotp(c, bobToken);
    expect(await expectJson(await post(c, '/api/profile/totp/disable', bobToken, { code: totpCode(enrolment.secret, 1) }))).toMatchObject({ message: 'TOTP disabled' });
    expect((await meOf(c, bobToken)).totpEnabled).toBe(false);
  });
});

describe('require_for_admin = true', () => {
  let t: AuthTest;
  let c: TestController;
  beforeAll(async () => {
    t = await startAuth({ auth: '[totp]\nrequire_for_admin = true\n' });
    c = t.c;
  });
  afterAll(() => t.stop());

  test('an admin session without TOTP may use only the login and profile routes until it enrols', async () => {
    const admin = testPlayer(10, 'Boss');
    const token = await loginAs(c, admin, ['svc.dashboard.admin']);
    await expectError(await getAs(c, '/api/services', token), 403, 'AUTH_TOTP_REQUIRED', 'enrol');
    await expectError(await getAs(c, '/api/doctor', token), 403, 'AUTH_TOTP_REQUIRED');
    expect(await meOf(c, token)).toMatchObject({ isAdmin: true, totpEnabled: false });
    expect(await expectJson(await getAs(c, '/api/profile/totp/status', token))).toMatchObject({ enabled: false });
    expect((await getAs(c, '/api/auth/my-sessions', token)).status).toBe(200);

    // The master token is never asked for TOTP; a non-admin session is not either.
    expect((await getAs(c, '/api/services', c.master)).status).toBe(200);
    const viewer = await loginAs(c, testPlayer(11, 'Viewer'), ['svc.dashboard.services.view']);
    expect((await getAs(c, '/api/services', viewer)).status).toBe(200);

    const enrolment = await enableTotp(c, token);
    expect((await getAs(c, '/api/services', token)).status).toBe(200);
    expect((await getAs(c, '/api/doctor', token)).status).toBe(200);

    // From now on the admin's logins take the TOTP step.
    await bringOnline(c, admin);
    const step = await expectJson(await consume(c, await loginCode(c, admin)));
    expect(step.totpRequired).toBe(true);
    const session = await expectJson(await totpVerify(c, step.challengeId, totpCode(enrolment.secret, 1)));
    expect((await getAs(c, '/api/services', session.token)).status).toBe(200);
  });
});
