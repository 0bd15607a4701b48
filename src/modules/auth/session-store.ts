import type { Database } from 'bun:sqlite';

export type LoginMethod = 'code' | 'magic_link' | 'passkey';

export interface SessionRow {
  token_hash: string;
  session_id: string;
  uuid: string;
  name: string;
  created_at: number;
  expires_at: number;
  last_used_at: number;
  ip: string | null;
  user_agent: string | null;
  login_method: LoginMethod;
  totp_used: number;
  revoked_at: number | null;
}

/** SQL of the auth_sessions table; the session service keeps the live picture in memory. */
export class SessionStore {
  constructor(private readonly db: Database) {}

  insert(row: SessionRow): void {
    this.db
      .query(
        `INSERT INTO auth_sessions (token_hash, session_id, uuid, name, created_at, expires_at, last_used_at, ip, user_agent, login_method, totp_used, revoked_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, NULL)`,
      )
      .run(row.token_hash, row.session_id, row.uuid, row.name, row.created_at, row.expires_at, row.last_used_at, row.ip, row.user_agent, row.login_method, row.totp_used);
  }

  /** Rows still worth holding: live ones, and those ended less than `keepEndedMs` ago (told apart from wrong tokens). */
  loadable(now: number, keepEndedMs: number): SessionRow[] {
    return this.db
      .query<SessionRow, [number]>(`SELECT * FROM auth_sessions WHERE COALESCE(revoked_at, expires_at) > ?1`)
      .all(now - keepEndedMs);
  }

  revoke(tokenHashes: readonly string[], at: number): void {
    const statement = this.db.query(`UPDATE auth_sessions SET revoked_at = ?2 WHERE token_hash = ?1 AND revoked_at IS NULL`);
    this.db.transaction(() => {
      for (const hash of tokenHashes) statement.run(hash, at);
    })();
  }

  /** Records use and the rolled expiry (at most once a minute per session: see SessionService). */
  touch(tokenHash: string, expiresAt: number, lastUsedAt: number): void {
    this.db.query(`UPDATE auth_sessions SET expires_at = ?2, last_used_at = ?3 WHERE token_hash = ?1 AND revoked_at IS NULL`).run(tokenHash, expiresAt, lastUsedAt);
  }

  /** Forgets sessions that ended before `before`. */
  deleteEnded(before: number): number {
    return this.db.query(`DELETE FROM auth_sessions WHERE COALESCE(revoked_at, expires_at) <= ?1`).run(before).changes;
  }
}
