/**
 * The checkpoint thread (checkpointer.ts starts it): its own connection to the same file, a WAL
 * checkpoint per message.
 */
import { Database } from 'bun:sqlite';
import { serveMessages } from '../core/threads/serve-messages';

export type CheckpointRequest = { type: 'open'; path: string } | { type: 'checkpoint'; mode: 'PASSIVE' | 'FULL' | 'RESTART' | 'TRUNCATE' } | { type: 'close' };
export type CheckpointReply = { type: 'opened' | 'closed' } | { type: 'done'; busy: number; log: number; checkpointed: number } | { type: 'error'; message: string };

let db: Database | undefined;

serveMessages<CheckpointRequest, CheckpointReply>((message, reply) => {
  try {
    if (message.type === 'open') {
      db = new Database(message.path);
      db.run('PRAGMA busy_timeout = 5000');
      reply({ type: 'opened' });
    } else if (message.type === 'checkpoint') {
      if (!db) throw new Error('checkpoint before open');
      const row = db.query<{ busy: number; log: number; checkpointed: number }, []>(`PRAGMA wal_checkpoint(${message.mode})`).get();
      if (!row) throw new Error('wal_checkpoint answered nothing');
      reply({ type: 'done', busy: row.busy, log: row.log, checkpointed: row.checkpointed });
    } else {
      db?.close();
      reply({ type: 'closed' });
    }
  } catch (error) {
    reply({ type: 'error', message: String((error as { message?: unknown }).message ?? error) });
  }
});
