import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resolveMasterToken } from '../../src/http/master-token';
import { deriveServiceToken, secretEquals } from '../../src/http/auth';
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
