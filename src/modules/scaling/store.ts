import type { Database } from 'bun:sqlite';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/** What the engine and this module decided, as stored and served. */
export interface DecisionRow {
  at: number;
  group: string;
  /** scale_up, scale_down (the core engine); smart_schedule, smart_warmup, smart_prediction (this module). */
  action: string;
  reason: string;
  /** engine, schedule, warmup, prediction. */
  source: string;
  servicesStarted: number;
}

export interface HourAggregate {
  /** Start of the hour, epoch ms. */
  hourMs: number;
  samples: number;
  playersSum: number;
  playersMax: number;
  servicesSum: number;
}

/**
 * The module's tables. Samples are keyed by (group id, epoch minute) in a table without rowid
 * (90 days of 50 groups is 6.5 million rows, so every byte counts); each sample also adds to its
 * hour's aggregate in the same transaction, so the history route reads at most 2,160 rows.
 */
export class ScalingStore {
  private readonly groupIds = new Map<string, number>();

  constructor(private readonly db: Database) {}

  /** The group's id, created on first use; names are the groups' own spelling. */
  private idOf(group: string): number {
    const known = this.groupIds.get(group);
    if (known !== undefined) return known;
    this.db.query('INSERT OR IGNORE INTO scaling_groups (name) VALUES (?)').run(group);
    const id = this.db.query<{ id: number }, [string]>('SELECT id FROM scaling_groups WHERE name = ?').get(group)!.id;
    this.groupIds.set(group, id);
    return id;
  }

  private existingId(group: string): number | undefined {
    const known = this.groupIds.get(group);
    if (known !== undefined) return known;
    const row = this.db.query<{ id: number }, [string]>('SELECT id FROM scaling_groups WHERE name = ?').get(group);
    if (row) this.groupIds.set(group, row.id);
    return row?.id;
  }

  /** One sample per group for the minute of `at`; a second one for the same minute replaces nothing (the first stands). */
  addSamples(at: number, samples: readonly { group: string; players: number; services: number }[]): number {
    const minute = Math.floor(at / MINUTE_MS);
    const hour = Math.floor(at / HOUR_MS);
    const insert = this.db.query('INSERT OR IGNORE INTO scaling_samples (group_id, minute, players, services) VALUES (?, ?, ?, ?)');
    const aggregate = this.db.query(
      `INSERT INTO scaling_hourly (group_id, hour, samples, players_sum, players_max, services_sum) VALUES (?1, ?2, 1, ?3, ?3, ?4)
       ON CONFLICT (group_id, hour) DO UPDATE SET samples = samples + 1, players_sum = players_sum + ?3, players_max = max(players_max, ?3), services_sum = services_sum + ?4`,
    );
    let added = 0;
    this.db.transaction(() => {
      for (const s of samples) {
        const id = this.idOf(s.group);
        if (insert.run(id, minute, s.players, s.services).changes === 0) continue;
        aggregate.run(id, hour, s.players, s.services);
        added++;
      }
    })();
    return added;
  }

  /** Player counts of the group's samples in [fromMs, toMs). */
  playersBetween(group: string, fromMs: number, toMs: number): number[] {
    const id = this.existingId(group);
    if (id === undefined) return [];
    return this.db
      .query<{ players: number }, [number, number, number]>('SELECT players FROM scaling_samples WHERE group_id = ? AND minute >= ? AND minute < ?')
      .all(id, Math.ceil(fromMs / MINUTE_MS), Math.ceil(toMs / MINUTE_MS))
      .map((r) => r.players);
  }

  /** The group's hourly aggregates of the hours containing [fromMs, toMs), oldest first (a clock stepped back leaves later rows; they are not "since"). */
  hoursBetween(group: string, fromMs: number, toMs: number): HourAggregate[] {
    const id = this.existingId(group);
    if (id === undefined) return [];
    return this.db
      .query<{ hour: number; samples: number; players_sum: number; players_max: number; services_sum: number }, [number, number, number]>(
        'SELECT hour, samples, players_sum, players_max, services_sum FROM scaling_hourly WHERE group_id = ? AND hour >= ? AND hour < ? ORDER BY hour',
      )
      .all(id, Math.floor(fromMs / HOUR_MS), Math.ceil(toMs / HOUR_MS))
      .map((r) => ({ hourMs: r.hour * HOUR_MS, samples: r.samples, playersSum: r.players_sum, playersMax: r.players_max, servicesSum: r.services_sum }));
  }

  addDecision(d: DecisionRow): void {
    this.db.query('INSERT INTO scaling_decisions (at, group_name, action, reason, source, services_started) VALUES (?, ?, ?, ?, ?, ?)').run(d.at, d.group, d.action, d.reason, d.source, d.servicesStarted);
  }

  /** Newest first; `group` matches in any case. */
  decisions(limit: number, group?: string): { decisions: DecisionRow[]; total: number } {
    type Row = { at: number; group_name: string; action: string; reason: string; source: string; services_started: number };
    const where = group === undefined ? '' : 'WHERE group_name = ? COLLATE NOCASE';
    const params = group === undefined ? [] : [group];
    const rows = this.db.query<Row, (string | number)[]>(`SELECT at, group_name, action, reason, source, services_started FROM scaling_decisions ${where} ORDER BY at DESC, id DESC LIMIT ?`).all(...params, limit);
    const total = this.db.query<{ n: number }, string[]>(`SELECT count(*) AS n FROM scaling_decisions ${where}`).get(...params)!.n;
    return { decisions: rows.map((r) => ({ at: r.at, group: r.group_name, action: r.action, reason: r.reason, source: r.source, servicesStarted: r.services_started })), total };
  }

  /** Drops samples, aggregates and decisions older than `beforeMs`; how many rows went. Per group, so each delete is a range of the primary key, not a scan. */
  prune(beforeMs: number): number {
    let removed = 0;
    const minute = Math.floor(beforeMs / MINUTE_MS);
    const hour = Math.floor(beforeMs / HOUR_MS);
    const samples = this.db.query('DELETE FROM scaling_samples WHERE group_id = ? AND minute < ?');
    const hours = this.db.query('DELETE FROM scaling_hourly WHERE group_id = ? AND hour < ?');
    this.db.transaction(() => {
      for (const { id } of this.db.query<{ id: number }, []>('SELECT id FROM scaling_groups').all()) {
        removed += samples.run(id, minute).changes;
        removed += hours.run(id, hour).changes;
      }
      removed += this.db.query('DELETE FROM scaling_decisions WHERE at < ?').run(beforeMs).changes;
    })();
    return removed;
  }
}
