/** Time-zone primitives: UTC answered without the runtime's zone data, every other zone through Intl. */
import { afterEach, describe, expect, test } from 'bun:test';
import { canonicalTimeZone, isValidTimeZone, machineTimeZone, offsetAt, utc, wallOf } from '../../../src/core/time/zone';

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

describe('UTC fast path', () => {
  test('offset 0, wall time = instant, valid and canonical, at any instant', () => {
    for (const at of [0, utc(2026, 3, 29, 1, 30), utc(1890, 1, 1), Date.parse('2026-11-26T12:34:56.789Z')]) {
      expect(offsetAt(at, 'UTC')).toBe(0);
      expect(wallOf(at, 'UTC')).toBe(at);
    }
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(canonicalTimeZone('UTC')).toBe('UTC');
  });

  test('agrees with Intl for a zone that has one fixed offset too (Etc/GMT-3 is UTC+3)', () => {
    const at = utc(2026, 6, 1, 12);
    expect(offsetAt(at, 'Etc/GMT-3')).toBe(3 * 3600 * 1000);
    expect(offsetAt(at, 'Europe/Berlin')).toBe(2 * 3600 * 1000);
  });
});

describe('machineTimeZone', () => {
  test('TZ naming UTC in any of its spellings is UTC; an empty TZ is UTC', () => {
    for (const tz of ['UTC', ':UTC', 'Etc/UTC', ':Etc/UTC', 'GMT', 'Zulu', '']) {
      process.env.TZ = tz;
      expect(machineTimeZone()).toBe('UTC');
    }
  });

  test('another TZ is asked of Intl', () => {
    process.env.TZ = 'Europe/Berlin';
    expect(machineTimeZone()).toBe('Europe/Berlin');
  });
});
