import type { Database } from 'bun:sqlite';
import { startWorker, type WorkerThread } from '../core/threads/worker-thread';
import type { SnapshotReply, SnapshotRequest } from './snapshot.worker';

/**
 * A consistent copy of a live WAL database at `dest`, taken by SQLite itself (`VACUUM INTO`
 * reads one snapshot while writers go on), on a worker thread with its own connection: a copy
 * of a large database takes seconds, and on the main connection nothing else would be served
 * meanwhile. When no worker can be started it runs on `db`, the controller's own connection.
 */
export async function snapshotDatabase(db: Database, source: string, dest: string): Promise<void> {
  let worker: WorkerThread<SnapshotRequest, SnapshotReply>;
  try {
    worker = startWorker<SnapshotRequest, SnapshotReply>('storage/snapshot.worker.ts');
  } catch {
    db.query('VACUUM INTO ?').run(dest);
    return;
  }
  try {
    const reply = await new Promise<SnapshotReply>((resolve) => {
      worker.onMessage(resolve);
      worker.onError((message) => resolve({ ok: false, message }));
      worker.post({ source, dest });
    });
    if (!reply.ok) throw new Error(`database snapshot failed: ${reply.message}`);
  } finally {
    await worker.terminate();
  }
}
