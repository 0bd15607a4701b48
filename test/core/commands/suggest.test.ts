import { describe, expect, test } from 'bun:test';
import { closestWords, didYouMean } from '../../../src/core/commands/suggest';

const WORDS = ['status', 'start', 'stop', 'restart', 'screen', 'shutdown', 'help', 'list', 'logs', 'group', 'groups'];

describe('did you mean', () => {
  test.each([
    ['stauts', ['status']], // a swap of neighbours is one edit
    ['statsu', ['status']],
    ['strat', ['start']],
    ['shutdwn', ['shutdown']],
    ['hlep', ['help']],
    ['scren', ['screen']],
    ['STOPP', ['stop']],
    ['grop', ['group']],
    ['shut', ['shutdown']], // the only word it starts
  ])('%s → %p', (typed, expected) => {
    expect(closestWords(typed, WORDS)).toEqual(expected);
  });

  test('nothing close, nothing suggested; short words allow one edit only', () => {
    expect(closestWords('frobnicate', WORDS)).toEqual([]);
    expect(closestWords('xyz', WORDS)).toEqual([]);
    expect(didYouMean('frobnicate', WORDS)).toBe('');
  });

  test('ties are listed, best first and sorted', () => {
    expect(didYouMean('groupz', WORDS)).toBe('; did you mean "group" or "groups"?');
    expect(didYouMean('lost', WORDS)).toBe('; did you mean "list"?');
  });
});
