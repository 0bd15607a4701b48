import { basename, dirname } from 'node:path';
import { watchDir } from './watch-dir';

/** What one look at the file found: an answer, a reason to give up, or nothing yet. */
export type Look<T> = { value: T } | { error: Error } | undefined;

export interface WatchUntilOptions {
  /** Behind the folder watch, in case an event is missed (or came before the watch was set up). */
  pollMs: number;
  timeoutMs: number;
  /** The wrapper's exit: one last look (`final`), then `exitedError` unless that look answered. */
  wrapperExited: Promise<number>;
  timeoutError: () => Error;
  exitedError: (code: number) => Error;
}

/**
 * Waits for a file the wrapper (or the sandbox) writes into the state dir to say something:
 * `look` runs at once, on every change in the file's folder, every `pollMs`, and a last time
 * when the wrapper exits. Settles once; the watch and timers are released when it does.
 */
export function watchUntil<T>(path: string, options: WatchUntilOptions, look: (final: boolean) => Look<T>): Promise<T> {
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
    const check = (final: boolean) => {
      if (done) return;
      const found = look(final);
      if (found === undefined) return;
      if ('error' in found) settle(() => reject(found.error));
      else settle(() => resolve(found.value));
    };
    const watcher = watchDir(dirname(path), (filename) => {
      if (filename === null || filename === basename(path)) check(false);
    });
    const poll = setInterval(() => check(false), options.pollMs);
    const timer = setTimeout(() => settle(() => reject(options.timeoutError())), options.timeoutMs);
    void options.wrapperExited.then((code) => {
      check(true); // it may have written its answer and ended at once (a server that exits immediately)
      settle(() => reject(options.exitedError(code)));
    });
    check(false);
  });
}
