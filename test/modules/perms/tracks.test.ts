import { describe, expect, test } from 'bun:test';
import { rankOn, stepOn } from '../../../src/modules/perms/tracks-service';

const ladder = { groups: ['default', 'vip', 'mod', 'admin'] };
const of = (...groups: string[]) => groups.map((group) => ({ group }));

describe('rankOn', () => {
  const cases: [string, number, { group: string }[]][] = [
    ['no memberships', -1, of()],
    ['only groups off the track', -1, of('builder', 'guest')],
    ['the bottom group', 0, of('default')],
    ['a middle group', 2, of('mod')],
    ['the top group', 3, of('admin')],
    ['two track groups: the highest counts', 2, of('vip', 'mod')],
    ['two track groups, highest first: still the highest', 3, of('admin', 'default')],
    ['track and other groups mixed', 1, of('builder', 'vip', 'guest')],
  ];
  test.each(cases)('%s → %p', (_name, expected, memberships) => {
    expect(rankOn(ladder, memberships)).toBe(expected);
  });
});

describe('stepOn', () => {
  const cases: [number, 1 | -1, ReturnType<typeof stepOn>][] = [
    [-1, 1, { from: -1, to: 0 }],
    [0, 1, { from: 0, to: 1 }],
    [1, 1, { from: 1, to: 2 }],
    [2, 1, { from: 2, to: 3 }],
    [3, 1, { refused: 'top' }],
    [-1, -1, { refused: 'off-track' }],
    [0, -1, { refused: 'bottom' }],
    [1, -1, { from: 1, to: 0 }],
    [2, -1, { from: 2, to: 1 }],
    [3, -1, { from: 3, to: 2 }],
  ];
  test.each(cases)('rank %p, direction %p → %o', (rank, direction, expected) => {
    expect(stepOn(ladder, rank, direction)).toEqual(expected);
  });

  test('a two-group track: the upper rung is the top, the lower the bottom', () => {
    const short = { groups: ['default', 'vip'] };
    expect(stepOn(short, 1, 1)).toEqual({ refused: 'top' });
    expect(stepOn(short, 0, -1)).toEqual({ refused: 'bottom' });
    expect(stepOn(short, -1, 1)).toEqual({ from: -1, to: 0 });
  });
});

describe('rankOn then stepOn: where a player lands', () => {
  const cases: [string, string[], 1 | -1, string | null, string | 'top' | 'bottom' | 'off-track'][] = [
    ['off the track, promoted: the bottom group', [], 1, null, 'default'],
    ['off the track, demoted: refused', ['builder'], -1, null, 'off-track'],
    ['at the bottom, promoted', ['default'], 1, 'default', 'vip'],
    ['at the bottom, demoted: refused', ['default'], -1, 'default', 'bottom'],
    ['in the middle, promoted', ['default', 'vip'], 1, 'vip', 'mod'],
    ['in the middle, demoted', ['vip'], -1, 'vip', 'default'],
    ['at the top, promoted: refused', ['admin'], 1, 'admin', 'top'],
    ['two track groups, promoted from the highest', ['mod', 'default'], 1, 'mod', 'admin'],
    ['two track groups, demoted from the highest', ['default', 'admin'], -1, 'admin', 'mod'],
  ];
  test.each(cases)('%s', (_name, groups, direction, from, to) => {
    const rank = rankOn(ladder, of(...groups));
    expect(rank < 0 ? null : ladder.groups[rank]).toBe(from);
    const step = stepOn(ladder, rank, direction);
    expect('refused' in step ? step.refused : ladder.groups[step.to]).toBe(to);
  });
});
