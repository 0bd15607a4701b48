import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../../src/errors';
import { formatRemaining, MAX_DURATION_MS, parseDuration } from '../../../src/modules/punishments/duration';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const W = 7 * D;
const MO = 30 * D;
const Y = 365 * D;

/** The refusal parseDuration throws; fails the test when it accepts the text or throws anything else. */
function refusal(text: string): ApiError {
  try {
    parseDuration(text);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`parseDuration(${JSON.stringify(text)}) accepted it`);
}

describe('parseDuration: the grammar', () => {
  const valid: [string, number][] = [
    ['45s', 45 * S],
    ['30m', 30 * M],
    ['2h', 2 * H],
    ['1d', D],
    ['2w', 2 * W],
    ['2mo', 60 * D],
    ['1y', 365 * D],
    ['2H', 2 * H],
    ['2MO', 2 * MO],
    ['1D12H', D + 12 * H],
    ['1d12h', D + 12 * H],
    ['1d 12h', D + 12 * H],
    ['  1d   12h  ', D + 12 * H],
    ['12h1d', D + 12 * H],
    ['1m1mo', MO + M],
    ['1y1mo1w1d1h1m1s', Y + MO + W + D + H + M + S],
    ['0d1s', S],
    ['007m', 7 * M],
    ['999999s', 999_999 * S],
    ['100y', MAX_DURATION_MS],
  ];
  test.each(valid)('%p is %p ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ permanent: false, ms });
  });

  test('the longest allowed duration is exactly 100 years of 365 days', () => {
    expect(MAX_DURATION_MS).toBe(100 * 365 * D);
  });

  test.each(['perm', 'permanent', '0', ' PERM ', 'Permanent', '\t0\n'])('%p is permanent', (text) => {
    expect(parseDuration(text)).toEqual({ permanent: true });
  });

  const invalid: [string, string][] = [
    ['abc5m', 'cannot be read from "abc5m"'],
    ['5', 'cannot be read from "5"'],
    ['m', 'cannot be read from "m"'],
    ['5x', 'cannot be read from "5x"'],
    ['1.5h', 'cannot be read from "1.5h"'],
    ['5m!', 'cannot be read from "!"'],
    ['5m 3', 'cannot be read from "3"'],
    ['-5m', 'cannot be read from "-5m"'],
    ['+5m', 'cannot be read from "+5m"'],
    ['9999999d', 'cannot be read from "9999999d"'],
    ['forever', 'cannot be read from "forever"'],
    ['00', 'cannot be read from "00"'],
    ['0m', 'is zero'],
    ['0d0h', 'is zero'],
    ['1d1d', 'names the unit "d" twice'],
    ['1D 2d', 'names the unit "d" twice'],
    ['1mo2mo', 'names the unit "mo" twice'],
    ['101y', 'is longer than 100 years'],
    ['100y1s', 'is longer than 100 years'],
    ['999999y', 'is longer than 100 years'],
    ['', 'is empty'],
    ['   ', 'is empty'],
  ];
  test.each(invalid)('%p is refused: %s', (text, why) => {
    const error = refusal(text);
    expect(error.errorCode).toBe('PUNISHMENT_DURATION_INVALID');
    expect(error.status).toBe(400);
    // The message quotes what the caller wrote, as written, and says what is wrong with it.
    expect(error.message).toContain(`duration "${text}"`);
    expect(error.message).toContain(why);
    expect(error.message).toContain('30m, 1d12h');
  });
});

describe('formatRemaining', () => {
  const table: [string, string, number | null][] = [
    ['null is permanent', 'permanent', null],
    ['zero', '0s', 0],
    ['past the end', '0s', -1500],
    ['one ms rounds up to a second', '1s', 1],
    ['30 s', '30s', 30 * S],
    ['a partial second rounds up', '30s', 29 * S + 1],
    ['59 s', '59s', 59 * S],
    // 59.5 s rounds up to a whole minute, which reads as minutes, not "60s".
    ['59.5 s', '1m', 59.5 * S],
    ['59.999 s', '1m', 60 * S - 1],
    ['60 s', '1m', 60 * S],
    ['one ms over a minute rounds up', '2m', 60 * S + 1],
    ['90 s rounds up', '2m', 90 * S],
    ['45 min', '45m', 45 * M],
    ['exactly 2 h', '2h', 2 * H],
    ['a partial minute under 2 h rounds up', '2h', 2 * H - 30 * S],
    ['1 day', '1d', D],
    ['zero hours are left out', '1d 1m', D + M],
    ['zero minutes are left out', '1d 3h', D + 3 * H],
    ['7d12h5m', '7d 12h 5m', 7 * D + 12 * H + 5 * M],
    ['7d12h4m and a bit rounds up', '7d 12h 5m', 7 * D + 12 * H + 4 * M + 1],
    ['a minute under a day rounds up', '1d', D - 30 * S],
    ['weeks read as days', '14d', 2 * W],
  ];
  test.each(table)('%s → %p', (_name, expected, ms) => {
    expect(formatRemaining(ms)).toBe(expected);
  });

  test.each([
    ['1d12h', '1d 12h'],
    ['30m', '30m'],
    ['45s', '45s'],
    ['2w', '14d'],
    ['1y', '365d'],
  ])('a parsed %p reads back as %p', (text, shown) => {
    const duration = parseDuration(text);
    if (duration.permanent) throw new Error(`${text} parsed as permanent`);
    expect(formatRemaining(duration.ms)).toBe(shown);
  });
});
