import { describe, expect, test } from 'bun:test';
import { Type as T } from '@sinclair/typebox';
import { documentDefaults, DocumentProblem, documentPath, JSON_SPELLING, readDocument, TOML_SPELLING } from '../../../src/config/unit/document';

const Item = T.Object({ name: T.String({ minLength: 1 }), size: T.Integer({ minimum: 1, default: 4 }) }, { additionalProperties: false });
const Schema = T.Object(
  {
    maxCount: T.Integer({ minimum: 1, maximum: 9, default: 3, description: 'x' }),
    limits: T.Object({ hardLimit: T.Boolean({ default: false }), softLimit: T.Integer({ default: 5 }) }),
    items: T.Array(Item, { maxItems: 2, default: [{ name: 'a', size: 4 }] }),
  },
  { additionalProperties: false },
);

function problemOf(run: () => unknown): DocumentProblem {
  try {
    run();
  } catch (error) {
    if (error instanceof DocumentProblem) return error;
    throw error;
  }
  throw new Error('no problem');
}

describe('readDocument', () => {
  test('an empty document is every default; a missing object takes its keys\' defaults', () => {
    expect(documentDefaults(Schema)).toEqual({ maxCount: 3, limits: { hardLimit: false, softLimit: 5 }, items: [{ name: 'a', size: 4 }] });
  });

  test('defaults are copies: changing a read value leaves the schema as it was', () => {
    documentDefaults(Schema).items.push({ name: 'b', size: 1 });
    expect(documentDefaults(Schema).items).toHaveLength(1);
  });

  test('given keys win, deeply; list items take their own defaults', () => {
    expect(readDocument(Schema, { limits: { soft_limit: 1 }, items: [{ name: 'z' }] }, TOML_SPELLING)).toEqual({
      maxCount: 3,
      limits: { hardLimit: false, softLimit: 1 },
      items: [{ name: 'z', size: 4 }],
    });
  });

  const refusals: [string, unknown, string, string][] = [
    ['an unknown key, as the source spelt it', { maxCount: 2, max_count: 3 }, 'max_count', 'is not a known key; the keys are maxCount, limits, items'],
    ['a value the schema refuses', { limits: { softLimit: 'x' } }, 'limits.softLimit', 'must be an integer, got "x"'],
    ['a required key', { items: [{ size: 2 }] }, 'items[0].name', 'is required'],
    ['too many items', { items: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, 'items', 'must have at most 2 entries, got 3'],
    ['not a list', { items: 'a' }, 'items', 'must be a list, got "a"'],
    ['not an object', { limits: [1] }, 'limits', 'must be an object, got [1]'],
  ];
  for (const [what, body, where, message] of refusals) {
    test(`${what}: the path and what is wrong`, () => {
      const problem = problemOf(() => readDocument(Schema, body, JSON_SPELLING));
      expect(documentPath(problem.path, JSON_SPELLING)).toBe(where);
      expect(problem.what).toBe(message);
    });
  }

  test('in TOML spelling: snake_case keys, tables, and the path under a root table', () => {
    const problem = problemOf(() => readDocument(Schema, { limits: { hard_limit: 1 } }, TOML_SPELLING));
    expect(documentPath(problem.path, TOML_SPELLING, 'notes')).toBe('notes.limits.hard_limit');
    expect(problem.what).toBe('must be true or false, got 1');
    expect(problemOf(() => readDocument(Schema, { limits: 3 }, TOML_SPELLING)).what).toBe('must be a table, got 3');
    expect(problemOf(() => readDocument(Schema, { maxCount: 3 }, TOML_SPELLING)).what).toBe('is not a known key; the keys are max_count, limits, items');
  });

  test('unknown keys skipped when asked: the known ones are read, bad values are still refused', () => {
    expect(readDocument(Schema, { extra: 1, maxCount: 4 }, JSON_SPELLING, 'ignore')).toEqual({ ...documentDefaults(Schema), maxCount: 4 });
    expect(problemOf(() => readDocument(Schema, { extra: 1, maxCount: 0 }, JSON_SPELLING, 'ignore')).what).toBe('must be an integer between 1 and 9, got 0');
  });

  test('a date is not a table', () => {
    expect(problemOf(() => readDocument(Schema, { limits: new Date(0) }, TOML_SPELLING)).what).toStartWith('must be a table, got ');
  });
});
