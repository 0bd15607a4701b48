import { ApiError } from '../../errors';
import type { AuthKernel } from './uses';
import type { Logger } from '../../log';
import type { AuthConfig } from './config';
import { totpWindow } from './config';
import { ChallengeService } from './challenges';
import { MagicLinkDelivery } from './delivery';
import { FailureWindow } from './failure-window';
import { LoginFlow } from './login';
import { PasskeyService } from './passkeys';
import { relyingPartyOf, type RelyingParty } from './relying-party';
import { loadSessionKey, sessionKeyLocation, type LoadedKey } from './session-key';
import { SessionStore } from './session-store';
import { SessionService } from './sessions';
import { TicketBook } from './tickets';
import { TotpService } from './totp';
import { TotpThrottle } from './totp-throttle';
import { monotonicNow, type Clock } from '../../core/time/monotonic';

/** The reference dashboard's development address: the fallback when the controller serves no dashboard of its own on a known port. */
export const FALLBACK_PUBLIC_URL = 'http://localhost:3000';

/**
 * The dashboard's address for magic links and passkeys when neither svc.toml nor auth.toml
 * names it: the controller's own dashboard as its machine reaches it (`http://localhost:<api
 * port>`), else FALLBACK_PUBLIC_URL. The doctor still asks for a real one: a player's browser is
 * rarely on the controller's machine.
 */
export function fallbackPublicUrl(config: { dashboard: { enabled: boolean }; api: { port: number } }): string {
  return config.dashboard.enabled && config.api.port > 0 ? `http://localhost:${config.api.port}` : FALLBACK_PUBLIC_URL;
}
const SWEEP_INTERVAL_MS = 60_000;

/**
 * One controller's dashboard-login module: config, key, and the services routes and commands
 * call. Passkeys are null when `[webauthn] enabled = false` or its settings cannot work
 * (`passkeyProblem` says why; the doctor repeats it).
 */
export class AuthRuntime {
  readonly key: LoadedKey;
  readonly keyFile: string;
  readonly publicUrl: string;
  readonly publicUrlConfigured: boolean;
  readonly tickets: TicketBook;
  readonly sessions: SessionService;
  readonly challenges: ChallengeService;
  readonly totp: TotpService;
  readonly login: LoginFlow;
  /** deliver-magic-link's work, done after the answer, on its own budget. */
  readonly delivery: MagicLinkDelivery;
  /** Wrong-code brakes of /api/profile/totp/confirm and /disable. */
  readonly totpThrottle = new TotpThrottle();
  readonly passkeys: PasskeyService | null;
  readonly relyingParty: RelyingParty | null;
  readonly passkeyProblem: string | null;
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(
    readonly kernel: AuthKernel,
    readonly config: AuthConfig,
    readonly log: Logger,
    now?: Clock,
    monotonic?: Clock,
  ) {
    // Stored times (sessions, codes, passkeys, TOTP) on the wall clock; what lives in memory for a while on the monotonic one.
    const wall = now ?? Date.now;
    const mono = monotonic ?? now ?? monotonicNow;
    const configured = kernel.config.dashboard.public_url.trim() || config.dashboard.public_url.trim();
    this.publicUrlConfigured = configured !== '';
    this.publicUrl = (configured || fallbackPublicUrl(kernel.config)).replace(/\/+$/, '');
    const location = sessionKeyLocation(kernel.dir, config.security.token_encryption_key_file);
    this.keyFile = location.file;
    this.key = loadSessionKey(location);
    if (this.key.movedFrom) log.info({ from: this.key.movedFrom, to: this.keyFile }, 'session.key moved out of config/ (config backups must not carry it); auth.toml may keep naming the old path, which now means the new one');
    if (this.key.strayLegacy) log.warn({ file: this.key.strayLegacy, inUse: this.keyFile }, `an old session.key lies at ${this.key.strayLegacy}, besides the key in use: it is not read; delete it (or, if it is the right key, replace ${this.keyFile} with it while svc is stopped)`);
    this.tickets = new TicketBook(wall, mono);
    this.totp = new TotpService(kernel.db, this.key.key, { issuer: config.totp.issuer, window: totpWindow(config) }, wall);
    if (this.key.regenerated) {
      const unreadable = this.totp.unreadable();
      if (unreadable > 0) log.error({ file: this.keyFile, enrolments: unreadable }, `session.key was missing and was made anew: ${unreadable} TOTP enrolment(s) can no longer be read; those players must use a recovery code to disable TOTP and enrol again`);
      else log.info({ file: this.keyFile }, 'session.key was missing: a new one was made (mode 600)');
    }
    this.sessions = new SessionService(
      new SessionStore(kernel.db),
      {
        ttlSeconds: config.sessions.ttl_seconds,
        rollingRefresh: config.sessions.rolling_refresh,
        maxPerUser: config.sessions.max_per_user,
        requireTotpForAdmin: config.totp.require_for_admin,
      },
      () => kernel.modules.lookup('perms'),
      (uuid) => this.totpEnabled.has(uuid),
      this.tickets,
      wall,
      mono,
    );
    this.challenges = new ChallengeService(kernel.db, config.login_challenge, wall);
    this.login = new LoginFlow(this.sessions, this.totp, new FailureWindow(config.login_challenge.max_consume_failures_per_minute, mono), kernel.bus, mono);
    this.delivery = new MagicLinkDelivery(this.challenges, () => kernel.modules.lookup('players'), kernel.bus, (token) => this.magicUrl(token), log);
    let passkeys: PasskeyService | null = null;
    let relyingParty: RelyingParty | null = null;
    let problem: string | null = null;
    if (config.webauthn.enabled) {
      try {
        relyingParty = relyingPartyOf(config.webauthn, this.publicUrl);
        passkeys = new PasskeyService(kernel.db, relyingParty, { challengeTtlMs: config.webauthn.challenge_ttl_seconds * 1000, maxPerUser: config.webauthn.max_credentials_per_user }, wall, mono);
      } catch (error) {
        problem = `passkeys are off: ${(error as Error).message} (config/modules/auth/auth.toml [webauthn])`;
        log.error(problem);
      }
    }
    this.passkeys = passkeys;
    this.relyingParty = relyingParty;
    this.passkeyProblem = problem;
    this.loadTotpEnabled();
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** The link a magic-link token is used through: the dashboard's login page. */
  magicUrl(token: string): string {
    return `${this.publicUrl}/login?link=${encodeURIComponent(token)}`;
  }

  /** Players with TOTP switched on, held in memory: the admin TOTP rule is checked on every request. */
  private totpEnabled = new Set<string>();

  loadTotpEnabled(): void {
    const rows = this.kernel.db.query<{ uuid: string }, []>(`SELECT uuid FROM auth_totp WHERE enabled = 1`).all();
    this.totpEnabled = new Set(rows.map((r) => r.uuid));
  }

  /** The permissions module is what dashboard logins resolve against; without it nobody may log in. */
  requirePerms(): void {
    if (this.kernel.modules.lookup('perms')) return;
    throw new PermsMissing();
  }

  /** Codes and links are minted only for a player the players module has online. */
  requireOnline(uuid: string): void {
    const players = this.kernel.modules.lookup('players');
    if (!players) throw new ApiError('AUTH_PLAYER_OFFLINE', 'login codes need the players module to know who is online, and it is not installed');
    if (!players.online().some((p) => p.uuid === uuid)) throw new ApiError('AUTH_PLAYER_OFFLINE', 'the player is not online: join the network and run the command in game');
  }

  sweep(): void {
    this.sessions.sweep();
    this.challenges.sweep();
    this.tickets.sweep();
    this.login.sweep();
    this.login.failures.sweep();
    this.delivery.sweep();
    this.totpThrottle.sweep();
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.sessions.stop();
  }
}

class PermsMissing extends ApiError {
  constructor() {
    super('AUTH_DISABLED', 'dashboard login needs the permissions module (perms), which is not installed: install it (POST /api/modules/install/perms) and restart, or use an API token', 403);
  }
}
