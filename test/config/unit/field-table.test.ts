import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { parse } from 'smol-toml';
import { readFieldTable, renderFieldTable, type TableField } from '../../../src/config/unit/field-table';

const FIELDS: Record<string, TableField> = {
  name: { path: ['name'], schema: Type.String(), default: '' },
  tags: { path: ['tags'], schema: Type.Array(Type.String()), default: [] },
  memory: { path: ['resources', 'memory'], schema: Type.String({ pattern: '^\\d+[MG]$' }), default: '1G' },
  maxPlayers: { path: ['resources', 'max_players'], schema: Type.Integer({ minimum: 0, maximum: 100 }), default: 50 },
};
const fail = (message: string) => new Error(message);
const read = (text: string, required: string[] = []) => readFieldTable(text, 'T.toml', 'thing', FIELDS, fail, required);

describe('field-table files', () => {
  test('rendered in field-table order, one sub-table after the main one, and read back equal', () => {
    const value = { name: 'a "b"', tags: ['x', 'y'], memory: '2G', maxPlayers: 7 };
    const text = renderFieldTable('Thing a.', 'thing', FIELDS, value);
    expect(text).toBe('# Thing a.\n\n[thing]\nname = "a \\"b\\""\ntags = ["x", "y"]\n\n[thing.resources]\nmemory = "2G"\nmax_players = 7\n');
    expect(parse(text)).toEqual({ thing: { name: 'a "b"', tags: ['x', 'y'], resources: { memory: '2G', max_players: 7 } } });
    expect(read(text)).toEqual({ values: value, table: parse(text).thing as Record<string, unknown>, warnings: [] });
  });

  test('missing keys take copies of their defaults; unknown keys are warnings naming the file', () => {
    const { values, warnings } = read('top = 1\n[thing]\ncolour = "red"\n[thing.resources]\nmax = 3\n');
    expect(values).toEqual({ name: '', tags: [], memory: '1G', maxPlayers: 50 });
    (values.tags as string[]).push('changed');
    expect(read('[thing]\n').values.tags).toEqual([]);
    expect(warnings).toEqual(['T.toml: unknown top-level key top (ignored)', 'T.toml: unknown key thing.colour (ignored)', 'T.toml: unknown key thing.resources.max (ignored)']);
  });

  test.each([
    ['[thing.resources]\nmax_players = 101\n', 'T.toml: [thing.resources] max_players: expected an integer between 0 and 100, got 101'],
    ['[thing]\ntags = "x"\n', 'T.toml: [thing] tags: expected a list of strings, got "x"'],
    ['[other]\n', 'T.toml: the [thing] table is missing'],
    ['[thing]\nname = \n', /^T\.toml:\d+:\d+: malformed TOML: /],
  ])('%p is refused: %p', (text, message) => {
    expect(() => read(text)).toThrow(message);
  });

  test('a required field must be in the file', () => {
    expect(() => read('[thing]\n', ['maxPlayers'])).toThrow('T.toml: [thing] max_players is required');
    expect(read('[thing.resources]\nmax_players = 1\n', ['maxPlayers']).values.maxPlayers).toBe(1);
  });
});
