import { describe, expect, spyOn, test } from 'bun:test';
import { monotonicAt, monotonicNow, secondsSinceMono } from '../../../src/core/time/monotonic';

describe('monotonic clock', () => {
  test('monotonicNow ignores the wall clock and never runs back', () => {
    const wall = spyOn(Date, 'now');
    try {
      const first = monotonicNow();
      wall.mockReturnValue(0);
      const second = monotonicNow();
      wall.mockReturnValue(Date.UTC(2100, 0, 1));
      const third = monotonicNow();
      expect(second).toBeGreaterThanOrEqual(first);
      expect(third).toBeGreaterThanOrEqual(second);
      expect(third - first).toBeLessThan(1000);
    } finally {
      wall.mockRestore();
    }
  });

  test('monotonicAt: a wall-clock start becomes a monotonic one, judged once', () => {
    // Started 90 s ago by the wall clock: 90 s before the monotonic now.
    expect(monotonicAt(1_000_000 - 90_000, 1_000_000, 500_000)).toBe(410_000);
    // A start "in the future" (the clock stepped back since it was written) counts as now.
    expect(monotonicAt(1_000_000 + 3_600_000, 1_000_000, 500_000)).toBe(500_000);
  });

  test('secondsSinceMono: whole seconds, never negative', () => {
    expect(secondsSinceMono(1_000, 62_999)).toBe(61);
    expect(secondsSinceMono(5_000, 1_000)).toBe(0);
  });
});
