import { afterEach, describe, expect, test } from 'bun:test';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FORWARDING_SECRET_FILE, loadForwardingSecret } from '../../../src/core/templates/forwarding-secret';
import { removeTempDirs, tempDir } from './fixtures';

afterEach(removeTempDirs);

describe('forwarding secret', () => {
  test('generated once, kept in the data dir with mode 600, the same on every later call', () => {
    const data = join(tempDir(), 'data');
    const secret = loadForwardingSecret(data);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const path = join(data, FORWARDING_SECRET_FILE);
    expect(readFileSync(path, 'utf8')).toBe(secret);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadForwardingSecret(data)).toBe(secret);
    expect(readdirSync(data)).toEqual([FORWARDING_SECRET_FILE]);
  });

  test('an existing secret is used as is (trimmed) and its mode tightened', () => {
    const data = tempDir();
    const path = join(data, FORWARDING_SECRET_FILE);
    writeFileSync(path, 'from-before\n');
    chmodSync(path, 0o644);
    expect(loadForwardingSecret(data)).toBe('from-before');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test('a blank file is replaced by a new secret', () => {
    const data = tempDir();
    writeFileSync(join(data, FORWARDING_SECRET_FILE), '  \n');
    const secret = loadForwardingSecret(data);
    expect(secret).toHaveLength(43);
    expect(readFileSync(join(data, FORWARDING_SECRET_FILE), 'utf8')).toBe(secret);
    expect(loadForwardingSecret(data)).toBe(secret);
  });

  test('two data dirs get different secrets', () => {
    expect(loadForwardingSecret(tempDir())).not.toBe(loadForwardingSecret(tempDir()));
  });
});
