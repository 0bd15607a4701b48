import { describe, expect, test } from 'bun:test';
import { formatUptime } from '../../../src/core/services/uptime';

describe('formatUptime', () => {
  test.each([
    [0, '0h 0m 0s'],
    [1, '0h 0m 1s'],
    [59, '0h 0m 59s'],
    [60, '0h 1m 0s'],
    [303, '0h 5m 3s'],
    [3599, '0h 59m 59s'],
    [3600, '1h 0m 0s'],
    [86_400, '24h 0m 0s'],
    [97_201, '27h 0m 1s'],
    [12.9, '0h 0m 12s'],
    [-5, '0h 0m 0s'],
    [Number.NaN, '0h 0m 0s'],
  ] as const)('%p seconds -> %s', (seconds, expected) => {
    expect(formatUptime(seconds)).toBe(expected);
  });
});
