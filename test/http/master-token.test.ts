import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSavedToken, resolveMasterToken } from '../../src/http/master-token';
import { ConfigError } from '../../src/config/load';
import { deriveServiceToken, secretEquals } from '../../src/core/auth';
import { createHmac } from 'node:crypto';
import { tempDir } from '../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

describe('master token', () => {
  test('a configured token is used as is', () => {
    expect(resolveMasterToken('abc', true, '/nonexistent')).toEqual({ token: 'abc', source: 'environment' });
    expect(resolveMasterToken('abc', false, '/nonexistent')).toEqual({ token: 'abc', source: 'config' });
  });

  test('blank: generated once, owner-only, and kept across restarts', () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const first = resolveMasterToken('', false, dir);
    expect(first.source).toBe('generated');
    expect(first.token.length).toBeGreaterThanOrEqual(40);
    const file = join(dir, 'api-token');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveMasterToken('', false, dir).token).toBe(first.token);
  });
});

describe('a token file that exists but cannot be used', () => {
  const unusable: [string, (file: string) => void, RegExp][] = [
    ['5 characters', (file) => writeFileSync(file, 'abcde\n'), /api-token holds 5 character\(s\), not a token/],
    ['empty', (file) => writeFileSync(file, ''), /api-token holds 0 character\(s\), not a token/],
    ['a folder', (file) => mkdirSync(file), /api-token is not a file/],
  ];
  for (const [what, make, expected] of unusable) {
    test(`${what}: the start stops naming it (a ConfigError: exit 2, one line), and the file is never overwritten`, () => {
      const { dir, remove } = tempDir();
      cleanups.push(remove);
      const file = join(dir, 'api-token');
      make(file);
      const before = statSync(file).isFile() ? readFileSync(file, 'utf8') : null;
      let caught: unknown;
      try {
        resolveMasterToken('', false, dir);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      const message = (caught as Error).message;
      expect(message.startsWith(file)).toBe(true);
      expect(message).toMatch(expected);
      expect(message).toContain('it is left as it is');
      expect(message).not.toContain('\n');
      if (before !== null) expect(readFileSync(file, 'utf8')).toBe(before);
      expect(readdirSync(dir)).toEqual(['api-token']);
    });
  }

  test('a configured token does not read the file at all', () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    writeFileSync(join(dir, 'api-token'), 'short');
    expect(resolveMasterToken('configured-token-0123456789', false, dir).token).toBe('configured-token-0123456789');
  });

  test.skipIf(process.getuid?.() === 0)('an unreadable file names the permission problem (as root everything is readable: see the fault suite)', () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    writeFileSync(join(dir, 'api-token'), 'x'.repeat(48), { mode: 0o000 });
    expect(readSavedToken(dir)).toMatchObject({ kind: 'unusable', unreadable: true, problem: expect.stringContaining('cannot be read (EACCES)') });
  });
});

describe('derived service token', () => {
  test('is hex HMAC-SHA256 keyed by the master token over "svc-service-token"', () => {
    expect(deriveServiceToken('master')).toBe(createHmac('sha256', 'master').update('svc-service-token').digest('hex'));
    expect(deriveServiceToken('master')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('secretEquals', () => {
  test('a blank secret never matches, not even a blank token', () => {
    expect(secretEquals('', '')).toBe(false);
    expect(secretEquals('x', '')).toBe(false);
  });
  test('compares whole values of any length', () => {
    expect(secretEquals('abc', 'abc')).toBe(true);
    expect(secretEquals('abc', 'abcd')).toBe(false);
    expect(secretEquals('abd', 'abc')).toBe(false);
  });
});
