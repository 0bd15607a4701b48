/** The files API's path parser: every traversal spelling refused, plain names accepted, decoded once. */
import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../../src/errors';
import { parseFileName, parseRequestPath, segmentProblem, splitRelPath } from '../../../src/core/files/path-syntax';
import { LEXICAL_PAYLOADS } from '../../support/traversal-corpus';

function codeOf(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (error) {
    if (error instanceof ApiError) return error.errorCode;
    throw error;
  }
}

describe('parseRequestPath: the traversal corpus', () => {
  test(`has at least 100 payloads (${LEXICAL_PAYLOADS.length})`, () => {
    expect(LEXICAL_PAYLOADS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(LEXICAL_PAYLOADS).size).toBe(LEXICAL_PAYLOADS.length);
  });

  test('refuses every payload with PATH_TRAVERSAL, on both platforms', () => {
    const accepted: string[] = [];
    for (const raw of LEXICAL_PAYLOADS) {
      for (const windows of [false, true]) {
        const code = codeOf(() => parseRequestPath(raw, { windows }));
        if (code !== 'PATH_TRAVERSAL') accepted.push(`${raw.slice(0, 80)} (windows=${windows}): ${code}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  test('the message says why', () => {
    const message = (raw: string) => {
      try {
        parseRequestPath(raw);
      } catch (error) {
        return (error as ApiError).message;
      }
      return '';
    };
    expect(message('%2e%2e/x')).toContain('".." segment');
    expect(message('a%2fb')).toContain('encoded separator');
    expect(message('%252e%252e')).toContain('double-encoded');
    expect(message('%c0%ae')).toContain('overlong');
    expect(message('/etc/passwd')).toContain('absolute');
    expect(message('a%00b')).toContain('control character');
    expect(message('C:/x')).toContain('drive letter');
  });
});

describe('parseRequestPath: plain paths', () => {
  test.each([
    ['', []],
    ['lobby', ['lobby']],
    ['lobby/', ['lobby']],
    ['lobby/plugins/Essentials/config.yml', ['lobby', 'plugins', 'Essentials', 'config.yml']],
    ['.gitignore', ['.gitignore']],
    ['..foo/bar..', ['..foo', 'bar..']],
    ['a%20b', ['a b']],
    ['caf%C3%A9/%F0%9F%8E%AE', ['café', '🎮']],
    ['100%25', ['100%']],
    ['%EF%BC%8E%EF%BC%8E', ['．．']], // full-width dots are a name, not a parent
    ['a+b', ['a+b']],
    ['x'.repeat(255), ['x'.repeat(255)]],
  ])('%j → %j', (raw, segments) => {
    expect(parseRequestPath(raw)).toEqual(segments);
  });

  test('Windows rules add stream names and device names', () => {
    expect(codeOf(() => parseRequestPath('file.txt%3A%3A%24DATA', { windows: true }))).toBe('PATH_TRAVERSAL');
    expect(codeOf(() => parseRequestPath('file.txt%3A%3A%24DATA', { windows: false }))).toBe('accepted');
    for (const name of ['CON', 'nul', 'com1', 'LPT9.txt', 'aux.log']) {
      expect(codeOf(() => parseRequestPath(`lobby/${name}`, { windows: true }))).toBe('PATH_TRAVERSAL');
      expect(codeOf(() => parseRequestPath(`lobby/${name}`, { windows: false }))).toBe('accepted');
    }
  });
});

describe('splitRelPath and segmentProblem', () => {
  test('decoded text gets the same rules without a second decode', () => {
    expect(splitRelPath('%2e%2e')).toEqual(['%2e%2e']); // already decoded: a literal name
    expect(codeOf(() => splitRelPath('../x'))).toBe('PATH_TRAVERSAL');
    expect(codeOf(() => splitRelPath('a\\b'))).toBe('PATH_TRAVERSAL');
  });

  test.each(['', '.', '..', '...', ' ', '. .', 'a/b', 'a\\b', 'a\u0000b', 'a\u007fb', 'a\u0085b', '\ud800', 'C:', 'z:x', 'x'.repeat(256)])('segment %j is refused', (segment) => {
    expect(segmentProblem(segment)).not.toBeNull();
  });
});

describe('parseFileName', () => {
  test.each(['..', '../x', '../../secret.txt', '/etc/passwd', 'a/b', 'C:\\x', '..\\x', 'x\u0000y', '.', ' ', '...', 'c:x', ''])('refuses %j', (name) => {
    expect(codeOf(() => parseFileName(name))).toBe('PATH_TRAVERSAL');
  });

  test.each(['plugin.jar', '.env', '%2e%2e', 'a b (1).zip', 'ü.txt'])('accepts %j as a literal name', (name) => {
    expect(parseFileName(name)).toBe(name);
  });
});
