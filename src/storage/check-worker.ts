import { Database } from 'bun:sqlite';
import { checkProblems, quickCheck } from './db';

/**
 * The worker: its own read-only connection, one `PRAGMA quick_check(10)`, then it ends. Plain
 * JavaScript from a blob URL (as the checkpointer's and the snapshot's), so the binary needs no
 * extra entry point.
 */
const WORKER_SOURCE = `
import { Database } from 'bun:sqlite';
self.onmessage = (event) => {
  let db;
  try {
    db = new Database(event.data.file, { readonly: true });
    db.run('PRAGMA busy_timeout = 5000');
    const rows = db.query('PRAGMA quick_check(10)').all().map((row) => row.quick_check);
    postMessage({ ok: true, rows });
  } catch (error) {
    postMessage({ ok: false, code: String((error && error.code) || ''), message: String((error && error.message) || error) });
  } finally {
    try { db?.close(); } catch {}
  }
};`;

type Reply = { ok: true; rows: string[] } | { ok: false; code: string; message: string };

/**
 * `quick_check` of a live database file off the event loop (it reads every page: about half a
 * second for a 200 MiB database, which a request must not wait behind). The problems it lists,
 * none when sound; throws what opening the file threw. Without workers it runs here.
 */
export async function quickCheckFile(file: string): Promise<string[]> {
  let worker: Worker;
  try {
    worker = new Worker(URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'application/javascript' })));
  } catch {
    const db = new Database(file, { readonly: true });
    try {
      return quickCheck(db);
    } finally {
      db.close();
    }
  }
  try {
    const reply = await new Promise<Reply>((resolve) => {
      worker.onmessage = (event: MessageEvent<Reply>) => resolve(event.data);
      worker.onerror = (event: ErrorEvent) => resolve({ ok: false, code: '', message: event.message });
      worker.postMessage({ file });
    });
    if (!reply.ok) throw Object.assign(new Error(reply.message), { code: reply.code });
    return checkProblems(reply.rows);
  } finally {
    await worker.terminate();
  }
}
