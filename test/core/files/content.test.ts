/** Text or base64: binary files never come back garbled, and what is read can be written back byte for byte. */
import { describe, expect, test } from 'bun:test';
import { decodeContent, encodeContent } from '../../../src/core/files/content';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('encodeContent', () => {
  test.each([
    ['plain text', new TextEncoder().encode('motd=Hello\nmax-players=20\n'), 'utf8'],
    ['UTF-8 with BOM', bytes(0xef, 0xbb, 0xbf, 0x61), 'utf8'],
    ['multi-byte text', new TextEncoder().encode('§aWillkommen ✓ 🎮'), 'utf8'],
    ['empty', bytes(), 'utf8'],
    ['a NUL byte', bytes(0x61, 0x00, 0x62), 'base64'],
    ['invalid UTF-8', bytes(0x61, 0xff, 0x62), 'base64'],
    ['a zip header', bytes(0x50, 0x4b, 0x03, 0x04, 0x14, 0x00), 'base64'],
    ['a truncated multi-byte sequence', bytes(0x61, 0xe2, 0x82), 'base64'],
    ['an overlong encoding', bytes(0xc0, 0xae), 'base64'],
  ])('%s → %s, and back to the same bytes', (_name, input, encoding) => {
    const encoded = encodeContent(input);
    expect(encoded.encoding).toBe(encoding as 'utf8' | 'base64');
    expect([...decodeContent(encoded.content, encoded.encoding)]).toEqual([...input]);
  });

  test('a NUL far into a valid UTF-8 file still reads as text (only the first 8 KiB are sniffed)', () => {
    const input = new Uint8Array(10_000).fill(0x61);
    input[9000] = 0;
    expect(encodeContent(input).encoding).toBe('utf8');
  });

  test('invalid UTF-8 anywhere makes the file binary', () => {
    const input = new Uint8Array(100_000).fill(0x61);
    input[99_999] = 0xff;
    expect(encodeContent(input).encoding).toBe('base64');
  });
});

describe('decodeContent', () => {
  test('base64 with line breaks is accepted; malformed base64 and lone surrogates are refused', () => {
    expect([...decodeContent('AAEC\n/w==', 'base64')]).toEqual([0, 1, 2, 255]);
    expect(() => decodeContent('not base64!', 'base64')).toThrow('not valid base64');
    expect(() => decodeContent('AAE', 'base64')).toThrow('not valid base64');
    expect(() => decodeContent('a\ud800b')).toThrow('lone surrogate');
  });
});
