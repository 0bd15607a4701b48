import { monotonicNow, type Clock } from '../../core/time/monotonic';
import { ADMIN_NODE } from '../../core/auth';
import type { DashboardSessions, PermissionResolver, SessionCheck, SessionIdentity } from '../services';
import { randomToken, sha256Hex } from './secrets';
import type { LoginMethod, SessionRow, SessionStore } from './session-store';

/** Use is written to disk at most this often per session (the rolled expiry with it). */
export const TOUCH_INTERVAL_MS = 60_000;
/** Ended sessions are remembered this long, so their token answers "expired"/"logged out", not "wrong". */
export const KEEP_ENDED_MS = 24 * 60 * 60_000;

export interface SessionOptions {
  ttlSeconds: number;
  rollingRefresh: boolean;
  maxPerUser: number;
  requireTotpForAdmin: boolean;
}

export interface NewSession {
  uuid: string;
  name: string;
  method: LoginMethod;
  totpUsed: boolean;
  ip: string | null;
  userAgent: string | null;
}

/** The session list entry the dashboard's security page reads (times in epoch ms). */
export interface SessionSummary {
  sessionId: string;
  uuid: string;
  name: string;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number;
  ip: string | null;
  userAgent: string | null;
  loginMethod: LoginMethod;
}

/** One session as held in memory; the row on disk lags by at most TOUCH_INTERVAL_MS of use. */
class LiveSession implements SessionIdentity {
  readonly id: string;
  expiresAt: number;
  lastUsedAt: number;
  /** When use was last written to disk, on the monotonic clock (a wall-clock step back does not stop the writes). */
  touchedAt: number;
  revokedAt: number | null;
  /** The sweep has told socket owners that this session expired. */
  expiryAnnounced = false;
  /** Answers of the permissions module for this player, dropped whenever it announces a change for them. */
  private answers = new Map<string, boolean>();
  private snapshot: string[] | null = null;

  constructor(
    readonly row: SessionRow,
    private readonly owner: SessionService,
    touchedAt: number,
  ) {
    this.id = row.session_id;
    this.expiresAt = row.expires_at;
    this.lastUsedAt = row.last_used_at;
    this.touchedAt = touchedAt;
    this.revokedAt = row.revoked_at;
  }

  get uuid(): string {
    return this.row.uuid;
  }
  get name(): string {
    return this.row.name;
  }

  has(node: string): boolean {
    let answer = this.answers.get(node);
    if (answer === undefined) {
      const perms = this.owner.perms();
      answer = perms !== undefined && (perms.has(this.uuid, ADMIN_NODE) || perms.has(this.uuid, node));
      this.answers.set(node, answer);
    }
    return answer;
  }

  get isAdmin(): boolean {
    return this.has(ADMIN_NODE);
  }

  get mustEnrollTotp(): boolean {
    return this.owner.options.requireTotpForAdmin && this.isAdmin && !this.owner.totpEnabled(this.uuid);
  }

  /** The player's nodes when last resolved (at login, or after the last change announced for them). */
  permissions(): string[] {
    this.snapshot ??= this.owner.perms()?.effectivePermissions(this.uuid) ?? [];
    return this.snapshot;
  }

  forgetPermissions(): void {
    this.answers = new Map();
    this.snapshot = null;
  }

  summary(): SessionSummary {
    const r = this.row;
    return { sessionId: this.id, uuid: r.uuid, name: r.name, createdAt: r.created_at, expiresAt: this.expiresAt, lastUsedAt: this.lastUsedAt, ip: r.ip, userAgent: r.user_agent, loginMethod: r.login_method };
  }
}

/**
 * Dashboard sessions: random tokens stored as their SHA-256, held in memory so validating one
 * costs a hash and a map look-up, never a write: use and the rolled expiry reach the disk at
 * most once a minute per session, and revocations at once. Permission answers come from the
 * permissions module, resolved when first asked and dropped when it announces a change for the
 * player (or for every player: a group or track changed).
 */
export class SessionService implements DashboardSessions {
  private readonly byHash = new Map<string, LiveSession>();
  private readonly byId = new Map<string, LiveSession>();
  private readonly revokedListeners = new Set<(sessionId: string) => void>();
  private readonly stopWatchingPerms: () => void;
  private readonly now: Clock;
  private readonly mono: Clock;

  constructor(
    private readonly store: SessionStore,
    readonly options: SessionOptions,
    readonly perms: () => PermissionResolver | undefined,
    readonly totpEnabled: (uuid: string) => boolean,
    private readonly tickets: { redeem(ticket: string): string | null },
    now?: Clock,
    monotonic?: Clock,
  ) {
    // Expiries are stored, so wall-clock; how often use is written is a duration, on the monotonic clock.
    this.now = now ?? Date.now;
    this.mono = monotonic ?? now ?? monotonicNow;
    const loadedAt = this.mono();
    for (const row of store.loadable(this.now(), KEEP_ENDED_MS)) this.hold(new LiveSession(row, this, loadedAt));
    this.stopWatchingPerms = perms()?.onChange((changed) => this.forgetPermissions(changed)) ?? (() => {});
  }

  stop(): void {
    this.stopWatchingPerms();
  }

  validate(token: string, tokenHash = sha256Hex(token)): SessionCheck {
    const session = this.byHash.get(tokenHash);
    if (!session) return null;
    if (session.revokedAt !== null) return 'revoked';
    const now = this.now();
    if (session.expiresAt <= now) return 'expired';
    session.lastUsedAt = now;
    if (this.options.rollingRefresh) session.expiresAt = now + this.options.ttlSeconds * 1000;
    const mono = this.mono();
    if (mono - session.touchedAt >= TOUCH_INTERVAL_MS) {
      session.touchedAt = mono;
      this.store.touch(session.row.token_hash, session.expiresAt, now);
    }
    return session;
  }

  redeemTicket(ticket: string): SessionIdentity | null {
    const tokenHash = this.tickets.redeem(ticket);
    const session = tokenHash === null ? undefined : this.byHash.get(tokenHash);
    if (!session || session.revokedAt !== null || session.expiresAt <= this.now()) return null;
    return session;
  }

  onRevoked(listener: (sessionId: string) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /**
   * A new session for a completed login. Beyond max_per_user, the player's oldest active
   * sessions are revoked (their sockets close). Returns the token, shown once and never stored.
   */
  issue(login: NewSession): { token: string; session: LiveSession } {
    const now = this.now();
    const active = this.activeOf(login.uuid).reverse(); // oldest first
    const excess = active.length - (this.options.maxPerUser - 1);
    if (excess > 0) this.revoke(active.slice(0, excess));
    const token = randomToken(32);
    const tokenHash = sha256Hex(token);
    const row: SessionRow = {
      token_hash: tokenHash,
      session_id: tokenHash.slice(0, 16),
      uuid: login.uuid,
      name: login.name,
      created_at: now,
      expires_at: now + this.options.ttlSeconds * 1000,
      last_used_at: now,
      ip: login.ip,
      user_agent: login.userAgent?.slice(0, 255) ?? null,
      login_method: login.method,
      totp_used: login.totpUsed ? 1 : 0,
      revoked_at: null,
    };
    this.store.insert(row);
    const session = new LiveSession(row, this, this.mono());
    this.hold(session);
    session.permissions(); // the snapshot taken at login
    return { token, session };
  }

  /** The session a token stands for, live or not (logout of an already ended session is a no-op). */
  byToken(token: string): LiveSession | undefined {
    return this.byHash.get(sha256Hex(token));
  }

  byPublicId(id: string): LiveSession | undefined {
    return this.byId.get(id);
  }

  /** The player's sessions that are neither revoked nor expired, newest first. */
  activeOf(uuid: string): LiveSession[] {
    const now = this.now();
    return [...this.byHash.values()].filter((s) => s.uuid === uuid && s.revokedAt === null && s.expiresAt > now).sort((a, b) => b.row.created_at - a.row.created_at);
  }

  /** Every active session, newest first (the admin view). */
  allActive(): LiveSession[] {
    const now = this.now();
    return [...this.byHash.values()].filter((s) => s.revokedAt === null && s.expiresAt > now).sort((a, b) => b.row.created_at - a.row.created_at);
  }

  /** Revokes the given sessions now; returns how many were still active. */
  revoke(sessions: readonly LiveSession[]): number {
    const now = this.now();
    const live = sessions.filter((s) => s.revokedAt === null);
    if (live.length === 0) return 0;
    this.store.revoke(
      live.map((s) => s.row.token_hash),
      now,
    );
    for (const session of live) session.revokedAt = now;
    for (const session of live) for (const listener of this.revokedListeners) listener(session.id);
    return live.length;
  }

  /**
   * Forgets what ended more than a day ago (memory and disk), and tells socket owners about
   * sessions that expired since the last sweep so their sockets close too.
   */
  sweep(): void {
    const now = this.now();
    for (const session of [...this.byHash.values()]) {
      const endedAt = session.revokedAt ?? session.expiresAt;
      if (endedAt > now) continue;
      if (session.revokedAt === null && !session.expiryAnnounced) {
        session.expiryAnnounced = true;
        for (const listener of this.revokedListeners) listener(session.id);
      }
      if (endedAt <= now - KEEP_ENDED_MS) {
        this.byHash.delete(session.row.token_hash);
        this.byId.delete(session.id);
      }
    }
    this.store.deleteEnded(now - KEEP_ENDED_MS);
  }

  private hold(session: LiveSession): void {
    this.byHash.set(session.row.token_hash, session);
    this.byId.set(session.id, session);
  }

  private forgetPermissions(changed: readonly string[] | 'all'): void {
    const players = changed === 'all' ? null : new Set(changed);
    for (const session of this.byHash.values()) if (players === null || players.has(session.uuid)) session.forgetPermissions();
  }
}

export type { LiveSession };
