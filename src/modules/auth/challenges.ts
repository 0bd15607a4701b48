import type { Database } from 'bun:sqlite';
import { ApiError } from '../../errors';
import type { AuthConfig } from './config';
import { DIGITS, randomCode, randomToken, SAFE_ALPHABET, sha256Hex } from './secrets';

export type ChallengeKind = 'code' | 'magic_link';
/**
 * Who asked: the in-game command (`game`, limited per player by max_generates_per_minute) or a
 * name typed on the login page (`public`, which has its own budget, kept by the caller).
 */
export type ChallengeOrigin = 'game' | 'public';

export interface Player {
  uuid: string;
  name: string;
}

export interface Issued {
  secret: string;
  expiresAt: number;
  ttlSeconds: number;
}

const ISSUE_WINDOW_MS = 60_000;

/**
 * Login codes and magic-link tokens: minted for a player in game, stored as their SHA-256,
 * consumed once. Single use holds under concurrency: the consume is one conditional UPDATE, so
 * of fifty parallel attempts on one code exactly one changes the row.
 */
export class ChallengeService {
  constructor(
    private readonly db: Database,
    private readonly config: AuthConfig['login_challenge'],
    private readonly now: () => number = Date.now,
  ) {}

  issueCode(player: Player): Issued {
    const alphabet = this.config.code_alphabet === 'alphanumeric' ? SAFE_ALPHABET : DIGITS;
    return this.issue(player, 'code', 'game', this.config.code_ttl_seconds, () => randomCode(this.config.code_length, alphabet));
  }

  /**
   * A magic-link token. From the game it counts against the player's issuance limit; a public
   * one (deliver-magic-link) neither counts nor is checked here: its budget is the caller's.
   */
  issueMagicLink(player: Player, origin: ChallengeOrigin = 'game'): Issued {
    if (!this.config.magic_link_enabled) throw new ApiError('AUTH_DISABLED', 'magic links are turned off ([login_challenge] magic_link_enabled = false): log in with a code', 403);
    return this.issue(player, 'magic_link', origin, this.config.magic_link_ttl_seconds, () => randomToken(this.config.magic_link_token_bytes));
  }

  /**
   * Spends a code or link token; the player it was minted for, or null when it is unknown,
   * spent or expired. `kinds` limits what is accepted (a deep link accepts only link tokens).
   */
  consume(presented: string, kinds: readonly ChallengeKind[] = ['code', 'magic_link']): (Player & { kind: ChallengeKind }) | null {
    const now = this.now();
    // A challenge of another kind is left untouched, so the right route can still use it.
    const anyKind = kinds.length > 1;
    for (const candidate of candidatesOf(presented)) {
      const row = this.db
        .query<{ uuid: string; name: string; kind: ChallengeKind }, [number, string, string, number]>(
          `UPDATE auth_challenges SET consumed_at = ?1
            WHERE challenge_hash = ?2 AND consumed_at IS NULL AND expires_at > ?1 AND (?4 OR kind = ?3)
            RETURNING uuid, name, kind`,
        )
        .get(now, sha256Hex(candidate), kinds[0]!, anyKind ? 1 : 0);
      if (row) return row;
    }
    return null;
  }

  /** Drops expired challenges (they can never be consumed) once they no longer count against the issuance limit. */
  sweep(): void {
    const now = this.now();
    this.db.query(`DELETE FROM auth_challenges WHERE expires_at <= ?1 AND created_at <= ?2`).run(now, now - ISSUE_WINDOW_MS);
  }

  private issue(player: Player, kind: ChallengeKind, origin: ChallengeOrigin, ttlSeconds: number, secretOf: () => string): Issued {
    const now = this.now();
    return this.db.transaction(() => {
      // Expired rows of the last minute still count against the issuance limit: keep them.
      this.db.query(`DELETE FROM auth_challenges WHERE expires_at <= ?1 AND created_at <= ?2`).run(now, now - ISSUE_WINDOW_MS);
      if (origin === 'game') this.checkIssuanceLimit(player.uuid, now);
      const expiresAt = now + ttlSeconds * 1000;
      // A short code can collide with one still live; draw again (the key is its hash).
      for (let attempt = 0; attempt < 16; attempt++) {
        const secret = secretOf();
        const inserted = this.db
          .query(`INSERT OR IGNORE INTO auth_challenges (challenge_hash, kind, uuid, name, created_at, expires_at, origin) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`)
          .run(sha256Hex(secret), kind, player.uuid, player.name, now, expiresAt, origin);
        if (inserted.changes === 1) return { secret, expiresAt, ttlSeconds };
      }
      throw new ApiError('AUTH_RATE_LIMITED', 'no free login code right now (too many live codes): try again in a minute', 429, { 'Retry-After': '60' });
    })();
  }

  /**
   * In-game codes and links of the last minute for this player (public deliveries do not count).
   * Rows stamped after `now` (the wall clock stepped back since) do not count: an hour-long
   * step back must not hold a player's codes against them for an hour.
   */
  private checkIssuanceLimit(uuid: string, now: number): void {
    const { recent } = this.db
      .query<{ recent: number }, [string, number, number]>(`SELECT count(*) AS recent FROM auth_challenges WHERE uuid = ?1 AND created_at > ?2 AND created_at <= ?3 AND origin = 'game'`)
      .get(uuid, now - ISSUE_WINDOW_MS, now)!;
    if (recent < this.config.max_generates_per_minute) return;
    throw new ApiError('AUTH_RATE_LIMITED', `${this.config.max_generates_per_minute} login codes or links per minute for one player: wait a minute and try again`, 429, { 'Retry-After': '60' });
  }
}

/**
 * What a person may have typed for a code: as given, and upper-cased without spaces or
 * dashes (alphanumeric codes are shown upper case). Link tokens are case-sensitive: only
 * the first form can match them.
 */
function candidatesOf(presented: string): string[] {
  const trimmed = presented.trim();
  const normalised = trimmed.replace(/[\s-]/g, '').toUpperCase();
  return normalised === trimmed ? [trimmed] : [trimmed, normalised];
}
