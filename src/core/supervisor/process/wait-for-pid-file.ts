import { readFileSync } from 'node:fs';
import { watchUntil } from './watch-until';

/** Behind the folder watch. */
const POLL_MS = 20;

/**
 * Resolves with the pid the wrapper writes (complete once it ends in "\n"); rejects if the
 * wrapper exits first or after `timeoutMs`.
 */
export function waitForPidFile(path: string, wrapperExited: Promise<number>, timeoutMs: number): Promise<number> {
  return watchUntil<number>(
    path,
    {
      pollMs: POLL_MS,
      timeoutMs,
      wrapperExited,
      timeoutError: () => new Error(`no server pid in ${path} after ${timeoutMs} ms`),
      exitedError: (code) => new Error(`the process wrapper exited with code ${code} before starting the server`),
    },
    () => {
      const pid = readPid(path);
      return pid === undefined ? undefined : { value: pid };
    },
  );
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
