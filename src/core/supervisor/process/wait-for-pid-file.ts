import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { watchDir } from './watch-dir';

/** Behind the directory watch, in case the event is missed (or came before the watch was set up). */
const POLL_MS = 20;

/**
 * Resolves with the pid the wrapper writes (complete once it ends in "\n"); rejects if the
 * wrapper exits first or after `timeoutMs`.
 */
export function waitForPidFile(path: string, wrapperExited: Promise<number>, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let done = false;
    const settle = (outcome: () => void) => {
      if (done) return;
      done = true;
      watcher.close();
      clearInterval(poll);
      clearTimeout(timer);
      outcome();
    };
    const check = () => {
      const pid = readPid(path);
      if (pid !== undefined) settle(() => resolve(pid));
    };
    const watcher = watchDir(dirname(path), (filename) => {
      if (filename === null || filename === basename(path)) check();
    });
    const poll = setInterval(check, POLL_MS);
    const timer = setTimeout(() => settle(() => reject(new Error(`no server pid in ${path} after ${timeoutMs} ms`))), timeoutMs);
    void wrapperExited.then((code) => {
      check(); // it may have written the pid and ended at once (a server that exits immediately)
      settle(() => reject(new Error(`the process wrapper exited with code ${code} before starting the server`)));
    });
    check();
  });
}

function readPid(path: string): number | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    if (!text.endsWith('\n')) return undefined;
    const pid = Number.parseInt(text, 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
