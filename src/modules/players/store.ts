import type { Database } from 'bun:sqlite';

/** A session row as the roster and the history read it. */
export interface SessionRow {
  id: number;
  uuid: string;
  name: string;
  service: string;
  group: string;
  connectedAt: number;
  disconnectedAt: number | null;
}

export interface PlayerRow {
  uuid: string;
  name: string;
  firstSeen: number;
  lastSeen: number;
  playtimeMs: number;
}

const PLAYER_COLUMNS = 'uuid, name, first_seen AS firstSeen, last_seen AS lastSeen, playtime_ms AS playtimeMs';
const SESSION_COLUMNS = 'id, uuid, name, service, grp AS "group", connected_at AS connectedAt, disconnected_at AS disconnectedAt';

/** `q` as a plain substring for LIKE: its own %, _ and \ match themselves. */
export function likeSubstring(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The players module's tables (player_tracking, player_sessions, players_state). Every
 * method is one statement or one transaction; callers keep the in-memory roster in step.
 */
export class PlayerStore {
  constructor(private readonly db: Database) {}

  /** First sight inserts the player; later sights update the name (renames) and last seen. */
  upsertPlayer(uuid: string, name: string, at: number): void {
    this.db
      .query('INSERT INTO player_tracking (uuid, name, first_seen, last_seen) VALUES (?1, ?2, ?3, ?3) ON CONFLICT (uuid) DO UPDATE SET name = ?2, last_seen = max(last_seen, ?3)')
      .run(uuid, name, at);
  }

  /** Opens a session and returns its id. */
  openSession(uuid: string, name: string, service: string, group: string, at: number): number {
    return this.db
      .query<{ id: number }, [string, string, string, string, number]>('INSERT INTO player_sessions (uuid, name, service, grp, connected_at) VALUES (?, ?, ?, ?, ?) RETURNING id')
      .get(uuid, name, service, group, at)!.id;
  }

  /**
   * Closes a session at `at` and adds its length to the player's playtime and last seen. The
   * length is `lengthMs` when the caller measured it on the monotonic clock (a wall-clock step
   * during the session then changes the timestamps only), else the wall-clock difference.
   */
  closeSession(id: number, uuid: string, connectedAt: number, at: number, lengthMs?: number): void {
    const end = Math.max(at, connectedAt);
    const length = Math.max(0, Math.round(lengthMs ?? end - connectedAt));
    this.db.query('UPDATE player_sessions SET disconnected_at = ? WHERE id = ? AND disconnected_at IS NULL').run(end, id);
    this.db.query('UPDATE player_tracking SET playtime_ms = playtime_ms + ?1, last_seen = max(last_seen, ?2) WHERE uuid = ?3').run(length, end, uuid);
  }

  /** Last seen moves forward (a disconnect of a player whose session was already closed). */
  touch(uuid: string, at: number): void {
    this.db.query('UPDATE player_tracking SET last_seen = max(last_seen, ?) WHERE uuid = ?').run(at, uuid);
  }

  /** Runs `work` as one transaction (an event that closes one session and opens the next). */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  openSessions(): SessionRow[] {
    return this.db.query<SessionRow, []>(`SELECT ${SESSION_COLUMNS} FROM player_sessions WHERE disconnected_at IS NULL ORDER BY connected_at, id`).all();
  }

  /** The newest sessions of a player first. */
  history(uuid: string, limit: number): SessionRow[] {
    return this.db.query<SessionRow, [string, number]>(`SELECT ${SESSION_COLUMNS} FROM player_sessions WHERE uuid = ? ORDER BY connected_at DESC, id DESC LIMIT ?`).all(uuid, limit);
  }

  player(uuid: string): PlayerRow | undefined {
    return this.db.query<PlayerRow, [string]>(`SELECT ${PLAYER_COLUMNS} FROM player_tracking WHERE uuid = ?`).get(uuid) ?? undefined;
  }

  /** The player last seen under this name, case-insensitively. */
  playerByName(name: string): PlayerRow | undefined {
    return this.db.query<PlayerRow, [string]>(`SELECT ${PLAYER_COLUMNS} FROM player_tracking WHERE name = ? COLLATE NOCASE ORDER BY last_seen DESC LIMIT 1`).get(name) ?? undefined;
  }

  /** Players whose name contains `q` (case-insensitive, wildcards literal), most recently seen first. */
  search(q: string, limit: number): PlayerRow[] {
    return this.db
      .query<PlayerRow, [string, number]>(`SELECT ${PLAYER_COLUMNS} FROM player_tracking WHERE name LIKE ? ESCAPE '\\' ORDER BY last_seen DESC LIMIT ?`)
      .all(likeSubstring(q), limit);
  }

  recent(limit: number): PlayerRow[] {
    return this.db.query<PlayerRow, [number]>(`SELECT ${PLAYER_COLUMNS} FROM player_tracking ORDER BY last_seen DESC LIMIT ?`).all(limit);
  }

  uniquePlayers(): number {
    return this.db.query<{ n: number }, []>('SELECT count(*) AS n FROM player_tracking').get()!.n;
  }

  /** Deletes closed sessions that ended before `cutoff` (the totals stay in player_tracking). */
  pruneClosed(cutoff: number): number {
    return this.db.query('DELETE FROM player_sessions WHERE disconnected_at IS NOT NULL AND disconnected_at < ?').run(cutoff).changes;
  }

  state(key: string): number | undefined {
    return this.db.query<{ value: number }, [string]>('SELECT value FROM players_state WHERE key = ?').get(key)?.value;
  }

  setState(key: string, value: number): void {
    this.db.query('INSERT INTO players_state (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2').run(key, value);
  }
}
