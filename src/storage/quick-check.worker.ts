/**
 * The quick-check thread (check-worker.ts starts it): its own read-only connection, one
 * `PRAGMA quick_check(10)`, one answer.
 */
import { Database } from 'bun:sqlite';
import { serveMessages } from '../core/threads/serve-messages';

export interface QuickCheckRequest {
  file: string;
}
export type QuickCheckReply = { ok: true; rows: string[] } | { ok: false; code: string; message: string };

serveMessages<QuickCheckRequest, QuickCheckReply>(({ file }, reply) => {
  let db: Database | undefined;
  try {
    db = new Database(file, { readonly: true });
    db.run('PRAGMA busy_timeout = 5000');
    const rows = db.query<{ quick_check: string }, []>('PRAGMA quick_check(10)').all().map((row) => row.quick_check);
    reply({ ok: true, rows });
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    reply({ ok: false, code: String(code ?? ''), message: String(message ?? error) });
  } finally {
    try {
      db?.close();
    } catch {
      // closing a connection that failed to open
    }
  }
});
