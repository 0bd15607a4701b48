import { ApiError } from '../../errors';
import { monotonicNow, SlidingWindow } from './sliding-window';

/** Wrong codes one session may send to /api/profile/totp/confirm and /disable per 5 minutes. */
export const TOTP_FAILURES_PER_SESSION = 5;
const SESSION_WINDOW_MS = 5 * 60_000;
/** Wrong codes from one client address per minute, whichever sessions they come with. */
export const TOTP_FAILURES_PER_IP = 10;
const IP_WINDOW_MS = 60_000;

/**
 * Guessing brakes on the profile's TOTP routes (confirm, disable): a session holding a stolen
 * token must not be able to try codes until one disables the second factor. Wrong codes count
 * per session and per client address on the monotonic clock and age out; nothing else clears
 * them. A blocked caller is refused before its code is looked at (429 AUTH_RATE_LIMITED with
 * Retry-After). The login's TOTP step has its own brakes (five tries per login, and the
 * address's failure cap).
 */
export class TotpThrottle {
  private readonly perSession: SlidingWindow;
  private readonly perIp: SlidingWindow;

  constructor(now: () => number = monotonicNow) {
    this.perSession = new SlidingWindow(TOTP_FAILURES_PER_SESSION, SESSION_WINDOW_MS, now);
    this.perIp = new SlidingWindow(TOTP_FAILURES_PER_IP, IP_WINDOW_MS, now);
  }

  /** Runs `check` unless the caller is blocked; an AUTH_TOTP_INVALID it throws counts as a wrong code. */
  attempt<T>(sessionId: string, ip: string, check: () => T): T {
    this.guard(sessionId, ip);
    try {
      return check();
    } catch (error) {
      if (error instanceof ApiError && error.errorCode === 'AUTH_TOTP_INVALID') {
        this.perSession.hit(sessionId);
        this.perIp.hit(ip);
      }
      throw error;
    }
  }

  private guard(sessionId: string, ip: string): void {
    const session = this.perSession.blockedFor(sessionId);
    if (session > 0) {
      throw limited(session, `${TOTP_FAILURES_PER_SESSION} wrong codes from this session in ${SESSION_WINDOW_MS / 60_000} minutes: wait ${session} s, then enter the code your authenticator app shows (check the device clock) or a recovery code`);
    }
    const address = this.perIp.blockedFor(ip);
    if (address > 0) {
      throw limited(address, `${TOTP_FAILURES_PER_IP} wrong codes from this address in a minute: wait ${address} s and try again`);
    }
  }

  sweep(): void {
    this.perSession.sweep();
    this.perIp.sweep();
  }
}

const limited = (seconds: number, message: string) => new ApiError('AUTH_RATE_LIMITED', message, 429, { 'Retry-After': String(seconds) });
