import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { AuthConfig } from '../../../src/modules/auth/config';
import { AUTH_MODULE_ERRORS } from '../../../src/modules/auth/errors';
import auth0001 from '../../../src/modules/auth/migrations/0001_auth.sql' with { type: 'text' };
import { MAX_CEREMONIES_PER_ADDRESS, MAX_CEREMONIES_PER_SESSION, MAX_OPEN_CEREMONIES, PasskeyService } from '../../../src/modules/auth/passkeys';
import { acceptsOrigin, relyingPartyOf, type RelyingParty } from '../../../src/modules/auth/relying-party';
import { ApiError, registerErrorCodes } from '../../../src/errors';
import { openDatabase, type Database } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { tempDir } from '../../support/controller';
import { SoftAuthenticator } from '../../support/soft-authenticator';

registerErrorCodes(AUTH_MODULE_ERRORS);

const ALICE = { uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5', name: 'Notch' };
const BOB = { uuid: '853c80ef3c3749fdaa49938b674adae6', name: 'jeb_' };
const ORIGIN = 'https://dash.example.net:8443';
const TTL_MS = 300_000;

const webauthn = (over: Partial<AuthConfig['webauthn']> = {}): AuthConfig['webauthn'] => ({
  enabled: true,
  rp_id: '',
  rp_name: 'svc Dashboard',
  origins: [],
  challenge_ttl_seconds: 300,
  max_credentials_per_user: 10,
  allow_origin_port: false,
  ...over,
});

let dir: ReturnType<typeof tempDir>;
let db: Database;
let now: number;
let rp: RelyingParty;
let passkeys: PasskeyService;

function service(options: { maxPerUser?: number; maxOpenCeremonies?: number; maxPerAddress?: number; maxPerSession?: number; rp?: RelyingParty } = {}): PasskeyService {
  return new PasskeyService(
    db,
    options.rp ?? rp,
    { challengeTtlMs: TTL_MS, maxPerUser: options.maxPerUser ?? 10, maxOpenCeremonies: options.maxOpenCeremonies, maxPerAddress: options.maxPerAddress, maxPerSession: options.maxPerSession },
    () => now,
  );
}

beforeEach(() => {
  dir = tempDir('svc-passkeys-');
  db = openDatabase(join(dir.dir, 'svc.db'));
  migrate(db, 'auth', [{ version: 1, name: 'auth', sql: auth0001 }]);
  now = Date.parse('2026-11-25T10:00:00Z');
  rp = relyingPartyOf(webauthn(), `${ORIGIN}/dashboard`);
  passkeys = service();
});
afterEach(() => {
  db.close();
  dir.remove();
});

/** Awaits `action` and expects the ApiError with this code, status and (optionally) message part. */
async function expectApiError(action: () => unknown, code: string, status: number, mention?: string): Promise<ApiError> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ApiError);
  const error = caught as ApiError;
  expect({ code: error.errorCode, status: error.status }).toEqual({ code, status });
  if (mention) expect(error.message).toContain(mention);
  return error;
}

/** A full registration of a new credential of `authenticator` for `user`. */
async function register(authenticator: SoftAuthenticator, user = ALICE, label?: string, finishLabel?: string) {
  const start = await passkeys.registerStart(user, label);
  const response = await authenticator.createCredential(start.publicKeyOptionsJson.publicKey, ORIGIN);
  return passkeys.registerFinish(user, start.ceremonyId, JSON.stringify(response), finishLabel);
}

const storedRow = (credentialId: string) =>
  db.query<{ sign_count: number; last_used_at: number | null; uuid: string; name: string }, [string]>('SELECT * FROM auth_passkeys WHERE credential_id = ?').get(credentialId);

describe('registration', () => {
  test('start → soft authenticator → finish stores the credential under the player', async () => {
    const authenticator = new SoftAuthenticator(Uint8Array.from({ length: 16 }, (_, i) => i + 1));
    const start = await passkeys.registerStart(ALICE);
    const options = start.publicKeyOptionsJson.publicKey;
    expect(options.rp).toEqual({ id: 'dash.example.net', name: 'svc Dashboard' });
    // The user handle is the UUID's 16 bytes; name and display name are the Minecraft name.
    expect(Buffer.from(options.user.id, 'base64url').toString('hex')).toBe(ALICE.uuid.replace(/-/g, ''));
    expect(options.user.name).toBe('Notch');
    expect(options.user.displayName).toBe('Notch');
    expect(options.attestation).toBe('none');
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'preferred', userVerification: 'preferred' });
    expect(options.timeout).toBe(TTL_MS);
    expect(options.excludeCredentials).toEqual([]);
    expect(passkeys.openCeremonies()).toBe(1);

    const response = await authenticator.createCredential(options, ORIGIN);
    const view = await passkeys.registerFinish(ALICE, start.ceremonyId, JSON.stringify(response));
    expect(view).toEqual({ credentialId: response.id, label: 'Passkey', createdAt: now, lastUsedAt: null, aaguid: '01020304-0506-0708-090a-0b0c0d0e0f10' });
    expect(passkeys.list(ALICE.uuid)).toEqual([view]);
    expect(storedRow(response.id)).toMatchObject({ uuid: ALICE.uuid, name: 'Notch', sign_count: 0 });
    expect(passkeys.openCeremonies()).toBe(0);
  });

  test('the response may come as an object; an all-zero AAGUID is stored as null', async () => {
    const start = await passkeys.registerStart(BOB);
    const response = await new SoftAuthenticator(new Uint8Array(16)).createCredential(start.publicKeyOptionsJson.publicKey, ORIGIN);
    const view = await passkeys.registerFinish(BOB, start.ceremonyId, response);
    expect(view.aaguid).toBeNull();
    // Stored under the canonical dashed form, found by either spelling.
    expect(passkeys.list('853c80ef-3c37-49fd-aa49-938b674adae6')).toEqual([view]);
    expect(passkeys.list(BOB.uuid)).toEqual([view]);
  });

  test('the start label is kept; a finish label wins; blank means the default', async () => {
    expect((await register(new SoftAuthenticator(), ALICE, 'YubiKey 5')).label).toBe('YubiKey 5');
    now += 1;
    expect((await register(new SoftAuthenticator(), ALICE, 'from start', '  Phone  ')).label).toBe('Phone');
    now += 1;
    expect((await register(new SoftAuthenticator(), ALICE, '   ', '')).label).toBe('Passkey');
    expect(passkeys.list(ALICE.uuid).map((p) => p.label)).toEqual(['Passkey', 'Phone', 'YubiKey 5']);
  });

  test('a label over 64 characters or with control characters is refused', async () => {
    await expectApiError(() => passkeys.registerStart(ALICE, 'x'.repeat(65)), 'VALIDATION_FAILED', 400, '64');
    await expectApiError(() => passkeys.registerStart(ALICE, 'bad\nlabel'), 'VALIDATION_FAILED', 400, 'control');
    expect((await register(new SoftAuthenticator(), ALICE, 'é'.repeat(64))).label).toBe('é'.repeat(64));
  });

  test("excludeCredentials lists the player's passkeys, so one authenticator is not registered twice", async () => {
    const authenticator = new SoftAuthenticator();
    const first = await register(authenticator);
    const start = await passkeys.registerStart(ALICE);
    expect(start.publicKeyOptionsJson.publicKey.excludeCredentials).toEqual([{ id: first.credentialId, type: 'public-key', transports: ['internal'] }]);
    await expect(authenticator.createCredential(start.publicKeyOptionsJson.publicKey, ORIGIN)).rejects.toThrow('InvalidStateError');
    // Bob's options do not mention Alice's credential.
    expect((await passkeys.registerStart(BOB)).publicKeyOptionsJson.publicKey.excludeCredentials).toEqual([]);
  });

  test('at max_credentials_per_user a start is refused with 409, and so is a finish of an older ceremony', async () => {
    passkeys = service({ maxPerUser: 2 });
    const early = await passkeys.registerStart(ALICE);
    await register(new SoftAuthenticator());
    await register(new SoftAuthenticator());
    await expectApiError(() => passkeys.registerStart(ALICE), 'PASSKEY_LIMIT_REACHED', 409, 'delete one');
    const response = await new SoftAuthenticator().createCredential(early.publicKeyOptionsJson.publicKey, ORIGIN);
    await expectApiError(() => passkeys.registerFinish(ALICE, early.ceremonyId, response), 'PASSKEY_LIMIT_REACHED', 409);
    expect(passkeys.list(ALICE.uuid)).toHaveLength(2);
    // Another player is not affected.
    await register(new SoftAuthenticator(), BOB);
  });

  test("another player cannot finish a player's ceremony; the owner still can", async () => {
    const start = await passkeys.registerStart(ALICE);
    const response = await new SoftAuthenticator().createCredential(start.publicKeyOptionsJson.publicKey, ORIGIN);
    await expectApiError(() => passkeys.registerFinish(BOB, start.ceremonyId, response), 'PASSKEY_REGISTER_FAILED', 400, 'another account');
    expect(passkeys.list(BOB.uuid)).toEqual([]);
    await passkeys.registerFinish(ALICE, start.ceremonyId, response);
    expect(passkeys.list(ALICE.uuid)).toHaveLength(1);
  });

  test('an expired ceremony is refused', async () => {
    const start = await passkeys.registerStart(ALICE);
    const response = await new SoftAuthenticator().createCredential(start.publicKeyOptionsJson.publicKey, ORIGIN);
    now += TTL_MS;
    expect(passkeys.openCeremonies()).toBe(0);
    await expectApiError(() => passkeys.registerFinish(ALICE, start.ceremonyId, response), 'PASSKEY_REGISTER_FAILED', 400, 'expired');
    expect(passkeys.list(ALICE.uuid)).toEqual([]);
  });

  test('a ceremony cannot be finished twice, nor with an unknown id', async () => {
    const start = await passkeys.registerStart(ALICE);
    const response = await new SoftAuthenticator().createCredential(start.publicKeyOptionsJson.publicKey, ORIGIN);
    await passkeys.registerFinish(ALICE, start.ceremonyId, response);
    await expectApiError(() => passkeys.registerFinish(ALICE, start.ceremonyId, response), 'PASSKEY_REGISTER_FAILED', 400, 'already finished');
    await expectApiError(() => passkeys.registerFinish(ALICE, crypto.randomUUID(), response), 'PASSKEY_REGISTER_FAILED', 400, 'unknown');
    // A login ceremony is not a registration ceremony.
    const login = await passkeys.loginStart();
    await expectApiError(() => passkeys.registerFinish(ALICE, login.ceremonyId, response), 'PASSKEY_REGISTER_FAILED', 400, 'unknown');
  });

  test('a credential id registered already (by anyone) is refused', async () => {
    const id = crypto.getRandomValues(new Uint8Array(32));
    const first = await passkeys.registerStart(ALICE);
    await new SoftAuthenticator().createCredential(first.publicKeyOptionsJson.publicKey, ORIGIN, { credentialId: id }).then((r) => passkeys.registerFinish(ALICE, first.ceremonyId, r));
    const second = await passkeys.registerStart(BOB);
    const clone = await new SoftAuthenticator().createCredential(second.publicKeyOptionsJson.publicKey, ORIGIN, { credentialId: id });
    await expectApiError(() => passkeys.registerFinish(BOB, second.ceremonyId, clone), 'PASSKEY_REGISTER_FAILED', 400, 'already registered');
    expect(passkeys.list(BOB.uuid)).toEqual([]);
    expect(passkeys.list(ALICE.uuid)).toHaveLength(1);
  });

  test.each([
    ['a foreign origin', { origin: 'https://evil.example.com' }, 'not an allowed dashboard origin'],
    ['the right host on another port', { origin: 'https://dash.example.net:9443' }, 'not an allowed dashboard origin'],
    ['another RP id in the authenticator data', { tamper: { rpId: 'evil.example.com' } }, 'RP ID'],
    ['another challenge', { tamper: { challenge: 'AAAA' } }, 'different challenge'],
    ['a login response type', { tamper: { type: 'webauthn.get' } }, 'webauthn.get'],
    ['no user presence', { tamper: { flags: 0x40 } }, 'presence'],
    ['a response id unlike the authenticator data', { tamper: { responseId: 'AAAAAAAAAAAAAAAAAAAAAA' } }, 'credential id'],
  ] as const)('refuses %s', async (_, wrong, mention) => {
    const start = await passkeys.registerStart(ALICE);
    const response = await new SoftAuthenticator().createCredential(start.publicKeyOptionsJson.publicKey, 'origin' in wrong ? wrong.origin : ORIGIN, 'tamper' in wrong ? wrong.tamper : {});
    await expectApiError(() => passkeys.registerFinish(ALICE, start.ceremonyId, response), 'PASSKEY_REGISTER_FAILED', 400, mention);
    expect(passkeys.list(ALICE.uuid)).toEqual([]);
  });

  test('a response that is not JSON or not a credential says what is wrong', async () => {
    const start = await passkeys.registerStart(ALICE);
    await expectApiError(() => passkeys.registerFinish(ALICE, start.ceremonyId, '{not json'), 'PASSKEY_REGISTER_FAILED', 400, 'not valid JSON');
    const again = await passkeys.registerStart(ALICE);
    await expectApiError(() => passkeys.registerFinish(ALICE, again.ceremonyId, { id: 'abc', rawId: 'abc', type: 'public-key', response: {} }), 'PASSKEY_REGISTER_FAILED', 400, 'responseJson.response.clientDataJSON');
  });
});

describe('login', () => {
  test('start is usernameless: no allowCredentials, user verification preferred', async () => {
    const start = await passkeys.loginStart();
    expect(start.publicKeyOptionsJson.publicKey).toMatchObject({ rpId: 'dash.example.net', userVerification: 'preferred', timeout: TTL_MS });
    expect(start.publicKeyOptionsJson.publicKey.allowCredentials ?? []).toEqual([]);
    expect(start.ceremonyId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('start → assertion → finish returns the owner, advances the counter and records the use', async () => {
    const authenticator = new SoftAuthenticator();
    const { credentialId } = await register(authenticator);
    await register(new SoftAuthenticator(), BOB);
    now += 60_000;
    for (const expected of [1, 2]) {
      const start = await passkeys.loginStart();
      const assertion = await authenticator.getAssertion(start.publicKeyOptionsJson.publicKey, ORIGIN);
      expect(await passkeys.loginFinish(start.ceremonyId, JSON.stringify(assertion))).toEqual({ uuid: ALICE.uuid, name: 'Notch', credentialId });
      expect(storedRow(credentialId)).toMatchObject({ sign_count: expected, last_used_at: now });
    }
    expect(passkeys.list(ALICE.uuid)[0]?.lastUsedAt).toBe(now);
  });

  test('an assertion from a foreign origin is refused', async () => {
    const authenticator = new SoftAuthenticator();
    const { credentialId } = await register(authenticator);
    const start = await passkeys.loginStart();
    const assertion = await authenticator.getAssertion(start.publicKeyOptionsJson.publicKey, 'https://dash.example.net.evil.com:8443');
    await expectApiError(() => passkeys.loginFinish(start.ceremonyId, assertion), 'PASSKEY_LOGIN_FAILED', 401, 'not an allowed dashboard origin');
    expect(storedRow(credentialId)?.sign_count).toBe(0);
  });

  test('a replayed counter is refused: the same counter, an older one, or the same response again', async () => {
    const authenticator = new SoftAuthenticator();
    const { credentialId } = await register(authenticator);
    const first = await passkeys.loginStart();
    const used = await authenticator.getAssertion(first.publicKeyOptionsJson.publicKey, ORIGIN);
    await passkeys.loginFinish(first.ceremonyId, used);
    expect(storedRow(credentialId)?.sign_count).toBe(1);

    for (const signCount of [1, 0]) {
      const start = await passkeys.loginStart();
      const replay = await authenticator.getAssertion(start.publicKeyOptionsJson.publicKey, ORIGIN, { signCount });
      await expectApiError(() => passkeys.loginFinish(start.ceremonyId, replay), 'PASSKEY_LOGIN_FAILED', 401, 'counter');
    }
    const start = await passkeys.loginStart();
    await expectApiError(() => passkeys.loginFinish(start.ceremonyId, used), 'PASSKEY_LOGIN_FAILED', 401, 'different challenge');
    expect(storedRow(credentialId)?.sign_count).toBe(1);
  });

  test('an unknown credential is refused (never registered, or deleted)', async () => {
    const stranger = new SoftAuthenticator();
    await stranger.createCredential((await passkeys.registerStart(ALICE)).publicKeyOptionsJson.publicKey, ORIGIN);
    const start = await passkeys.loginStart();
    const assertion = await stranger.getAssertion(start.publicKeyOptionsJson.publicKey, ORIGIN);
    await expectApiError(() => passkeys.loginFinish(start.ceremonyId, assertion), 'PASSKEY_LOGIN_FAILED', 401, 'not registered');

    const authenticator = new SoftAuthenticator();
    const { credentialId } = await register(authenticator);
    passkeys.delete(ALICE.uuid, credentialId);
    const again = await passkeys.loginStart();
    const late = await authenticator.getAssertion(again.publicKeyOptionsJson.publicKey, ORIGIN);
    await expectApiError(() => passkeys.loginFinish(again.ceremonyId, late), 'PASSKEY_LOGIN_FAILED', 401, 'not registered');
  });

  test.each([
    ['a bad signature', { corruptSignature: true }, 'signature'],
    ['another RP id in the authenticator data', { rpId: 'evil.example.com' }, 'RP ID'],
    ["another account's user handle", { userHandle: Buffer.from(BOB.uuid, 'hex').toString('base64url') }, 'different account'],
    ['no user presence', { flags: 0x04 }, 'not present'],
    ['a registration response type', { type: 'webauthn.create' }, 'webauthn.create'],
  ] as const)('refuses %s', async (_, tamper, mention) => {
    const authenticator = new SoftAuthenticator();
    const { credentialId } = await register(authenticator);
    const start = await passkeys.loginStart();
    const assertion = await authenticator.getAssertion(start.publicKeyOptionsJson.publicKey, ORIGIN, tamper);
    await expectApiError(() => passkeys.loginFinish(start.ceremonyId, assertion), 'PASSKEY_LOGIN_FAILED', 401, mention);
    expect(storedRow(credentialId)).toMatchObject({ sign_count: 0, last_used_at: null });
  });

  test('an assertion without a user handle is accepted (the credential id names the owner)', async () => {
    const authenticator = new SoftAuthenticator();
    await register(authenticator, BOB);
    const start = await passkeys.loginStart();
    const assertion = await authenticator.getAssertion(start.publicKeyOptionsJson.publicKey, ORIGIN, { userHandle: null });
    expect((await passkeys.loginFinish(start.ceremonyId, assertion)).uuid).toBe('853c80ef-3c37-49fd-aa49-938b674adae6');
  });

  test('a login ceremony is single use, dies after the TTL, and is not a registration ceremony', async () => {
    const authenticator = new SoftAuthenticator();
    await register(authenticator);
    const start = await passkeys.loginStart();
    const assertion = await authenticator.getAssertion(start.publicKeyOptionsJson.publicKey, ORIGIN);
    await passkeys.loginFinish(start.ceremonyId, assertion);
    await expectApiError(() => passkeys.loginFinish(start.ceremonyId, assertion), 'PASSKEY_LOGIN_FAILED', 401, 'already used');

    const late = await passkeys.loginStart();
    const lateAssertion = await authenticator.getAssertion(late.publicKeyOptionsJson.publicKey, ORIGIN);
    now += TTL_MS;
    await expectApiError(() => passkeys.loginFinish(late.ceremonyId, lateAssertion), 'PASSKEY_LOGIN_FAILED', 401, 'expired');

    const registration = await passkeys.registerStart(ALICE);
    await expectApiError(() => passkeys.loginFinish(registration.ceremonyId, lateAssertion), 'PASSKEY_LOGIN_FAILED', 401, 'unknown');
  });

  test('with allow_origin_port an assertion from the same host on another port is accepted; without, refused', async () => {
    const authenticator = new SoftAuthenticator();
    await register(authenticator);
    const start = await passkeys.loginStart();
    const otherPort = await authenticator.getAssertion(start.publicKeyOptionsJson.publicKey, 'https://dash.example.net:3000');
    await expectApiError(() => passkeys.loginFinish(start.ceremonyId, otherPort), 'PASSKEY_LOGIN_FAILED', 401, 'origin');

    const lenient = service({ rp: relyingPartyOf(webauthn({ allow_origin_port: true }), ORIGIN) });
    const again = await lenient.loginStart();
    const assertion = await authenticator.getAssertion(again.publicKeyOptionsJson.publicKey, 'https://dash.example.net:3000');
    expect((await lenient.loginFinish(again.ceremonyId, assertion)).uuid).toBe(ALICE.uuid);
  });
});

describe('management', () => {
  test("list is the player's own passkeys, newest first", async () => {
    const a = await register(new SoftAuthenticator(), ALICE, 'first');
    now += 1_000;
    const b = await register(new SoftAuthenticator(), ALICE, 'second');
    await register(new SoftAuthenticator(), BOB, 'bob');
    expect(passkeys.list(ALICE.uuid).map((p) => p.credentialId)).toEqual([b.credentialId, a.credentialId]);
    expect(passkeys.list(BOB.uuid).map((p) => p.label)).toEqual(['bob']);
  });

  test("deleting another player's passkey, an unknown id or a prefix is 404; deleting one's own removes it", async () => {
    const mine = await register(new SoftAuthenticator(), ALICE);
    await expectApiError(() => passkeys.delete(BOB.uuid, mine.credentialId), 'PASSKEY_NOT_FOUND', 404);
    await expectApiError(() => passkeys.delete(ALICE.uuid, mine.credentialId.slice(0, 16)), 'PASSKEY_NOT_FOUND', 404);
    await expectApiError(() => passkeys.delete(ALICE.uuid, 'nope'), 'PASSKEY_NOT_FOUND', 404);
    expect(passkeys.list(ALICE.uuid)).toHaveLength(1);
    passkeys.delete(ALICE.uuid, mine.credentialId);
    expect(passkeys.list(ALICE.uuid)).toEqual([]);
    await expectApiError(() => passkeys.delete(ALICE.uuid, mine.credentialId), 'PASSKEY_NOT_FOUND', 404);
  });
});

describe('open ceremonies', () => {
  test('beyond the cap starts are refused with 429 and Retry-After until the oldest expires', async () => {
    passkeys = service({ maxOpenCeremonies: 3 });
    await passkeys.loginStart();
    now += 100_000;
    await passkeys.registerStart(ALICE);
    await passkeys.loginStart();
    expect(passkeys.openCeremonies()).toBe(3);
    const refused = await expectApiError(() => passkeys.loginStart(), 'AUTH_RATE_LIMITED', 429, 'too many passkey ceremonies');
    expect(refused.headers['Retry-After']).toBe('200');
    await expectApiError(() => passkeys.registerStart(BOB), 'AUTH_RATE_LIMITED', 429);
    now += 200_000;
    expect(passkeys.openCeremonies()).toBe(2);
    await passkeys.loginStart();
    expect(passkeys.openCeremonies()).toBe(3);
  });

  test('one address holds at most maxPerAddress: beyond, 429 RATE_LIMITED with Retry-After until its oldest ends; other addresses go on', async () => {
    passkeys = service({ maxPerAddress: 3 });
    await passkeys.loginStart({ ip: '203.0.113.1' });
    now += 100_000;
    await passkeys.loginStart({ ip: '203.0.113.1' });
    await passkeys.registerStart(ALICE, undefined, { ip: '203.0.113.1', sessionId: 's-alice' });
    const refused = await expectApiError(() => passkeys.loginStart({ ip: '203.0.113.1' }), 'RATE_LIMITED', 429, 'from this address');
    expect(refused.headers['Retry-After']).toBe('200');
    expect(refused.message).toContain('try again in 200 s');
    await expectApiError(() => passkeys.registerStart(BOB, undefined, { ip: '203.0.113.1', sessionId: 's-bob' }), 'RATE_LIMITED', 429);
    await passkeys.loginStart({ ip: '203.0.113.2' });
    // The oldest expires: one slot comes back.
    now += 200_000;
    await passkeys.loginStart({ ip: '203.0.113.1' });
    await expectApiError(() => passkeys.loginStart({ ip: '203.0.113.1' }), 'RATE_LIMITED', 429);
  });

  test('a finished ceremony, failed or not, gives its slot back', async () => {
    passkeys = service({ maxPerAddress: 1 });
    const { ceremonyId } = await passkeys.loginStart({ ip: '203.0.113.3' });
    await expectApiError(() => passkeys.loginStart({ ip: '203.0.113.3' }), 'RATE_LIMITED', 429);
    await expectApiError(() => passkeys.loginFinish(ceremonyId, '{}'), 'PASSKEY_LOGIN_FAILED', 401);
    await passkeys.loginStart({ ip: '203.0.113.3' });
  });

  test('one session holds at most maxPerSession registrations, whatever address it comes from', async () => {
    passkeys = service({ maxPerSession: 2 });
    await passkeys.registerStart(ALICE, undefined, { ip: '198.51.100.1', sessionId: 's1' });
    await passkeys.registerStart(ALICE, undefined, { ip: '198.51.100.2', sessionId: 's1' });
    const refused = await expectApiError(() => passkeys.registerStart(ALICE, undefined, { ip: '198.51.100.3', sessionId: 's1' }), 'RATE_LIMITED', 429, 'this session');
    expect(Number(refused.headers['Retry-After'])).toBe(300);
    await passkeys.registerStart(ALICE, undefined, { ip: '198.51.100.3', sessionId: 's2' });
  });

  test('parallel starts cannot overshoot a cap', async () => {
    passkeys = service({ maxPerAddress: 3 });
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => passkeys.loginStart({ ip: '192.0.2.7' })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    expect(passkeys.openCeremonies()).toBe(3);
  });

  test(`with the defaults, one address stops at ${MAX_CEREMONIES_PER_ADDRESS} and one session at ${MAX_CEREMONIES_PER_SESSION}: far from the global ${MAX_OPEN_CEREMONIES}`, async () => {
    expect(MAX_CEREMONIES_PER_ADDRESS * 100).toBeLessThanOrEqual(MAX_OPEN_CEREMONIES);
    let opened = 0;
    let refusal: unknown;
    while (opened <= MAX_CEREMONIES_PER_ADDRESS) {
      try {
        await passkeys.loginStart({ ip: '198.51.100.77' });
        opened++;
      } catch (error) {
        refusal = error;
        break;
      }
    }
    expect(opened).toBe(MAX_CEREMONIES_PER_ADDRESS);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).errorCode).toBe('RATE_LIMITED');
    let registered = 0;
    while (registered <= MAX_CEREMONIES_PER_SESSION) {
      try {
        await passkeys.registerStart(ALICE, undefined, { ip: `198.51.100.${registered}`, sessionId: 'one-session' });
        registered++;
      } catch {
        break;
      }
    }
    expect(registered).toBe(MAX_CEREMONIES_PER_SESSION);
    // Everyone else still gets in.
    await passkeys.loginStart({ ip: '198.51.100.78' });
  });
});

describe('relyingPartyOf', () => {
  test('blank rp_id and origins derive from the public URL (host; scheme://host:port)', () => {
    expect(relyingPartyOf(webauthn(), 'https://dash.example.net:8443/x')).toEqual({
      id: 'dash.example.net',
      name: 'svc Dashboard',
      origins: ['https://dash.example.net:8443'],
      allowOriginPort: false,
    });
    // The default port is not part of a browser's origin.
    expect(relyingPartyOf(webauthn(), 'https://Dash.Example.net:443/').origins).toEqual(['https://dash.example.net']);
  });

  test('explicit rp_id, rp_name and origins win', () => {
    const explicit = relyingPartyOf(webauthn({ rp_id: 'example.net', rp_name: 'My Net', origins: ['https://panel.example.net', 'https://dash.example.net:8443/'] }), 'https://dash.example.net:8443/x');
    expect(explicit).toEqual({ id: 'example.net', name: 'My Net', origins: ['https://panel.example.net', 'https://dash.example.net:8443'], allowOriginPort: false });
  });

  test('without any public URL: localhost', () => {
    expect(relyingPartyOf(webauthn(), '')).toMatchObject({ id: 'localhost', origins: ['https://localhost', 'http://localhost'] });
    expect(relyingPartyOf(webauthn({ rp_id: 'panel.example.org' }), '')).toMatchObject({ id: 'panel.example.org', origins: ['https://panel.example.org'] });
  });

  test('a malformed rp_id or origin is a configuration error that names the key', () => {
    expect(() => relyingPartyOf(webauthn({ rp_id: 'https://dash.example.net' }), '')).toThrow('webauthn.rp_id');
    expect(() => relyingPartyOf(webauthn({ origins: ['dash.example.net'] }), '')).toThrow('webauthn.origins');
  });

  test('allow_origin_port accepts the same scheme and host on any port, nothing else', () => {
    const strict = relyingPartyOf(webauthn(), 'https://dash.example.net:8443/x');
    const lenient = relyingPartyOf(webauthn({ allow_origin_port: true }), 'https://dash.example.net:8443/x');
    expect(acceptsOrigin(strict, 'https://dash.example.net:8443')).toBe(true);
    expect(acceptsOrigin(strict, 'https://dash.example.net:9000')).toBe(false);
    for (const origin of ['https://dash.example.net', 'https://dash.example.net:8443', 'https://dash.example.net:9000']) {
      expect(acceptsOrigin(lenient, origin)).toBe(true);
    }
    for (const origin of ['http://dash.example.net:8443', 'https://evil.example.net:8443', 'https://sub.dash.example.net:8443', 'https://dash.example.net:9000/path', 'not a url']) {
      expect(acceptsOrigin(lenient, origin)).toBe(false);
    }
    // An http origin list (a LAN dashboard) works the same way.
    const lan = relyingPartyOf(webauthn({ allow_origin_port: true }), 'http://dash.example.net:8080');
    expect(acceptsOrigin(lan, 'http://dash.example.net:3000')).toBe(true);
    expect(acceptsOrigin(lan, 'https://dash.example.net:3000')).toBe(false);
  });
});
