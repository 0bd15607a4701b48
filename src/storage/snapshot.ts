import type { Database } from 'bun:sqlite';

/**
 * The worker: its own connection to the database file, one `VACUUM INTO`, then it ends. Plain
 * JavaScript loaded from a blob URL (as the checkpointer's), so the binary needs no extra entry
 * point.
 */
const WORKER_SOURCE = `
import { Database } from 'bun:sqlite';
self.onmessage = (event) => {
  const { source, dest } = event.data;
  let db;
  try {
    db = new Database(source);
    db.run('PRAGMA busy_timeout = 5000');
    db.query('VACUUM INTO ?').run(dest);
    postMessage({ ok: true });
  } catch (error) {
    postMessage({ ok: false, message: String((error && error.message) || error) });
  } finally {
    try { db?.close(); } catch {}
  }
};`;

/**
 * A consistent copy of a live WAL database at `dest`, taken by SQLite itself (`VACUUM INTO`
 * reads one snapshot while writers go on), on a worker thread with its own connection: a copy
 * of a large database takes seconds, and on the main connection nothing else would be served
 * meanwhile. When no worker can be started it runs on `db`, the controller's own connection.
 */
export async function snapshotDatabase(db: Database, source: string, dest: string): Promise<void> {
  let worker: Worker;
  try {
    worker = new Worker(URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'application/javascript' })));
  } catch {
    db.query('VACUUM INTO ?').run(dest);
    return;
  }
  try {
    const reply = await new Promise<{ ok: true } | { ok: false; message: string }>((resolve) => {
      worker.onmessage = (event: MessageEvent<{ ok: true } | { ok: false; message: string }>) => resolve(event.data);
      worker.onerror = (event: ErrorEvent) => resolve({ ok: false, message: event.message });
      worker.postMessage({ source, dest });
    });
    if (!reply.ok) throw new Error(`database snapshot failed: ${reply.message}`);
  } finally {
    await worker.terminate();
  }
}
