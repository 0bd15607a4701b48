import { describe, expect, test } from 'bun:test';
import { formatUptime, runningSeconds } from '../../../src/core/services/uptime';

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

describe('runningSeconds', () => {
  const wallStart = new Date(Date.UTC(2026, 0, 1, 12));
  test('once watched, the monotonic start decides: a wall-clock step moves nothing', () => {
    const record = { startedAt: wallStart, startedMono: 1_000 };
    // 90 s on the monotonic clock; the wall clock says 10 min more, or an hour less.
    expect(runningSeconds(record, wallStart.getTime() + 690_000, 91_000)).toBe(90);
    expect(runningSeconds(record, wallStart.getTime() - 3_600_000, 91_000)).toBe(90);
  });

  test('before it is watched, the wall-clock start at `now`, never negative; null before it started', () => {
    expect(runningSeconds({ startedAt: wallStart, startedMono: null }, wallStart.getTime() + 61_500)).toBe(61);
    expect(runningSeconds({ startedAt: wallStart, startedMono: null }, wallStart.getTime() - 5_000)).toBe(0);
    expect(runningSeconds({ startedAt: null, startedMono: null }, wallStart.getTime())).toBeNull();
  });
});
