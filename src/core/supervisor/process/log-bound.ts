/**
 * How much of console.log a running server may keep on disk. The server appends to it itself
 * (O_APPEND, so the output survives a controller that is away) and may run for months.
 */
export interface LogBound {
  /** Once this many bytes past the last trim are on disk, the log is trimmed... */
  maxBytes: number;
  /** ...down to (about) its last this many bytes. Every reader of the log reads less than this from its end. */
  keepBytes: number;
}

/** 64 MiB at most, trimmed to the last 8 MiB (what the logs route reads is 4 MiB, a re-attach 256 KiB). */
export const DEFAULT_LOG_BOUND: LogBound = { maxBytes: 64 * 1024 * 1024, keepBytes: 8 * 1024 * 1024 };

/** Holes are punched in whole file-system blocks; 64 KiB is a multiple of every common block size. */
const ALIGN = 64 * 1024;

/**
 * Keeps a console log's disk use bounded while the server writes it, without losing a line
 * and without moving a byte: the start of the file is turned into a hole (fallocate
 * PUNCH_HOLE, KEEP_SIZE). The file keeps its length and every offset keeps its meaning, so the
 * server's O_APPEND writes, the tail's read offset, a re-attach offset and lastLines are all
 * unaffected: only the punched bytes, long delivered, now read as zeros. (Copy-and-truncate
 * would lose whatever the server appends between the copy and the truncate, and would move
 * every offset under the tail; a collapse of the range would move them too.)
 *
 * Only what the tail has already read is punched (`afterRead` is given its offset). Best
 * effort: where the file system cannot punch holes, or util-linux `fallocate` is missing
 * (macOS), the log grows as before and `onUnbounded` says why, once.
 */
export class LogTrimmer {
  #trimmedTo = 0;
  #running = false;
  #stopped = false;

  constructor(
    private readonly path: string,
    private readonly bound: LogBound,
    private readonly onUnbounded: (reason: string) => void = () => {},
  ) {
    if (!(bound.keepBytes >= 0) || !(bound.maxBytes > bound.keepBytes)) throw new RangeError(`log bound: maxBytes (${bound.maxBytes}) must exceed keepBytes (${bound.keepBytes})`);
  }

  /** Where the punched range ends: bytes before it read as zeros. */
  get trimmedTo(): number {
    return this.#trimmedTo;
  }

  /** After the tail read up to `offset`: trims once more than maxBytes lie between the last trim and it. */
  afterRead(offset: number): void {
    if (this.#stopped || this.#running || offset - this.#trimmedTo < this.bound.maxBytes) return;
    const end = Math.floor((offset - this.bound.keepBytes) / ALIGN) * ALIGN;
    if (end <= this.#trimmedTo) return;
    const program = fallocateProgram();
    if (program === null) return this.#give(`no util-linux fallocate on this system to trim ${this.path}`);
    this.#running = true;
    // From 0 every time: a log left by an earlier controller may hold bytes below #trimmedTo.
    const proc = Bun.spawn([program, '--punch-hole', '--offset', '0', '--length', String(end), this.path], { stdio: ['ignore', 'ignore', 'pipe'], env: {} });
    void Promise.all([proc.exited, new Response(proc.stderr).text()]).then(([code, said]) => {
      this.#running = false;
      if (code === 0) this.#trimmedTo = end;
      else this.#give(`cannot trim ${this.path}: ${said.trim() || `fallocate exited with ${code}`}`);
    });
  }

  /** The server ended (or the handle closed): no further trims start. */
  stop(): void {
    this.#stopped = true;
  }

  #give(reason: string): void {
    this.#stopped = true;
    this.onUnbounded(reason);
  }
}

let found: string | null | undefined;

/** util-linux fallocate from the system folders (never the controller's PATH); null without it. */
function fallocateProgram(): string | null {
  if (found === undefined) found = process.platform === 'linux' ? (Bun.which('fallocate', { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' }) ?? null) : null;
  return found;
}
