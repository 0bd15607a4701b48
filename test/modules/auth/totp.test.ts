/**
 * The TOTP second factor against a real sqlite file with the auth migration, a fake clock and
 * expected codes computed independently with otplib for explicit epochs.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { generateSync, ScureBase32Plugin } from 'otplib';
import { ApiError } from '../../../src/errors';
import authSql from '../../../src/modules/auth/migrations/0001_auth.sql' with { type: 'text' };
import { SAFE_ALPHABET, sha256Hex } from '../../../src/modules/auth/secrets';
import { SessionKey } from '../../../src/modules/auth/session-key';
import { TotpService } from '../../../src/modules/auth/totp';
import { TotpStore } from '../../../src/modules/auth/totp-store';
import { openDatabase, type Database } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { tempDir } from '../../support/controller';

const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';

// 15 s into a 30-second step, so "now" is unambiguous.
const STEP = 56_666_667;
const T0 = (STEP * 30 + 15) * 1000;

let dir: ReturnType<typeof tempDir>;
let file: string;
let db: Database;
let key: SessionKey;
let clock: number;
const opened: Database[] = [];

const now = (): number => clock;

/** Another connection to the same file, as a second process would have. */
function connect(): Database {
  const conn = openDatabase(file);
  opened.push(conn);
  return conn;
}

function service(window = 1, options: { key?: SessionKey; db?: Database } = {}): TotpService {
  return new TotpService(options.db ?? db, options.key ?? key, { issuer: 'My Net', window }, now);
}

/** The code an authenticator shows during `step` (computed apart from the service). */
const codeAt = (secret: string, step: number): string => generateSync({ secret, epoch: step * 30 });

/** Enrols and confirms well before T0 (so no step near T0 is used yet), then sets the clock to T0. */
function enabled(totp: TotpService, uuid = ALICE): { secret: string; recoveryCodes: string[] } {
  clock = T0 - 600_000;
  const enrollment = totp.enroll(uuid, 'Alice');
  totp.confirm(uuid, codeAt(enrollment.secret, STEP - 20));
  clock = T0;
  return enrollment;
}

function apiError(work: () => unknown): ApiError {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

const rowCount = (table: string, uuid: string): number =>
  db.query<{ n: number }, [string]>(`SELECT count(*) AS n FROM ${table} WHERE uuid = ?`).get(uuid)!.n;

beforeEach(() => {
  dir = tempDir('svc-totp-');
  file = join(dir.dir, 'svc.db');
  db = openDatabase(file);
  migrate(db, 'auth', [{ version: 1, name: 'auth', sql: authSql }]);
  key = new SessionKey(randomBytes(32));
  clock = T0;
});
afterEach(() => {
  for (const conn of opened.splice(0)) conn.close();
  db.close();
  dir.remove();
});

describe('enrolment', () => {
  test('enroll returns a 20-byte base32 secret, the otpauth URI and 10 recovery codes; the status is pending', () => {
    const totp = service();
    const { secret, otpauthUri, recoveryCodes } = totp.enroll(ALICE, 'Alice');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri).toBe(`otpauth://totp/My%20Net:Alice?secret=${secret}&issuer=My%20Net&algorithm=SHA1&digits=6&period=30`);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(new RegExp(`^[${SAFE_ALPHABET}]{4}-[${SAFE_ALPHABET}]{4}$`));
    expect(totp.status(ALICE)).toEqual({ enabled: false, pendingEnrollment: true, recoveryCodesRemaining: 10 });
    expect(totp.isEnabled(ALICE)).toBe(false);
    expect(totp.status(BOB)).toEqual({ enabled: false, pendingEnrollment: false, recoveryCodesRemaining: 0 });
  });

  test('a pending enrolment passes no login step, neither by live code nor by recovery code', () => {
    const totp = service();
    const { secret, recoveryCodes } = totp.enroll(ALICE, 'Alice');
    expect(totp.verify(ALICE, codeAt(secret, STEP))).toBeNull();
    expect(totp.verify(ALICE, recoveryCodes[0]!)).toBeNull();
    expect(totp.status(ALICE).recoveryCodesRemaining).toBe(10);
  });

  test('confirm: nothing pending, a malformed code and a wrong code are AUTH_TOTP_INVALID; the right code enables', () => {
    const totp = service();
    const nothing = apiError(() => totp.confirm(ALICE, '123456'));
    expect([nothing.errorCode, nothing.status, nothing.message]).toEqual(['AUTH_TOTP_INVALID', 401, 'no pending enrolment: POST /api/profile/totp/enroll first']);

    const { secret } = totp.enroll(ALICE, 'Alice');
    expect(apiError(() => totp.confirm(ALICE, '12345')).errorCode).toBe('AUTH_TOTP_INVALID');
    expect(apiError(() => totp.confirm(ALICE, codeAt(secret, STEP + 5))).errorCode).toBe('AUTH_TOTP_INVALID');
    expect(totp.status(ALICE).pendingEnrollment).toBe(true);

    const right = codeAt(secret, STEP);
    totp.confirm(ALICE, `${right.slice(0, 3)} ${right.slice(3)}`);
    expect(totp.status(ALICE)).toEqual({ enabled: true, pendingEnrollment: false, recoveryCodesRemaining: 10 });
    expect(totp.isEnabled(ALICE)).toBe(true);
    // Confirming again is a no-op, whatever the code.
    totp.confirm(ALICE, '000000');
    // The code that confirmed cannot also log in during its step.
    expect(totp.verify(ALICE, right)).toBeNull();
  });

  test('enroll replaces a pending enrolment and its recovery codes', () => {
    const totp = service();
    const first = totp.enroll(ALICE, 'Alice');
    const second = totp.enroll(ALICE, 'Alice');
    expect(second.secret).not.toBe(first.secret);
    expect(rowCount('auth_recovery_codes', ALICE)).toBe(10);
    expect(apiError(() => totp.confirm(ALICE, codeAt(first.secret, STEP))).errorCode).toBe('AUTH_TOTP_INVALID');
    totp.confirm(ALICE, codeAt(second.secret, STEP));
    expect(totp.verify(ALICE, first.recoveryCodes[0]!)).toBeNull();
    expect(totp.verify(ALICE, second.recoveryCodes[0]!)).toBe('recovery');
  });

  test('enroll when enabled is 409 AUTH_TOTP_ALREADY_ENABLED and changes nothing', () => {
    const totp = service();
    const { secret, recoveryCodes } = enabled(totp);
    const before = db.query<{ secret_enc: Uint8Array }, [string]>('SELECT secret_enc FROM auth_totp WHERE uuid = ?').get(ALICE)!.secret_enc;
    const error = apiError(() => totp.enroll(ALICE, 'Alice'));
    expect([error.errorCode, error.status]).toEqual(['AUTH_TOTP_ALREADY_ENABLED', 409]);
    const after = db.query<{ secret_enc: Uint8Array }, [string]>('SELECT secret_enc FROM auth_totp WHERE uuid = ?').get(ALICE)!.secret_enc;
    expect(Buffer.from(after).equals(Buffer.from(before))).toBe(true);
    expect(totp.status(ALICE)).toEqual({ enabled: true, pendingEnrollment: false, recoveryCodesRemaining: 10 });
    expect(totp.verify(ALICE, codeAt(secret, STEP))).toBe('totp');
    expect(totp.verify(ALICE, recoveryCodes[9]!)).toBe('recovery');
  });

  test('a confirm that lost the enrolment to a newer enroll does not enable it', () => {
    const totp = service();
    const store = new TotpStore(db);
    totp.enroll(ALICE, 'Alice');
    const stale = store.get(ALICE)!.secretEnc;
    totp.enroll(ALICE, 'Alice');
    expect(store.enable(ALICE, stale, STEP, clock)).toBe(false);
    expect(totp.status(ALICE).pendingEnrollment).toBe(true);
  });
});

describe('live codes and the window', () => {
  test('window 1: steps −1, 0 and +1 pass (in that order); −2 and +2 do not', () => {
    const totp = service(1);
    const { secret } = enabled(totp);
    expect(totp.verify(ALICE, codeAt(secret, STEP - 2))).toBeNull();
    expect(totp.verify(ALICE, codeAt(secret, STEP + 2))).toBeNull();
    expect(totp.verify(ALICE, codeAt(secret, STEP - 1))).toBe('totp');
    expect(totp.verify(ALICE, codeAt(secret, STEP))).toBe('totp');
    expect(totp.verify(ALICE, codeAt(secret, STEP + 1))).toBe('totp');
  });

  test('window 0: only the current step passes', () => {
    const totp = service(0);
    const { secret } = enabled(totp);
    expect(totp.verify(ALICE, codeAt(secret, STEP - 1))).toBeNull();
    expect(totp.verify(ALICE, codeAt(secret, STEP + 1))).toBeNull();
    expect(totp.verify(ALICE, codeAt(secret, STEP))).toBe('totp');
  });

  test('window 2: steps −2 … +2 pass; −3 and +3 do not', () => {
    const totp = service(2);
    const { secret } = enabled(totp);
    expect(totp.verify(ALICE, codeAt(secret, STEP - 3))).toBeNull();
    expect(totp.verify(ALICE, codeAt(secret, STEP + 3))).toBeNull();
    for (let offset = -2; offset <= 2; offset++) expect(totp.verify(ALICE, codeAt(secret, STEP + offset))).toBe('totp');
  });

  test('the window follows the clock across a step boundary', () => {
    const totp = service(0);
    const { secret } = enabled(totp);
    clock = (STEP + 1) * 30_000 - 1;
    expect(totp.verify(ALICE, codeAt(secret, STEP + 1))).toBeNull();
    clock += 1;
    expect(totp.verify(ALICE, codeAt(secret, STEP + 1))).toBe('totp');
  });

  test('replay: the same code twice is refused, and so is an older step after a newer one', () => {
    const totp = service(1);
    const { secret } = enabled(totp);
    const current = codeAt(secret, STEP);
    expect(totp.verify(ALICE, current)).toBe('totp');
    expect(totp.verify(ALICE, current)).toBeNull();
    expect(totp.verify(ALICE, codeAt(secret, STEP + 1))).toBe('totp');
    clock += 30_000;
    expect(totp.verify(ALICE, codeAt(secret, STEP))).toBeNull();
    expect(totp.verify(ALICE, codeAt(secret, STEP + 2))).toBe('totp');
  });

  test('a clock that went back past the last accepted step refuses without throwing', () => {
    const totp = service(1);
    const { secret } = enabled(totp);
    expect(totp.verify(ALICE, codeAt(secret, STEP + 1))).toBe('totp');
    clock = T0 - 300_000;
    expect(totp.verify(ALICE, codeAt(secret, STEP - 10))).toBeNull();
  });

  test('wrong, malformed and empty codes answer null, for a known and an unknown uuid', () => {
    const totp = service();
    const { secret } = enabled(totp);
    const wrong = codeAt(secret, STEP + 7);
    for (const code of ['', '12345', '1234567', 'abcdef', wrong]) expect(totp.verify(ALICE, code)).toBeNull();
    expect(totp.verify(BOB, codeAt(secret, STEP))).toBeNull();
    expect(totp.verify(ALICE, codeAt(secret, STEP))).toBe('totp');
  });
});

describe('recovery codes', () => {
  test('accepted with or without the dash, in any case, once each', () => {
    const totp = service();
    const { recoveryCodes } = enabled(totp);
    const [a, b, c] = recoveryCodes as [string, string, string];
    expect(totp.verify(ALICE, a)).toBe('recovery');
    expect(totp.verify(ALICE, a)).toBeNull();
    expect(totp.verify(ALICE, b.replace('-', '').toLowerCase())).toBe('recovery');
    expect(totp.verify(ALICE, b)).toBeNull();
    expect(totp.verify(ALICE, ` ${c.toLowerCase()} `)).toBe('recovery');
    expect(totp.status(ALICE).recoveryCodesRemaining).toBe(7);
  });

  test("another player's recovery code is refused and stays usable by its owner", () => {
    const totp = service();
    enabled(totp, ALICE);
    const bob = enabled(totp, BOB);
    expect(totp.verify(ALICE, bob.recoveryCodes[0]!)).toBeNull();
    expect(totp.verify(BOB, bob.recoveryCodes[0]!)).toBe('recovery');
  });

  test('stored as the SHA-256 of the upper-case form without the dash, never in clear', () => {
    const totp = service();
    const { recoveryCodes } = totp.enroll(ALICE, 'Alice');
    const stored = db.query<{ code_hash: string }, [string]>('SELECT code_hash FROM auth_recovery_codes WHERE uuid = ?').all(ALICE).map((r) => r.code_hash);
    expect(stored.sort()).toEqual(recoveryCodes.map((code) => sha256Hex(code.replace('-', ''))).sort());
  });
});

describe('disable', () => {
  test('with a live code: the secret and every recovery code are gone', () => {
    const totp = service();
    const { secret } = enabled(totp);
    totp.disable(ALICE, codeAt(secret, STEP));
    expect(totp.status(ALICE)).toEqual({ enabled: false, pendingEnrollment: false, recoveryCodesRemaining: 0 });
    expect(rowCount('auth_totp', ALICE)).toBe(0);
    expect(rowCount('auth_recovery_codes', ALICE)).toBe(0);
    // Enrolling again works after a disable.
    expect(totp.enroll(ALICE, 'Alice').recoveryCodes).toHaveLength(10);
  });

  test('with a recovery code', () => {
    const totp = service();
    const { recoveryCodes } = enabled(totp);
    totp.disable(ALICE, recoveryCodes[3]!.toLowerCase());
    expect(totp.isEnabled(ALICE)).toBe(false);
    expect(rowCount('auth_recovery_codes', ALICE)).toBe(0);
  });

  test('a wrong or replayed code is AUTH_TOTP_INVALID and TOTP stays on; when not enabled it says so', () => {
    const totp = service();
    const notEnabled = apiError(() => totp.disable(ALICE, '123456'));
    expect(notEnabled.errorCode).toBe('AUTH_TOTP_INVALID');
    expect(notEnabled.message).toContain('not enabled');

    const { secret } = enabled(totp);
    expect(apiError(() => totp.disable(ALICE, codeAt(secret, STEP + 9))).errorCode).toBe('AUTH_TOTP_INVALID');
    expect(apiError(() => totp.disable(ALICE, 'ZZZZ-ZZZZ')).status).toBe(401);
    const used = codeAt(secret, STEP);
    expect(totp.verify(ALICE, used)).toBe('totp');
    expect(apiError(() => totp.disable(ALICE, used)).errorCode).toBe('AUTH_TOTP_INVALID');
    expect(totp.status(ALICE)).toEqual({ enabled: true, pendingEnrollment: false, recoveryCodesRemaining: 10 });
  });
});

describe('session.key', () => {
  test('the secret is stored sealed: the blob holds neither the base32 text nor the raw bytes', () => {
    const totp = service();
    const { secret } = totp.enroll(ALICE, 'Alice');
    const blob = Buffer.from(db.query<{ secret_enc: Uint8Array }, [string]>('SELECT secret_enc FROM auth_totp WHERE uuid = ?').get(ALICE)!.secret_enc);
    expect(blob.includes(Buffer.from(secret, 'utf8'))).toBe(false);
    expect(blob.toString('latin1').toUpperCase()).not.toContain(secret);
    const raw = new ScureBase32Plugin().decode(secret);
    expect(raw).toHaveLength(20);
    expect(blob.includes(Buffer.from(raw))).toBe(false);
    expect(key.open(blob)).toBe(secret);
  });

  test('under another key: unreadable() counts it, live codes fail, recovery codes still work and allow re-enrolment', () => {
    const original = service();
    const { secret, recoveryCodes } = enabled(original);
    clock = T0 - 100_000;
    original.enroll(BOB, 'Bob');
    clock = T0;

    const regenerated = service(1, { key: new SessionKey(randomBytes(32)) });
    expect(original.unreadable()).toBe(0);
    expect(regenerated.unreadable()).toBe(2);
    expect(regenerated.isEnabled(ALICE)).toBe(true);

    const live = codeAt(secret, STEP);
    expect(regenerated.verify(ALICE, live)).toBeNull();
    // The code itself was good: the key is why it failed.
    expect(original.verify(ALICE, live)).toBe('totp');

    const bobConfirm = apiError(() => regenerated.confirm(BOB, '123456'));
    expect(bobConfirm.errorCode).toBe('AUTH_TOTP_INVALID');
    expect(bobConfirm.message).toContain('session.key');

    expect(regenerated.verify(ALICE, recoveryCodes[0]!)).toBe('recovery');
    regenerated.disable(ALICE, recoveryCodes[1]!);
    expect(regenerated.unreadable()).toBe(1);
    const fresh = regenerated.enroll(ALICE, 'Alice');
    regenerated.confirm(ALICE, codeAt(fresh.secret, STEP + 1));
    regenerated.enroll(BOB, 'Bob');
    expect(regenerated.unreadable()).toBe(0);
    expect(regenerated.status(ALICE).enabled).toBe(true);
  });
});

describe('concurrency', () => {
  test('one code sent twice at once over two connections passes exactly once', async () => {
    const a = service(1);
    const { secret, recoveryCodes } = enabled(a);
    const b = service(1, { db: connect() });
    const code = codeAt(secret, STEP);
    const live = await Promise.all([a, b].map(async (totp) => totp.verify(ALICE, code)));
    expect(live.filter((r) => r === 'totp')).toHaveLength(1);
    expect(live.filter((r) => r === null)).toHaveLength(1);

    const recovery = await Promise.all([b, a].map(async (totp) => totp.verify(ALICE, recoveryCodes[0]!)));
    expect(recovery.filter((r) => r === 'recovery')).toHaveLength(1);
    expect(recovery.filter((r) => r === null)).toHaveLength(1);
  });

  test('the loser of a race that read the row before the winner wrote is refused by the conditional update', () => {
    enabled(service(1));
    const first = new TotpStore(db);
    const second = new TotpStore(connect());
    // Both saw last_used_step = STEP − 20 and matched STEP; only one may take it.
    expect(first.get(ALICE)!.lastUsedStep).toBe(STEP - 20);
    expect(second.get(ALICE)!.lastUsedStep).toBe(STEP - 20);
    expect(first.acceptStep(ALICE, STEP)).toBe(true);
    expect(second.acceptStep(ALICE, STEP)).toBe(false);
    expect(second.acceptStep(ALICE, STEP - 1)).toBe(false);

    const hash = db.query<{ code_hash: string }, [string]>('SELECT code_hash FROM auth_recovery_codes WHERE uuid = ? LIMIT 1').get(ALICE)!.code_hash;
    expect(second.consumeRecoveryCode(ALICE, hash, clock)).toBe(true);
    expect(first.consumeRecoveryCode(ALICE, hash, clock)).toBe(false);
    expect(first.consumeRecoveryCode(BOB, hash, clock)).toBe(false);
  });
});
