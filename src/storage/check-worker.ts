import { Database } from 'bun:sqlite';
import { startWorker, type WorkerThread } from '../core/threads/worker-thread';
import { checkProblems, quickCheck } from './db';
import type { QuickCheckReply, QuickCheckRequest } from './quick-check.worker';

/**
 * `quick_check` of a live database file off the event loop (it reads every page: about half a
 * second for a 200 MiB database, which a request must not wait behind). The problems it lists,
 * none when sound; throws what opening the file threw. Without workers it runs here.
 */
export async function quickCheckFile(file: string): Promise<string[]> {
  let worker: WorkerThread<QuickCheckRequest, QuickCheckReply>;
  try {
    worker = startWorker<QuickCheckRequest, QuickCheckReply>('storage/quick-check.worker.ts');
  } catch {
    const db = new Database(file, { readonly: true });
    try {
      return quickCheck(db);
    } finally {
      db.close();
    }
  }
  try {
    const reply = await new Promise<QuickCheckReply>((resolve) => {
      worker.onMessage(resolve);
      worker.onError((message) => resolve({ ok: false, code: '', message }));
      worker.post({ file });
    });
    if (!reply.ok) throw Object.assign(new Error(reply.message), { code: reply.code });
    return checkProblems(reply.rows);
  } finally {
    await worker.terminate();
  }
}
