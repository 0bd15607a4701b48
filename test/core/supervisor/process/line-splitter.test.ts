import { describe, expect, test } from 'bun:test';
import { LineSplitter } from '../../../../src/core/supervisor/process/line-splitter';

const bytes = (text: string) => new TextEncoder().encode(text);

function split(chunks: (string | Uint8Array)[], maxLineBytes?: number): { lines: string[]; flushed: string[] } {
  const splitter = new LineSplitter(maxLineBytes);
  const lines: string[] = [];
  for (const chunk of chunks) splitter.push(typeof chunk === 'string' ? bytes(chunk) : chunk, (line) => lines.push(line));
  const flushed: string[] = [];
  splitter.flush((line) => flushed.push(line));
  return { lines, flushed };
}

describe('LineSplitter', () => {
  test('splits on \\n and drops one trailing \\r', () => {
    expect(split(['a\nb\r\n\nc\r\r\n'])).toEqual({ lines: ['a', 'b', '', 'c\r'], flushed: [] });
  });

  test('joins a line split across chunks, and holds the tail until flush', () => {
    expect(split(['hel', 'lo wo', 'rld\nnext', ' one'])).toEqual({ lines: ['hello world'], flushed: ['next one'] });
  });

  test('a multi-byte character split between chunks decodes whole', () => {
    const all = bytes('ünï ✓\n');
    expect(split([all.subarray(0, 1), all.subarray(1, 6), all.subarray(6)]).lines).toEqual(['ünï ✓']);
  });

  test('the caller may reuse its buffer: held-back bytes are copied', () => {
    const shared = new Uint8Array(8);
    const splitter = new LineSplitter();
    const lines: string[] = [];
    shared.set(bytes('abc'));
    splitter.push(shared.subarray(0, 3), (line) => lines.push(line));
    shared.set(bytes('XYZ\n'));
    splitter.push(shared.subarray(3, 4), (line) => lines.push(line)); // only the newline
    expect(lines).toEqual(['abc']);
  });

  test('a line longer than the limit is cut there, so memory stays bounded', () => {
    expect(split(['abcdefgh', 'ij\n'], 4)).toEqual({ lines: ['abcdefgh', 'ij'], flushed: [] });
  });

  test('seed() continues a line that began before the stream', () => {
    const splitter = new LineSplitter();
    splitter.seed(bytes('half-'));
    const lines: string[] = [];
    splitter.push(bytes('line\n'), (line) => lines.push(line));
    expect(lines).toEqual(['half-line']);
  });
});
