import { describe, expect, test } from 'bun:test';
import { parseChecksums } from '../../../src/core/update/checksums';

const A = 'a'.repeat(64);
const B = '0123456789abcdef'.repeat(4);

describe('parseChecksums', () => {
  test('text mode (two spaces) and binary mode (space, asterisk) lines', () => {
    const sums = parseChecksums(`${A}  svc-linux-x64\n${B} *svc-windows-x64.exe\n`);
    expect([...sums]).toEqual([
      ['svc-linux-x64', A],
      ['svc-windows-x64.exe', B],
    ]);
  });

  test('blank lines, comments, surrounding whitespace and CRLF line ends are skipped', () => {
    const text = `# SHA-256 of svc 0.13.1\n\n   \n${A}  svc-linux-x64\r\n  # another comment\r\n\t${B}  svc-darwin-arm64  \n`;
    expect(Object.fromEntries(parseChecksums(text))).toEqual({ 'svc-linux-x64': A, 'svc-darwin-arm64': B });
  });

  test('uppercase hex is normalised to lowercase', () => {
    expect(parseChecksums(`${B.toUpperCase()}  svc-linux-arm64\n`).get('svc-linux-arm64')).toBe(B);
  });

  test('a name with spaces is kept whole', () => {
    expect(parseChecksums(`${A}  my svc build\n`).get('my svc build')).toBe(A);
  });

  test('an empty file lists nothing', () => {
    expect(parseChecksums('').size).toBe(0);
    expect(parseChecksums('\n# nothing here\n').size).toBe(0);
  });

  test.each([
    ['a short hash', `${A}  svc-linux-arm64\n${'a'.repeat(63)}  svc-linux-x64\n`, 2],
    ['a long hash', `${'a'.repeat(65)}  svc-linux-x64\n`, 1],
    ['non-hex characters', `${'g'.repeat(64)}  svc-linux-x64\n`, 1],
    ['one space only', `# header\n\n${A} svc-linux-x64\n`, 3],
    ['no file name', `${A}  svc-linux-x64\n${B}\n`, 2],
    ['BSD tagged format', `SHA256 (svc-linux-x64) = ${A}\n`, 1],
    ['HTML instead of a checksum file', '<!doctype html>\n<html>', 1],
  ])('%s throws naming the line', (_, text, line) => {
    expect(() => parseChecksums(text)).toThrow(`SHA256SUMS line ${line} is not "<sha256>  <file>"`);
  });

  test('a damaged line anywhere refuses the whole file (nothing half-trusted)', () => {
    expect(() => parseChecksums(`${A}  svc-linux-x64\n${B}  svc-linux-arm64\ngarbage\n`)).toThrow('line 3');
  });
});
