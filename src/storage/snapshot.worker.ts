/**
 * The snapshot thread (snapshot.ts starts it): its own connection to the database file, one
 * `VACUUM INTO`, one answer.
 */
import { Database } from 'bun:sqlite';
import { serveMessages } from '../core/threads/serve-messages';

export interface SnapshotRequest {
  source: string;
  dest: string;
}
export type SnapshotReply = { ok: true } | { ok: false; message: string };

serveMessages<SnapshotRequest, SnapshotReply>(({ source, dest }, reply) => {
  let db: Database | undefined;
  try {
    db = new Database(source);
    db.run('PRAGMA busy_timeout = 5000');
    db.query('VACUUM INTO ?').run(dest);
    reply({ ok: true });
  } catch (error) {
    reply({ ok: false, message: String((error as { message?: unknown }).message ?? error) });
  } finally {
    try {
      db?.close();
    } catch {
      // closing a connection that failed to open
    }
  }
});
