import type { Database } from 'bun:sqlite';

/** What a remote console says about itself in its hello. */
export interface CliClient {
  username: string;
  hostname: string;
  os: string;
}

export interface CliSessionRow {
  id: string;
  remoteIp: string;
  client: CliClient;
  location: string;
  connectedAt: number;
  disconnectedAt: number | null;
  durationSeconds: number | null;
  commandCount: number;
}

interface Row {
  id: string;
  remote_ip: string;
  client_username: string;
  client_hostname: string;
  client_os: string;
  location: string;
  connected_at: number;
  disconnected_at: number | null;
  duration_seconds: number | null;
  command_count: number;
}

/** The cli_sessions table: one row per remote console session, closed when it disconnects. */
export class CliSessionStore {
  constructor(private readonly db: Database) {}

  open(session: { id: string; remoteIp: string; client: CliClient; location: string; at: number }): void {
    this.db
      .query('INSERT INTO cli_sessions (id, remote_ip, client_username, client_hostname, client_os, location, connected_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(session.id, session.remoteIp, session.client.username, session.client.hostname, session.client.os, session.location, session.at);
  }

  /**
   * Records the end of a session; returns its length in whole seconds: `lengthMs` when the
   * caller measured it (on the monotonic clock, so a wall-clock step does not stretch it), else
   * from the wall-clock times stored.
   */
  close(id: string, at: number, commandCount: number, lengthMs?: number): number {
    const row = this.db.query<{ connected_at: number }, [string]>('SELECT connected_at FROM cli_sessions WHERE id = ?').get(id);
    const duration = lengthMs !== undefined ? Math.max(0, Math.round(lengthMs / 1000)) : row ? Math.max(0, Math.round((at - row.connected_at) / 1000)) : 0;
    this.db.query('UPDATE cli_sessions SET disconnected_at = ?, duration_seconds = ?, command_count = ? WHERE id = ?').run(at, duration, commandCount, id);
    return duration;
  }

  /**
   * Sessions a previous controller left open (it was killed): they ended when it did, at the
   * latest; they are closed now with the time known, so no row claims to be live forever.
   */
  closeDangling(at: number): number {
    return this.db.query('UPDATE cli_sessions SET disconnected_at = ?, duration_seconds = MAX(0, (? - connected_at) / 1000) WHERE disconnected_at IS NULL').run(at, at).changes;
  }

  recent(limit: number): CliSessionRow[] {
    return this.db
      .query<Row, [number]>('SELECT * FROM cli_sessions ORDER BY connected_at DESC, rowid DESC LIMIT ?')
      .all(limit)
      .map((r) => ({
        id: r.id,
        remoteIp: r.remote_ip,
        client: { username: r.client_username, hostname: r.client_hostname, os: r.client_os },
        location: r.location,
        connectedAt: r.connected_at,
        disconnectedAt: r.disconnected_at,
        durationSeconds: r.duration_seconds,
        commandCount: r.command_count,
      }));
  }
}
