import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readExitFile } from '../../../../src/core/supervisor/process/exit-file';

const dir = mkdtempSync(join(tmpdir(), 'svc-exit-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const withText = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('readExitFile', () => {
  test('a complete line is the code', () => {
    expect(readExitFile(withText('zero', '0\n'))).toBe(0);
    expect(readExitFile(withText('killed', '137\n'))).toBe(137);
  });
  test('no file, or a line still being written (no newline yet), is not an exit yet', () => {
    expect(readExitFile(join(dir, 'missing'))).toBeUndefined();
    expect(readExitFile(withText('empty', ''))).toBeUndefined();
    expect(readExitFile(withText('partial', '13'))).toBeUndefined();
  });
  test('a complete line without a number is an unknown code', () => {
    expect(readExitFile(withText('junk', 'oops\n'))).toBeNull();
    expect(readExitFile(withText('negative', '-1\n'))).toBeNull();
  });
});
