import type { Database } from 'bun:sqlite';
import { generateSecret, verifySync } from 'otplib';
import { ApiError } from '../../errors';
import { randomCode, SAFE_ALPHABET, sha256Hex } from './secrets';
import type { SessionKey } from './session-key';
import { TotpStore } from './totp-store';

export interface TotpOptions {
  /** Label of the authenticator entry ("<issuer>: <player name>"). */
  issuer: string;
  /** Clock-skew tolerance in 30-second steps, already clamped to 0..2. */
  window: number;
}

export interface TotpStatus {
  enabled: boolean;
  pendingEnrollment: boolean;
  recoveryCodesRemaining: number;
}

export interface TotpEnrollment {
  secret: string;
  otpauthUri: string;
  recoveryCodes: string[];
}

// What every authenticator app assumes; the URI states them anyway.
const PERIOD_SECONDS = 30;
const DIGITS = 6;
const SECRET_BYTES = 20;
const RECOVERY_CODE_COUNT = 10;
const RECOVERY_HALF = 4;

const LIVE_CODE = /^\d{6}$/;
const RECOVERY_CODE = new RegExp(`^[${SAFE_ALPHABET}]{${RECOVERY_HALF * 2}}$`);

const invalid = (message: string): ApiError => new ApiError('AUTH_TOTP_INVALID', message);

/** What a person typed as a live code: spaces dropped ("123 456" is fine). */
const liveCode = (typed: string): string => typed.replace(/\s+/g, '');

/** The stored form of a recovery code (upper case, no dash, no spaces), or null when it cannot be one. */
function recoveryKey(typed: string): string | null {
  const plain = typed.replace(/[\s-]+/g, '').toUpperCase();
  return RECOVERY_CODE.test(plain) ? plain : null;
}

/**
 * TOTP second factor of dashboard logins (HMAC-SHA1, 30 s, 6 digits) with 10 single-use recovery
 * codes. Secrets are stored sealed with session.key; recovery codes as SHA-256 digests. A live
 * code is accepted at most once: only a step newer than the last accepted one passes, and taking
 * it is a conditional UPDATE, so the same code sent twice at once passes once. Time is `now()`.
 */
export class TotpService {
  private readonly store: TotpStore;

  constructor(
    db: Database,
    private readonly key: SessionKey,
    private readonly options: TotpOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.store = new TotpStore(db);
  }

  status(uuid: string): TotpStatus {
    const row = this.store.get(uuid);
    if (!row) return { enabled: false, pendingEnrollment: false, recoveryCodesRemaining: 0 };
    return { enabled: row.enabled, pendingEnrollment: !row.enabled, recoveryCodesRemaining: this.store.remainingRecoveryCodes(uuid) };
  }

  isEnabled(uuid: string): boolean {
    return this.store.get(uuid)?.enabled ?? false;
  }

  /**
   * Starts (or restarts) an enrolment: a new secret and 10 new recovery codes, replacing any
   * pending ones. The only moment the secret and the codes are seen in clear.
   */
  enroll(uuid: string, name: string): TotpEnrollment {
    const secret = generateSecret({ length: SECRET_BYTES });
    const recoveryCodes = newRecoveryCodes();
    const hashes = recoveryCodes.map((code) => sha256Hex(recoveryKey(code)!));
    if (!this.store.replacePending(uuid, this.key.seal(secret), hashes, this.now())) {
      throw new ApiError('AUTH_TOTP_ALREADY_ENABLED', 'TOTP is already enabled: disable it first (POST /api/profile/totp/disable) to enrol another authenticator');
    }
    return { secret, otpauthUri: this.otpauthUri(name, secret), recoveryCodes };
  }

  /** Activates the pending enrolment with a live code. Already enabled: nothing to do. */
  confirm(uuid: string, code: string): void {
    const row = this.store.get(uuid);
    if (!row) throw invalid('no pending enrolment: POST /api/profile/totp/enroll first');
    if (row.enabled) return;
    const typed = liveCode(code);
    if (!LIVE_CODE.test(typed)) throw invalid('the code must be the 6 digits your authenticator app shows now');
    const secret = this.key.open(row.secretEnc);
    if (secret === null) {
      throw invalid('the pending enrolment was made under an earlier session.key and can no longer be read: POST /api/profile/totp/enroll again');
    }
    const step = this.matchStep(secret, typed, row.lastUsedStep);
    if (step === null) throw invalid('wrong code: enter the 6 digits your authenticator app shows now (check that the device clock is right)');
    if (this.store.enable(uuid, row.secretEnc, step, this.now())) return;
    // Lost a race. Another confirm of this very enrolment winning is still a success; an
    // enrolment replaced meanwhile is not (the code belongs to the old secret).
    const after = this.store.get(uuid);
    if (after?.enabled && Buffer.from(after.secretEnc).equals(Buffer.from(row.secretEnc))) return;
    throw invalid('the enrolment changed while confirming: scan the newest QR code and enter its code');
  }

  /** Turns TOTP off with a live code or an unused recovery code; drops the secret and every code. */
  disable(uuid: string, code: string): void {
    if (!this.isEnabled(uuid)) throw invalid('TOTP is not enabled for this account: there is nothing to disable');
    if (this.verify(uuid, code) === null) {
      throw invalid('wrong code: enter the 6 digits your authenticator app shows now, or one of your unused recovery codes');
    }
    this.store.remove(uuid);
  }

  /**
   * The login's second step: a live code (a step newer than the last accepted one) or an unused
   * recovery code, which is used up. How it passed, or null; a wrong code never throws. A
   * secret the key cannot open fails every live code, while recovery codes still work, so the
   * owner can disable and enrol again.
   */
  verify(uuid: string, code: string): 'totp' | 'recovery' | null {
    const row = this.store.get(uuid);
    if (!row?.enabled) return null;
    const typed = liveCode(code);
    if (LIVE_CODE.test(typed)) {
      const secret = this.key.open(row.secretEnc);
      if (secret === null) return null;
      const step = this.matchStep(secret, typed, row.lastUsedStep);
      return step !== null && this.store.acceptStep(uuid, step) ? 'totp' : null;
    }
    const recovery = recoveryKey(code);
    if (recovery === null) return null;
    return this.store.consumeRecoveryCode(uuid, sha256Hex(recovery), this.now()) ? 'recovery' : null;
  }

  /** Enrolments (pending or enabled) whose secret the current key cannot open: session.key changed. */
  unreadable(): number {
    return this.store.sealedSecrets().filter((sealed) => this.key.open(sealed) === null).length;
  }

  /** Drops the uuid's secret and recovery codes, whatever their state. */
  forget(uuid: string): void {
    this.store.remove(uuid);
  }

  /**
   * The first step of now−window … now+window, newer than `lastUsedStep`, whose code is `code`
   * (otplib compares in constant time), or null.
   */
  private matchStep(secret: string, code: string, lastUsedStep: number | null): number | null {
    const epoch = Math.floor(this.now() / 1000);
    const newest = Math.floor(epoch / PERIOD_SECONDS) + this.options.window;
    // Nothing in the window is newer (the clock went back); otplib refuses such a bound.
    if (lastUsedStep !== null && lastUsedStep >= newest) return null;
    const result = verifySync({
      secret,
      token: code,
      algorithm: 'sha1',
      digits: DIGITS,
      period: PERIOD_SECONDS,
      epoch,
      epochTolerance: this.options.window * PERIOD_SECONDS,
      afterTimeStep: lastUsedStep ?? undefined,
    });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }

  private otpauthUri(name: string, secret: string): string {
    const issuer = encodeURIComponent(this.options.issuer);
    return `otpauth://totp/${issuer}:${encodeURIComponent(name)}?secret=${secret}&issuer=${issuer}&algorithm=SHA1&digits=${DIGITS}&period=${PERIOD_SECONDS}`;
  }
}

/** Ten distinct `XXXX-XXXX` codes (distinct: the table's key is the uuid and the digest). */
function newRecoveryCodes(): string[] {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(`${randomCode(RECOVERY_HALF, SAFE_ALPHABET)}-${randomCode(RECOVERY_HALF, SAFE_ALPHABET)}`);
  return [...codes];
}
