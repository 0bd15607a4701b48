import { describe, expect, test } from 'bun:test';
import { LoginFailures } from '../../../src/cluster/identity/login-failures';

describe('failed cluster logins per address', () => {
  test('the limit within a window, then turned away until the window ends; per address', () => {
    let now = 1000;
    const failures = new LoginFailures(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(failures.blockedFor('10.0.0.1')).toBe(0);
      failures.fail('10.0.0.1');
    }
    expect(failures.blockedFor('10.0.0.1')).toBe(60_000);
    expect(failures.blockedFor('10.0.0.2')).toBe(0);
    now += 59_000;
    expect(failures.blockedFor('10.0.0.1')).toBe(1000);
    now += 1000;
    expect(failures.blockedFor('10.0.0.1')).toBe(0);
    failures.fail('10.0.0.1');
    expect(failures.blockedFor('10.0.0.1')).toBe(0);
  });

  test('measured on the monotonic clock by default, never the wall clock', () => {
    const failures = new LoginFailures(1, 60_000);
    failures.fail('a');
    const realNow = Date.now;
    Date.now = () => realNow() + 3_600_000;
    try {
      expect(failures.blockedFor('a')).toBeGreaterThan(59_000);
    } finally {
      Date.now = realNow;
    }
  });

  test('many addresses: the table stays bounded', () => {
    let now = 0;
    const failures = new LoginFailures(1, 1000, () => now);
    for (let i = 0; i < 10_050; i++) failures.fail(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    expect((failures as unknown as { windows: Map<string, unknown> }).windows.size).toBeLessThanOrEqual(10_000);
    now = 2000;
    expect(failures.blockedFor('10.0.0.1')).toBe(0);
  });
});
