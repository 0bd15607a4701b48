import { describe, expect, test } from 'bun:test';
import { candidatesFor, isGroupName, NODE_MAX, nodeProblem, normalizeNode } from '../../../src/modules/perms/nodes';

describe('nodeProblem', () => {
  const valid = ['a', 'a.b', 'a.b.c', 'a.b.*', '*', '-a.b', '-*', '-a.*', 'essentials.#', 'a_b-c.d9', 'Essentials.Fly', 'x'.repeat(NODE_MAX), `-${'x'.repeat(NODE_MAX - 1)}`];
  test.each(valid)('%p can be stored', (node) => {
    expect(nodeProblem(node)).toBeUndefined();
  });

  const invalid: [string, string][] = [
    ['', 'cannot be empty'],
    ['x'.repeat(NODE_MAX + 1), `at most ${NODE_MAX} characters`],
    [`-${'x'.repeat(NODE_MAX)}`, `at most ${NODE_MAX} characters`],
    ['a b', 'is not a permission node'],
    ['a/b', 'is not a permission node'],
    ['a,b', 'is not a permission node'],
    ['ä.b', 'is not a permission node'],
    ['a.b\n', 'is not a permission node'],
    ['a-.b+', 'is not a permission node'],
    ['-', '"-" alone negates nothing'],
    ['a..b', 'empty segment'],
    ['.a', 'empty segment'],
    ['a.', 'empty segment'],
    ['-.a', 'empty segment'],
    ['.', 'empty segment'],
    ['a*', 'wildcard must be the whole last segment'],
    ['a.b*', 'wildcard must be the whole last segment'],
    ['a.*.b', 'wildcard must be the whole last segment'],
    ['*.a', 'wildcard must be the whole last segment'],
    ['**', 'wildcard must be the whole last segment'],
    ['-a*', 'wildcard must be the whole last segment'],
    ['a.**', 'wildcard must be the whole last segment'],
  ];
  test.each(invalid)('%p is refused: %s', (node, why) => {
    expect(nodeProblem(node)).toContain(why);
  });
});

describe('normalizeNode', () => {
  const cases: [string, string][] = [
    ['essentials.fly', 'essentials.fly'],
    ['Essentials.FLY', 'essentials.fly'],
    ['  a.b  ', 'a.b'],
    ['\ta.B\n', 'a.b'],
    ['-A.*', '-a.*'],
    ['*', '*'],
    ['', ''],
  ];
  test.each(cases)('%p → %p', (raw, stored) => {
    expect(normalizeNode(raw)).toBe(stored);
    expect(normalizeNode(stored)).toBe(stored);
  });
});

describe('candidatesFor', () => {
  const cases: [string, string[]][] = [
    ['a', ['a', '*']],
    ['a.b', ['a.b', 'a.*', '*']],
    ['a.b.c', ['a.b.c', 'a.b.*', 'a.*', '*']],
    ['a.b.c.d', ['a.b.c.d', 'a.b.c.*', 'a.b.*', 'a.*', '*']],
    ['a.*', ['a.*', '*']],
    ['a.b.*', ['a.b.*', 'a.*', '*']],
    ['*', ['*']],
    ['essentials.#', ['essentials.#', 'essentials.*', '*']],
  ];
  test.each(cases)('%p is answered by %p', (node, expected) => {
    expect(candidatesFor(node)).toEqual(expected);
  });

  test('never a sibling sharing a prefix, never a wildcard of the node itself', () => {
    expect(candidatesFor('a.bc')).not.toContain('a.b.*');
    expect(candidatesFor('a.b.c')).not.toContain('a.b.c.*');
  });
});

describe('isGroupName', () => {
  const cases: [string, boolean][] = [
    ['Default', true],
    ['vip_plus-2', true],
    ['A', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['', false],
    ['a b', false],
    ['a.b', false],
    ['a/b', false],
    ['ädmin', false],
    ['admin\n', false],
    ['*', false],
  ];
  test.each(cases)('%p: %p', (name, expected) => {
    expect(isGroupName(name)).toBe(expected);
  });
});
