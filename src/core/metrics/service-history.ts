import type { Database } from 'bun:sqlite';
import { pruneOlderThan } from '../../storage/prune';
import { memoryUsedMb } from '../services/view';
import type { ServiceRegistry } from '../services/registry';

export interface ServiceSample {
  timestamp: string;
  memoryUsedMb: number;
  memoryMaxMb: number;
  playerCount: number;
}

/** At most this many samples per answer (spec); longer windows are thinned evenly. */
export const MAX_SAMPLES = 2000;
export const SAMPLE_INTERVAL_MS = 10_000;

/**
 * Memory and player samples of every running service, every 10 s, in sqlite; old samples are
 * pruned by `[metrics] retention_days` in small batches.
 */
export class ServiceHistory {
  private readonly insert;

  constructor(
    private readonly db: Database,
    private readonly registry: ServiceRegistry,
  ) {
    this.insert = db.prepare('INSERT INTO service_metrics (ts, service, memory_used_mb, memory_max_mb, player_count) VALUES (?, ?, ?, ?, ?)');
  }

  /** Records one sample of every service that has a process. */
  sample(now = Date.now()): number {
    const running = this.registry.all().filter((s) => s.pid !== null);
    this.db.transaction(() => {
      for (const s of running) this.insert.run(now, s.name, memoryUsedMb(s), s.memoryMaxMb, s.playerCount);
    })();
    return running.length;
  }

  /** Samples of the last `minutes`, oldest first, thinned to at most MAX_SAMPLES. */
  history(service: string, minutes: number, now = Date.now()): ServiceSample[] {
    const rows = this.db
      .query<{ ts: number; memory_used_mb: number; memory_max_mb: number; player_count: number }, [string, number]>(
        'SELECT ts, memory_used_mb, memory_max_mb, player_count FROM service_metrics WHERE service = ? AND ts >= ? ORDER BY ts',
      )
      .all(service, now - minutes * 60_000);
    const step = Math.max(1, Math.ceil(rows.length / MAX_SAMPLES));
    return rows
      .filter((_, i) => i % step === 0)
      .map((r) => ({ timestamp: new Date(r.ts).toISOString(), memoryUsedMb: r.memory_used_mb, memoryMaxMb: r.memory_max_mb, playerCount: r.player_count }));
  }

  prune(olderThanMs: number, batchSize = 1000): Promise<number> {
    return pruneOlderThan(this.db, 'service_metrics', olderThanMs, batchSize);
  }
}
