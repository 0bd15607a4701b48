import { closeSync, openSync, readSync } from 'node:fs';

export interface LogTailSeed {
  /** Complete lines that end before `endOffset`, oldest first, at most `maxLines`. */
  lines: string[];
  /** The bytes from the last newline up to `endOffset`: a line still being written. */
  partial: Uint8Array;
}

/**
 * What came before `endOffset` in a console log, for a re-attached handle: its recent lines
 * (lastLines() context) and the unfinished line that the tail continues, so the first line
 * delivered is whole. Reads at most `maxBytes`, so a huge log costs one bounded read.
 */
export function readLogTail(path: string, endOffset: number, maxLines: number, maxBytes = 256 * 1024): LogTailSeed {
  const start = Math.max(0, endOffset - maxBytes);
  const buffer = Buffer.alloc(endOffset - start);
  let length = 0;
  const fd = openSync(path, 'r');
  try {
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, start + length);
      if (n === 0) break;
      length += n;
    }
  } finally {
    closeSync(fd);
  }
  const text = buffer.subarray(0, length);
  const lastNewline = text.lastIndexOf(0x0a);
  const partial = Uint8Array.from(text.subarray(lastNewline + 1));
  const parts = text.subarray(0, lastNewline + 1).toString('utf8').split('\n');
  parts.pop(); // after the last newline: empty
  if (start > 0) parts.shift(); // the read began mid-line
  return { lines: parts.slice(-maxLines).map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)), partial };
}
