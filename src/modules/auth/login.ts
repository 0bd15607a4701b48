import { monotonicNow, type Clock } from '../../core/time/monotonic';
import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { FailureWindow } from './failure-window';
import { randomToken } from './secrets';
import type { LoginMethod } from './session-store';
import type { LiveSession, SessionService } from './sessions';
import type { TotpService } from './totp';

/** A login waiting for its TOTP step lives this long, and dies after this many wrong codes. */
export const PENDING_TTL_MS = 5 * 60_000;
export const MAX_TOTP_ATTEMPTS = 5;

/** Where a login attempt comes from (for the failure cap, the session list and the events). */
export interface Origin {
  ip: string;
  userAgent: string | null;
}

/** The identity object the dashboard reads (`UserInfo`). */
export interface UserView {
  uuid: string;
  name: string;
  permissions: string[];
  isAdmin: boolean;
  totpEnabled: boolean;
}

/** What a first login step answers: a session, or the id of the TOTP step still to take. */
export type LoginStep =
  | { token: string; expiresAt: number; user: UserView; totpRequired: false; challengeId: null }
  | { token: null; expiresAt: null; user: null; totpRequired: true; challengeId: string };

interface Pending {
  uuid: string;
  name: string;
  method: LoginMethod;
  expiresAt: number;
  attempts: number;
}

/**
 * The end of every login, whatever proved the player: a code, a link or a passkey. A player
 * with TOTP gets a pending challenge and must pass the TOTP step (or a recovery code) first;
 * five wrong codes kill the challenge. Every outcome is announced (and audited): logins,
 * failures with their reason, and the address they came from. Failures count against the
 * address until they age out; a success clears none of them.
 */
export class LoginFlow {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly sessions: SessionService,
    private readonly totp: TotpService,
    readonly failures: FailureWindow,
    private readonly bus: EventBus,
    /** Pending TOTP steps live and expire on it (monotonic; tests pass a fake). */
    private readonly now: Clock = monotonicNow,
  ) {}

  /** Refuses an address over the failure cap (429, and a failed-login event). */
  guard(origin: Origin): void {
    const wait = this.failures.blockedFor(origin.ip);
    if (wait === 0) return;
    this.failed('rate_limited', origin, '');
    throw new ApiError('AUTH_RATE_LIMITED', `too many failed login attempts from this address: try again in ${wait} s`, 429, { 'Retry-After': String(wait) });
  }

  /** Counts a failed proof against the address and announces it; the caller throws its own error. */
  failed(reason: string, origin: Origin, uuid: string): void {
    if (reason !== 'rate_limited') this.failures.fail(origin.ip);
    this.bus.publish('DASHBOARD_LOGIN_FAILED', { reason, uuid, ip: origin.ip }, 'system');
  }

  /** The player is proven by `method`: a session now, or the TOTP step first. */
  proven(player: { uuid: string; name: string }, method: LoginMethod, origin: Origin): LoginStep {
    if (!this.totp.isEnabled(player.uuid)) {
      const done = this.open(player, method, false, origin);
      return { ...done, totpRequired: false, challengeId: null };
    }
    this.sweep();
    const challengeId = randomToken(24);
    this.pending.set(challengeId, { uuid: player.uuid, name: player.name, method, expiresAt: this.now() + PENDING_TTL_MS, attempts: 0 });
    return { token: null, expiresAt: null, user: null, totpRequired: true, challengeId };
  }

  /** The TOTP step: a live code or a recovery code for the pending login. */
  verifyTotp(challengeId: string, code: string, origin: Origin): { token: string; expiresAt: number; user: UserView } {
    this.guard(origin);
    const pending = this.pending.get(challengeId);
    if (!pending) {
      this.failed('invalid_challenge', origin, '');
      throw new ApiError('AUTH_CHALLENGE_INVALID', 'unknown login challenge: start the login again');
    }
    if (pending.expiresAt <= this.now()) {
      this.pending.delete(challengeId);
      this.failed('challenge_expired', origin, pending.uuid);
      throw new ApiError('AUTH_LOGIN_CHALLENGE_EXPIRED', 'the login challenge expired (5 minutes): start the login again');
    }
    if (this.totp.verify(pending.uuid, code) === null) {
      pending.attempts += 1;
      this.failed('totp_invalid', origin, pending.uuid);
      if (pending.attempts >= MAX_TOTP_ATTEMPTS) {
        this.pending.delete(challengeId);
        throw new ApiError('AUTH_TOTP_INVALID', `wrong code ${MAX_TOTP_ATTEMPTS} times: this login is void, start again`);
      }
      throw new ApiError('AUTH_TOTP_INVALID', `wrong code: ${MAX_TOTP_ATTEMPTS - pending.attempts} tries left for this login`);
    }
    this.pending.delete(challengeId);
    return this.open(pending, pending.method, true, origin);
  }

  userOf(session: LiveSession): UserView {
    return { uuid: session.uuid, name: session.name, permissions: [...session.permissions()], isAdmin: session.isAdmin, totpEnabled: this.totp.isEnabled(session.uuid) };
  }

  sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.pending) if (entry.expiresAt <= now) this.pending.delete(id);
  }

  private open(player: { uuid: string; name: string }, method: LoginMethod, totpUsed: boolean, origin: Origin) {
    const { token, session } = this.sessions.issue({ uuid: player.uuid, name: player.name, method, totpUsed, ip: origin.ip, userAgent: origin.userAgent });
    this.bus.publish('DASHBOARD_LOGIN_SUCCEEDED', { uuid: player.uuid, name: player.name, method, totpUsed, ip: origin.ip, sessionId: session.id }, `dashboard:${player.name}`);
    return { token, expiresAt: session.expiresAt, user: this.userOf(session) };
  }
}
