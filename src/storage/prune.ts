import type { Database } from 'bun:sqlite';

/**
 * Deletes the rows of `table` older than the cutoff (column `ts`, epoch ms) in small batches,
 * yielding to the event loop between batches so API requests never wait behind one long delete.
 * Returns the count removed.
 */
export async function pruneOlderThan(db: Database, table: 'audit_log' | 'service_metrics' | 'network_samples' | 'service_events' | 'timeline', olderThanMs: number, batchSize: number): Promise<number> {
  const batch = db.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ts < ? LIMIT ?)`);
  let removed = 0;
  for (;;) {
    const { changes } = batch.run(olderThanMs, batchSize);
    removed += changes;
    if (changes < batchSize) return removed;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
