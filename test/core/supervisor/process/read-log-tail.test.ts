import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLogTail } from '../../../../src/core/supervisor/process/read-log-tail';

const dir = mkdtempSync(join(tmpdir(), 'svc-log-tail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('readLogTail', () => {
  const path = join(dir, 'console.log');
  writeFileSync(path, 'one\r\ntwo\nthree\nhalf');

  test('complete lines before the offset, and the unfinished line at it', () => {
    const seed = readLogTail(path, 19, 10);
    expect(seed.lines).toEqual(['one', 'two', 'three']);
    expect(text(seed.partial)).toBe('half');
  });

  test('an offset right after a newline leaves no partial', () => {
    const seed = readLogTail(path, 9, 10);
    expect(seed.lines).toEqual(['one', 'two']);
    expect(seed.partial.length).toBe(0);
  });

  test('at most maxLines, and a read that starts mid-line drops that fragment', () => {
    expect(readLogTail(path, 19, 2).lines).toEqual(['two', 'three']);
    expect(readLogTail(path, 19, 10, 12).lines).toEqual(['three']); // bytes 7..19: "o\nthree\nhalf"
  });
});
