/**
 * The typed services modules offer to core and to each other. Core declares the contract here
 * (it never imports a module); a module provides its implementation during init through
 * `kernel.modules.provide`, and a consumer asks `kernel.modules.lookup` and says what it does
 * when the answer is undefined (the module is not installed).
 */

/** One player on the network as the players module's canonical roster has them. */
export interface RosterEntry {
  /** Lower-case, dashed. */
  uuid: string;
  name: string;
  service: string;
  group: string;
  /** Epoch ms the current session opened. */
  connectedAt: number;
}

/** The players module's roster: its open sessions, kept across controller restarts. */
export interface PlayerDirectory {
  online(): RosterEntry[];
  /** The online player with this name, case-insensitively. */
  onlineByName(name: string): RosterEntry | undefined;
  /** A player ever seen, online or not, by name (case-insensitively; the latest holder of a reused name). */
  knownByName(name: string): KnownPlayer | undefined;
  /** A player ever seen, by lower-case dashed uuid, with the name they last had. */
  knownByUuid(uuid: string): KnownPlayer | undefined;
}

export interface KnownPlayer {
  /** Lower-case, dashed. */
  uuid: string;
  name: string;
}

/**
 * The permissions module's answers, for modules that decide by permission nodes (dashboard
 * logins). Uuids in any accepted spelling; without `where`, only unscoped grants count.
 */
export interface PermissionResolver {
  /** The player's nodes as plugins apply them: granted nodes, and `-node` for winning negations. */
  effectivePermissions(uuid: string, where?: { server?: string; world?: string }): string[];
  has(uuid: string, node: string, where?: { server?: string; world?: string }): boolean;
  /**
   * Calls the listener after every applied change (API, console, expiry sweep) with the players
   * whose answers may have changed (lower-case dashed uuids), or 'all' when a group or track
   * changed. Returns the unsubscribe function.
   */
  onChange(listener: (changed: readonly string[] | 'all') => void): () => void;
}

/** A dashboard session as one request or socket sees it (auth module). */
export interface SessionIdentity {
  /** The public id (`my-sessions`, revocation), never the token. */
  id: string;
  /** Lower-case, dashed. */
  uuid: string;
  name: string;
  /** Holds the node: by grant, by a wildcard above it, by `svc.dashboard.admin` or by `*`. */
  has(node: string): boolean;
  isAdmin: boolean;
  /**
   * `[totp] require_for_admin` holds and this admin has not enrolled: only the login and
   * profile routes (`/api/auth/*`, `/api/profile/*`) answer until they do.
   */
  mustEnrollTotp: boolean;
}

/** What a presented token turned out to be, when not a live session: told apart for the error code. */
export type SessionCheck = SessionIdentity | 'expired' | 'revoked' | null;

/** The auth module's sessions, as core's request guard and WebSockets use them. */
export interface DashboardSessions {
  /**
   * The session this bearer token opens; null when it is no session token at all. Never writes
   * to disk on the hot path. `tokenHash` is the token's SHA-256 in hex when the caller has it.
   */
  validate(token: string, tokenHash?: string): SessionCheck;
  /** Spends a single-use `wt_` ticket (WebSockets); null when unknown, used or older than 30 s. */
  redeemTicket(ticket: string): SessionIdentity | null;
  /** Calls the listener with a session's id when it is revoked; returns the unsubscribe function. */
  onRevoked(listener: (sessionId: string) => void): () => void;
}

export interface ModuleServices {
  players: PlayerDirectory;
  perms: PermissionResolver;
  sessions: DashboardSessions;
}
