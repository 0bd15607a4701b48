/**
 * Turns a byte stream into lines: splits on "\n", drops one trailing "\r", decodes UTF-8 (a
 * newline byte never occurs inside a multi-byte character, so splitting before decoding is
 * safe). A line split across chunks is held back until its newline arrives. The input may be a
 * view into a buffer the caller reuses: whatever is held back is copied.
 */
export const MAX_LINE_BYTES = 1024 * 1024;

const EMPTY = Buffer.alloc(0);
const NEWLINE = 0x0a;

export class LineSplitter {
  #partial: Buffer = EMPTY;

  /** A line longer than `maxLineBytes` is cut there, so one missing newline cannot grow memory forever. */
  constructor(private readonly maxLineBytes = MAX_LINE_BYTES) {}

  /** Bytes that precede the stream: a line the stream continues. */
  seed(bytes: Uint8Array): void {
    this.#partial = Buffer.from(bytes);
  }

  push(bytes: Uint8Array, emit: (line: string) => void): void {
    const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE, start); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      if (this.#partial.length === 0) {
        emit(decodeLine(chunk, start, newline));
      } else {
        const joined = Buffer.concat([this.#partial, chunk.subarray(start, newline)]);
        this.#partial = EMPTY;
        emit(decodeLine(joined, 0, joined.length));
      }
      start = newline + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#partial = this.#partial.length === 0 ? Buffer.from(rest) : Buffer.concat([this.#partial, rest]);
      if (this.#partial.length >= this.maxLineBytes) this.flush(emit);
    }
  }

  /** Emits a held-back line that will get no newline (the stream ended). */
  flush(emit: (line: string) => void): void {
    if (this.#partial.length === 0) return;
    const rest = this.#partial;
    this.#partial = EMPTY;
    emit(decodeLine(rest, 0, rest.length));
  }
}

function decodeLine(buffer: Buffer, start: number, end: number): string {
  const stop = end > start && buffer[end - 1] === 0x0d ? end - 1 : end;
  return buffer.toString('utf8', start, stop);
}
