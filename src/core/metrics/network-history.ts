import type { Database } from 'bun:sqlite';
import { pruneOlderThan } from '../../storage/prune';
import { holdsPlayers } from '../players/tracker';
import type { ServiceRecord } from '../services/registry';
import { MAX_SAMPLES } from './service-history';

/** One point of `GET /api/metrics/players/history`. */
export interface PlayerSample {
  timestamp: string;
  totalPlayers: number;
  byGroup: Record<string, number>;
}

/** `minutes` of the player history: default 60, clamped to 5..1440 (as the service history). */
export function historyMinutes(minutes: number | undefined): number {
  return Math.min(1440, Math.max(5, minutes ?? 60));
}

/** Picks at most `max` rows spread evenly over `rows`, the first and the last always among them. */
export function thinEvenly<T>(rows: readonly T[], max: number): T[] {
  if (rows.length <= max) return [...rows];
  if (max <= 1) return rows.slice(-max);
  const step = (rows.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => rows[Math.round(i * step)]!);
}

/** Serving: READY, or DRAINING (still holding its players). */
export function isUp(s: Pick<ServiceRecord, 'state'>): boolean {
  return s.state === 'READY' || s.state === 'DRAINING';
}

/**
 * Meant to serve and not serving: CRASHED and neither replaced nor stopped yet, or a crash
 * restart still booting. Warm-pool instances never served anyone and never count.
 */
export function isDown(s: Pick<ServiceRecord, 'state' | 'restartCount' | 'pooled'>): boolean {
  if (s.pooled) return false;
  if (s.state === 'CRASHED') return true;
  return s.restartCount > 0 && (s.state === 'PREPARING' || s.state === 'STARTING');
}

export interface NetworkHistoryDeps {
  db: Database;
  records: () => readonly ServiceRecord[];
  /** Players on the network: `PlayerTracker.networkTotal`, the figure `/api/status` shows. */
  networkPlayers: () => number;
  /** The byGroup keys every sample carries, 0 included. */
  groupNames: () => string[];
}

/**
 * The network at every sample tick, in sqlite: players in total and by group (counted as
 * `/api/status` counts them: simulated stress-test players are never in a service's count),
 * and how many services were up and down, for the uptime figure. Pruned like the service
 * history by `[metrics] retention_days`.
 */
export class NetworkHistory {
  private readonly insert;

  constructor(private readonly deps: NetworkHistoryDeps) {
    this.insert = deps.db.prepare('INSERT INTO network_samples (ts, total_players, by_group, up_services, down_services) VALUES (?, ?, ?, ?, ?)');
  }

  /** Records one sample and returns it. */
  sample(now = Date.now()): PlayerSample & { up: number; down: number } {
    const records = this.deps.records();
    const byGroup = new Map(this.deps.groupNames().map((name) => [name, 0]));
    for (const s of records) if (holdsPlayers(s)) byGroup.set(s.group, (byGroup.get(s.group) ?? 0) + s.playerCount);
    const totalPlayers = this.deps.networkPlayers();
    const up = records.filter(isUp).length;
    const down = records.filter(isDown).length;
    const groups = Object.fromEntries(byGroup);
    this.insert.run(now, totalPlayers, JSON.stringify(groups), up, down);
    return { timestamp: new Date(now).toISOString(), totalPlayers, byGroup: groups, up, down };
  }

  /** Samples of the last `minutes`, oldest first, thinned evenly to at most MAX_SAMPLES. */
  players(minutes: number, now = Date.now()): PlayerSample[] {
    const rows = this.deps.db
      .query<{ ts: number; total_players: number; by_group: string }, [number, number]>('SELECT ts, total_players, by_group FROM network_samples WHERE ts >= ? AND ts <= ? ORDER BY ts')
      .all(now - minutes * 60_000, now);
    return thinEvenly(rows, MAX_SAMPLES).map((r) => ({ timestamp: new Date(r.ts).toISOString(), totalPlayers: r.total_players, byGroup: parseCounts(r.by_group) }));
  }

  /**
   * Service availability since `sinceMs`: of the service-samples that were up or down, the
   * percentage up. 100 when no sample saw a service up or down (nothing was unavailable).
   */
  availability(sinceMs: number, now = Date.now()): number {
    const row = this.deps.db
      .query<{ up: number | null; down: number | null }, [number, number]>('SELECT SUM(up_services) AS up, SUM(down_services) AS down FROM network_samples WHERE ts >= ? AND ts <= ?')
      .get(sinceMs, now);
    const up = row?.up ?? 0;
    const down = row?.down ?? 0;
    if (up + down === 0) return 100;
    return Math.round((100_000 * up) / (up + down)) / 1000;
  }

  prune(olderThanMs: number, batchSize = 1000): Promise<number> {
    return pruneOlderThan(this.deps.db, 'network_samples', olderThanMs, batchSize);
  }
}

/** A stored by_group object; anything but non-negative integers is dropped (the column is ours, but never trusted to crash a read). */
function parseCounts(text: string): Record<string, number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, number] => Number.isInteger(entry[1]) && entry[1] >= 0));
}
