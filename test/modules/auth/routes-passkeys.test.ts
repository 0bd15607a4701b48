/**
 * Passkeys over HTTP with a software authenticator producing real WebAuthn bytes: register
 * (the dashboard's form: responseJson as a JSON string), list, log in (a session with
 * loginMethod passkey, audited; the TOTP step still applies), delete, and `[webauthn] enabled =
 * false`, which answers 404 on every passkey route.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { TestController } from '../../support/controller';
import { loginAs, testPlayer } from '../../support/dashboard-login';
import { SoftAuthenticator } from '../../support/soft-authenticator';
import { MAX_CEREMONIES_PER_ADDRESS, MAX_CEREMONIES_PER_SESSION } from '../../../src/modules/auth/passkeys';
import { auditOf, enableTotp, expectError, expectJson, getAs, startAuth, totpCode, totpVerify, type AuthTest } from './harness';

const ORIGIN = 'https://dash.example.test';
const post = (c: TestController, path: string, token: string | null, json?: unknown) => c.api(path, { method: 'POST', token, json });

/** A full registration through the routes; the stored passkey as answered. */
async function register(c: TestController, token: string, authenticator: SoftAuthenticator, label?: string) {
  const start = await expectJson(await post(c, '/api/auth/passkey/register/start', token, label === undefined ? undefined : { label }));
  const response = await authenticator.createCredential(start.publicKeyOptionsJson.publicKey as PublicKeyCredentialCreationOptionsJSON, ORIGIN);
  return expectJson(await post(c, '/api/auth/passkey/register/finish', token, { ceremonyId: start.ceremonyId, responseJson: JSON.stringify(response) }));
}

/** login/start then the authenticator's assertion; the finish response (not yet checked). */
async function passkeyLogin(c: TestController, authenticator: SoftAuthenticator): Promise<Response> {
  const start = await expectJson(await post(c, '/api/auth/passkey/login/start', null));
  const assertion = await authenticator.getAssertion(start.publicKeyOptionsJson.publicKey as PublicKeyCredentialRequestOptionsJSON, ORIGIN);
  return post(c, '/api/auth/passkey/login/finish', null, { ceremonyId: start.ceremonyId, responseJson: JSON.stringify(assertion) });
}

describe('passkeys enabled', () => {
  let t: AuthTest;
  let c: TestController;
  beforeAll(async () => {
    t = await startAuth({ toml: `[dashboard]\npublic_url = "${ORIGIN}"` });
    c = t.c;
  });
  afterAll(() => t.stop());

  const alice = testPlayer(1, 'Alice');
  const authenticator = new SoftAuthenticator();
  let token: string;
  let credentialId: string;

  test('register start answers the options for this relying party; finish stores the passkey with its label', async () => {
    token = await loginAs(c, alice);
    const start = await expectJson(await post(c, '/api/auth/passkey/register/start', token, { label: 'YubiKey 5' }));
    expect(start.ceremonyId).toBeString();
    const options = start.publicKeyOptionsJson.publicKey;
    expect(options.rp).toEqual({ id: 'dash.example.test', name: 'svc Dashboard' });
    expect(options.user.name).toBe('Alice');
    const response = await authenticator.createCredential(options, ORIGIN);
    const stored = await expectJson(await post(c, '/api/auth/passkey/register/finish', token, { ceremonyId: start.ceremonyId, responseJson: JSON.stringify(response) }));
    expect(stored).toEqual({ credentialId: response.id, label: 'YubiKey 5', createdAt: expect.any(Number), lastUsedAt: null, aaguid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    credentialId = stored.credentialId;
    expect(await expectJson(await getAs(c, '/api/auth/passkey/credentials', token))).toEqual({ credentials: [stored] });
    // The ceremony is spent.
    await expectError(await post(c, '/api/auth/passkey/register/finish', token, { ceremonyId: start.ceremonyId, responseJson: JSON.stringify(response) }), 400, 'PASSKEY_REGISTER_FAILED');
  });

  test('register refusals: no session 401, an API token 403, a bad body 400, an unknown ceremony 400', async () => {
    await expectError(await post(c, '/api/auth/passkey/register/start', null, {}), 401, 'UNAUTHORIZED');
    await expectError(await post(c, '/api/auth/passkey/register/start', c.master, {}), 403, 'FORBIDDEN');
    await expectError(await post(c, '/api/auth/passkey/register/start', token, { label: 'x'.repeat(65) }), 400, 'VALIDATION_FAILED');
    await expectError(await post(c, '/api/auth/passkey/register/finish', token, { ceremonyId: 'nope' }), 400, 'VALIDATION_FAILED');
    await expectError(await post(c, '/api/auth/passkey/register/finish', token, { ceremonyId: 'nope', responseJson: '{}' }), 400, 'PASSKEY_REGISTER_FAILED', 'unknown');
    await expectError(await getAs(c, '/api/auth/passkey/credentials', null), 401, 'UNAUTHORIZED');
  });

  test('login start and finish are public and issue a session with loginMethod passkey, audited', async () => {
    const before = Date.now();
    const body = await expectJson(await passkeyLogin(c, authenticator));
    expect(body).toEqual({ token: expect.any(String), expiresAt: expect.any(Number), user: { uuid: alice.uuid, name: 'Alice', permissions: [], isAdmin: false, totpEnabled: false }, totpRequired: false, challengeId: null });
    const mine = await expectJson(await getAs(c, '/api/auth/my-sessions', body.token));
    const current = mine.sessions.find((s: { sessionId: string }) => s.sessionId === mine.currentSessionId);
    expect(current.loginMethod).toBe('passkey');
    expect((await auditOf(c, 'DASHBOARD_LOGIN_SUCCEEDED')).at(-1)!.data).toEqual({
      uuid: alice.uuid,
      name: 'Alice',
      method: 'passkey',
      totpUsed: 'false',
      ip: '127.0.0.1',
      sessionId: mine.currentSessionId,
    });
    const listed = (await expectJson(await getAs(c, '/api/auth/passkey/credentials', token))).credentials[0];
    expect(listed.lastUsedAt).toBeGreaterThanOrEqual(before);
  });

  test('a failed passkey login is 401 PASSKEY_LOGIN_FAILED and audited', async () => {
    const start = await expectJson(await post(c, '/api/auth/passkey/login/start', null, {}));
    const assertion = await authenticator.getAssertion(start.publicKeyOptionsJson.publicKey, ORIGIN, { corruptSignature: true });
    await expectError(await post(c, '/api/auth/passkey/login/finish', null, { ceremonyId: start.ceremonyId, responseJson: JSON.stringify(assertion) }), 401, 'PASSKEY_LOGIN_FAILED');
    await expectError(await post(c, '/api/auth/passkey/login/finish', null, { ceremonyId: start.ceremonyId, responseJson: JSON.stringify(assertion) }), 401, 'PASSKEY_LOGIN_FAILED', 'unknown');
    await expectError(await post(c, '/api/auth/passkey/login/finish', null, { responseJson: '{}' }), 400, 'VALIDATION_FAILED');
    expect((await auditOf(c, 'DASHBOARD_LOGIN_FAILED')).at(-1)!.data).toEqual({ reason: 'passkey_invalid', uuid: '', ip: '127.0.0.1' });
  });

  test('a player with TOTP who logs in by passkey still takes the TOTP step', async () => {
    const bob = testPlayer(2, 'Bob');
    const bobToken = await loginAs(c, bob);
    const bobKey = new SoftAuthenticator();
    await register(c, bobToken, bobKey);
    const { secret } = await enableTotp(c, bobToken);
    const step = await expectJson(await passkeyLogin(c, bobKey));
    expect(step).toEqual({ token: null, expiresAt: null, user: null, totpRequired: true, challengeId: expect.any(String) });
    const session = await expectJson(await totpVerify(c, step.challengeId, totpCode(secret, 1)));
    expect(session.user).toMatchObject({ uuid: bob.uuid, totpEnabled: true });
    const mine = await expectJson(await getAs(c, '/api/auth/my-sessions', session.token));
    expect(mine.sessions.find((s: { sessionId: string }) => s.sessionId === mine.currentSessionId).loginMethod).toBe('passkey');
    expect((await auditOf(c, 'DASHBOARD_LOGIN_SUCCEEDED')).at(-1)!.data).toMatchObject({ uuid: bob.uuid, method: 'passkey', totpUsed: 'true' });
  });

  test('delete: only the owner’s own passkey; afterwards it no longer logs in', async () => {
    const stranger = await loginAs(c, testPlayer(3, 'Carol'));
    await expectError(await c.api(`/api/auth/passkey/credentials/${credentialId}`, { method: 'DELETE', token: stranger }), 404, 'PASSKEY_NOT_FOUND');
    expect(await expectJson(await c.api(`/api/auth/passkey/credentials/${credentialId}`, { method: 'DELETE', token }))).toEqual({ success: true, message: 'Passkey removed', error: null });
    expect(await expectJson(await getAs(c, '/api/auth/passkey/credentials', token))).toEqual({ credentials: [] });
    await expectError(await c.api(`/api/auth/passkey/credentials/${credentialId}`, { method: 'DELETE', token }), 404, 'PASSKEY_NOT_FOUND');
    await expectError(await passkeyLogin(c, authenticator), 401, 'PASSKEY_LOGIN_FAILED', 'not registered');
  });
});

describe('open ceremonies per caller (issue 36, item 7)', () => {
  let t: AuthTest;
  let c: TestController;
  beforeAll(async () => {
    t = await startAuth({ toml: `[dashboard]\npublic_url = "${ORIGIN}"`, apiToml: 'trust_forwarded_for = true' });
    c = t.c;
  });
  afterAll(() => t.stop());

  const start = (path: string, token: string | null, ip: string) => c.api(path, { method: 'POST', token, json: {}, headers: { 'x-forwarded-for': ip } });

  test(`one address gets ${MAX_CEREMONIES_PER_ADDRESS} open passkey logins, then 429 RATE_LIMITED with Retry-After; everyone else still logs in`, async () => {
    // Before, one caller could open all 10,000 and lock every passkey login out for 5 minutes.
    for (let i = 0; i < MAX_CEREMONIES_PER_ADDRESS; i++) expect((await start('/api/auth/passkey/login/start', null, '203.0.113.66')).status).toBe(200);
    const refused = await start('/api/auth/passkey/login/start', null, '203.0.113.66');
    const body = await expectError(refused, 429, 'RATE_LIMITED', 'from this address');
    expect(Object.keys(body).sort()).toEqual(['error', 'message', 'success']);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(300);
    expect((await start('/api/auth/passkey/login/start', null, '203.0.113.67')).status).toBe(200);
  });

  test(`one session gets ${MAX_CEREMONIES_PER_SESSION} open registrations from any number of addresses, then 429`, async () => {
    const token = await loginAs(c, testPlayer(30, 'Mallory'));
    for (let i = 0; i < MAX_CEREMONIES_PER_SESSION; i++) expect((await start('/api/auth/passkey/register/start', token, `198.51.100.${i + 1}`)).status).toBe(200);
    await expectError(await start('/api/auth/passkey/register/start', token, '198.51.100.200'), 429, 'RATE_LIMITED', 'this session');
    // Another player's session is not affected.
    const other = await loginAs(c, testPlayer(31, 'Trent'));
    expect((await start('/api/auth/passkey/register/start', other, '198.51.100.201')).status).toBe(200);
  });
});

describe('[webauthn] enabled = false', () => {
  let t: AuthTest;
  beforeAll(async () => {
    t = await startAuth({ auth: '[webauthn]\nenabled = false\n', toml: `[dashboard]\npublic_url = "${ORIGIN}"` });
  });
  afterAll(() => t.stop());

  test('every /api/auth/passkey/* route answers 404', async () => {
    const c = t.c;
    const token = await loginAs(c, testPlayer(10, 'Dave'));
    const calls: [string, string, string | null, unknown][] = [
      ['POST', '/api/auth/passkey/register/start', token, {}],
      ['POST', '/api/auth/passkey/register/finish', token, { ceremonyId: 'x', responseJson: '{}' }],
      ['POST', '/api/auth/passkey/login/start', null, {}],
      ['POST', '/api/auth/passkey/login/finish', null, { ceremonyId: 'x', responseJson: '{}' }],
      ['GET', '/api/auth/passkey/credentials', token, undefined],
      ['DELETE', '/api/auth/passkey/credentials/abc', token, undefined],
    ];
    for (const [method, path, as, json] of calls) {
      const response = await c.api(path, { method, token: as, json });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      await expectError(response, 404, 'AUTH_DISABLED', 'enabled = false');
    }
    // Code logins are unaffected.
    expect((await getAs(c, '/api/auth/me', token)).status).toBe(200);
  });
});
