/** Messages between createArchive (main thread) and the archive writer thread (writer.worker.ts). */

/** Main thread → writer. */
export type ToWriter =
  | { op: 'init'; fd: number; gcEvery: number }
  /** The next zstd frame of the archive, in order; its buffer is transferred. Answered by `written` once written (not yet fsynced). */
  | { op: 'frame'; buffer: ArrayBuffer; length: number }
  /** No more frames: fsync, answer `done`. */
  | { op: 'finish' }
  /** Abandon the archive: nothing is written after this message; answers `stopped`. */
  | { op: 'stop' };

/** Writer → main thread. */
export type FromWriter =
  | { op: 'written'; bytes: number }
  | { op: 'failed'; message: string }
  | { op: 'done'; checksum: string; size: number }
  | { op: 'stopped' };
