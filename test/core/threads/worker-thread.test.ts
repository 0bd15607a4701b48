import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { workerEntryPoints } from '../../../build';
import { startWorker, workerUrl } from '../../../src/core/threads/worker-thread';
import type { QuickCheckReply, QuickCheckRequest } from '../../../src/storage/quick-check.worker';
import { tempDir } from '../../support/controller';

const SRC = join(import.meta.dir, '../../../src');
/** The dashboard's browser code: its Web Worker and blob URLs are the browser's, not worker threads. */
const BROWSER_APP = join(SRC, 'dashboard', 'app');

/** The controller's own source files (what runs in Bun). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (path === BROWSER_APP) return [];
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('worker threads: one way to load them', () => {
  test('every worker the code starts is a *.worker.ts file under src/ that build.ts compiles in', () => {
    const started = sourceFiles(SRC).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/startWorker<[^>]*>\('([^']+)'\)/g)].map((m) => m[1]!));
    expect(started.length).toBeGreaterThanOrEqual(5);
    const built = workerEntryPoints().map((path) => relative(SRC, path));
    for (const path of started) expect(built).toContain(path);
  });

  test('no worker is started from a source string or any other way', () => {
    const others = sourceFiles(SRC)
      .filter((file) => !file.endsWith(join('core', 'threads', 'worker-thread.ts')))
      .filter((file) => /new Worker\(|createObjectURL\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(others).toEqual([]);
  });

  test('from source, a path resolves to the file under src/', () => {
    expect(new URL(workerUrl('storage/snapshot.worker.ts')).pathname).toBe(join(SRC, 'storage/snapshot.worker.ts'));
  });

  test('a started worker takes typed messages and answers through serveMessages', async () => {
    const dir = tempDir('svc-worker-');
    const file = join(dir.dir, 'check.db');
    const db = new Database(file);
    db.run('CREATE TABLE t (x INTEGER)');
    db.close();
    const worker = startWorker<QuickCheckRequest, QuickCheckReply>('storage/quick-check.worker.ts');
    try {
      const reply = await new Promise<QuickCheckReply>((resolve, reject) => {
        worker.onMessage(resolve);
        worker.onError((message) => reject(new Error(message)));
        worker.post({ file });
      });
      expect(reply).toEqual({ ok: true, rows: ['ok'] });
    } finally {
      await worker.terminate();
      dir.remove();
    }
  });
});
