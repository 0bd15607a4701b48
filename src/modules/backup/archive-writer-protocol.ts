/** Messages between createArchive (main thread) and the archive writer thread (archive-writer.worker.ts). */

/** Main thread → writer. */
export type ToWriter =
  | { op: 'init'; fd: number; level: number; workers: number; chunkSize: number; syncEvery: number; gcEvery: number }
  /** A block of tar bytes; its buffer is transferred and comes back in a `free` message. */
  | { op: 'block'; buffer: ArrayBuffer; length: number }
  /** No more blocks: compress what is queued, write, fsync, answer `done`. */
  | { op: 'finish' }
  /** Abandon the archive: nothing is written after this message; answers `stopped`. */
  | { op: 'stop' };

/** Writer → main thread. */
export type FromWriter =
  | { op: 'free'; buffer: ArrayBuffer }
  | { op: 'failed'; message: string }
  | { op: 'done'; checksum: string; size: number }
  | { op: 'stopped' };
