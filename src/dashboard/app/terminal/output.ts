/**
 * The lines a console shows, on their way to the terminal: gathered as they arrive and written
 * once per animation frame as one chunk, and the next chunk only once xterm has parsed the last
 * (its write callback), so a server printing 10,000 lines a second costs the page one write a
 * frame, never one per line, and xterm's own buffer never piles up. What waits is bounded by the
 * terminal's scrollback: lines beyond it would scroll out unseen anyway, so the oldest are dropped
 * and a dim note says how many. Lines may arrive before the terminal exists (it is loaded when
 * first shown): they wait here, within the same bound. A frame's lines go to xterm in pieces of
 * PIECE_LINES: xterm parses a piece at a time and yields to the page between pieces once it has
 * used its share of a frame, so a big batch never blocks the page in one go.
 */

/** Writes a chunk of terminal data and calls `done` once it has been parsed. */
export type ChunkWriter = (chunk: string, done: () => void) => void;
/** Hears each batch of lines as it is written (the accessible copy of the output). */
export type BatchListener = (lines: readonly string[]) => void;

/** Lines per write call (about 30 KB of typical console output). */
export const PIECE_LINES = 256;
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/** The next animation frame (a timer where there are none: a test, a worker). Typed here: tests compile it without the DOM's types. */
function nextFrame(run: () => void): void {
  const frames = (globalThis as { requestAnimationFrame?: (callback: () => void) => number }).requestAnimationFrame;
  if (frames) frames(run);
  else setTimeout(run, 16);
}

export class TerminalOutput {
  private pending: string[] = [];
  private skipped = 0;
  private writer: ChunkWriter | null = null;
  /** A chunk is with xterm and not parsed yet. */
  private writing = false;
  private scheduled = false;
  private readonly listeners = new Set<BatchListener>();

  constructor(
    /** The terminal's scrollback: the most lines worth keeping while they wait. */
    readonly capacity = 5000,
    private readonly schedule: (run: () => void) => void = nextFrame,
  ) {}

  /** One line to show (ANSI colours allowed; no line break needed). */
  line(text: string): void {
    this.pending.push(text);
    // Trimmed in steps of `capacity`, so dropping the oldest stays cheap under a flood.
    if (this.pending.length >= this.capacity * 2) {
      const excess = this.pending.length - this.capacity;
      this.pending.splice(0, excess);
      this.skipped += excess;
    }
    this.kick();
  }

  /** Starts writing into a terminal; the returned function stops (the terminal went away). */
  attach(writer: ChunkWriter): () => void {
    this.writer = writer;
    this.writing = false;
    this.kick();
    return () => {
      if (this.writer === writer) this.writer = null;
    };
  }

  onBatch(listener: BatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lines waiting for the terminal (tests, and a page that wants to know it is behind). */
  get waiting(): number {
    return this.pending.length;
  }

  private kick(): void {
    if (this.scheduled || this.writing || !this.writer || this.pending.length === 0) return;
    this.scheduled = true;
    this.schedule(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const writer = this.writer;
    if (!writer || this.writing || this.pending.length === 0) return;
    let batch = this.pending;
    this.pending = [];
    if (batch.length > this.capacity) {
      this.skipped += batch.length - this.capacity;
      batch = batch.slice(-this.capacity);
    }
    if (this.skipped > 0) {
      writer(`${DIM}… ${this.skipped} lines skipped: they came faster than they could be shown${RESET}\r\n`, () => {});
      this.skipped = 0;
    }
    for (const listener of this.listeners) listener(batch);
    this.writing = true;
    // Pieces are parsed in order: the last one's callback means the whole batch is in.
    for (let start = 0; start < batch.length; start += PIECE_LINES) {
      const piece = batch.slice(start, start + PIECE_LINES).join('\r\n') + '\r\n';
      const last = start + PIECE_LINES >= batch.length;
      writer(piece, last ? () => this.written(writer) : () => {});
    }
  }

  private written(writer: ChunkWriter): void {
    if (this.writer !== writer) return;
    this.writing = false;
    this.kick();
  }
}
