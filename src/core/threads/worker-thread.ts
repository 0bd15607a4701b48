/**
 * The one way worker code is loaded. A worker thread's code is a TypeScript file under src/
 * named `*.worker.ts`, typed by the messages it takes and answers (see serveMessages for its
 * side); build.ts makes every such file an entry point of the compiled binary. It is started by
 * its path from src/, which is how the binary's embedded files are laid out too.
 */

/** A worker file's path from src/, e.g. `storage/snapshot.worker.ts`. */
export type WorkerPath = `${string}.worker.ts`;

/** Buffers a message hands over to the other thread (they are detached on this side). */
export type Transfer = Bun.Transferable[];

/** A started worker, typed by what it takes (`In`) and answers (`Out`). */
export interface WorkerThread<In, Out> {
  /** Sends a message; buffers in `transfer` move to the thread. */
  post(message: In, transfer?: Transfer): void;
  /** Sets the handler of the thread's answers. */
  onMessage(handler: (message: Out) => void): void;
  /** Sets the handler of an uncaught error in the thread (its code is broken). */
  onError(handler: (message: string) => void): void;
  /** The thread no longer keeps the process alive. */
  unref(): void;
  /** Ends the thread (Bun ends it at once; awaiting the answer is harmless). */
  terminate(): ReturnType<Worker['terminate']>;
}

/** Starts the worker in `path`; throws when this runtime cannot start workers. */
export function startWorker<In, Out>(path: WorkerPath): WorkerThread<In, Out> {
  const worker = new Worker(workerUrl(path));
  return {
    post: (message, transfer = []) => worker.postMessage(message, transfer),
    onMessage: (handler) => {
      worker.onmessage = (event: MessageEvent<Out>) => handler(event.data);
    },
    onError: (handler) => {
      worker.onerror = (event: ErrorEvent) => handler(event.message);
    },
    unref: () => worker.unref(),
    terminate: () => worker.terminate(),
  };
}

/**
 * Where `path` is loaded from. In the compiled binary every module sits in Bun's embedded file
 * system (`/$bunfs/root/` on Unix, `B:/~BUN/root/` on Windows), laid out relative to the entry
 * points' common folder (src/), and a module's import.meta.url is the binary's; from source it
 * is the file beside this one's folder.
 */
export function workerUrl(path: WorkerPath): string {
  const compiled = import.meta.url.includes('/$bunfs/') || import.meta.url.includes('/~BUN/');
  return compiled ? `./${path}` : new URL(`../../${path}`, import.meta.url).href;
}
