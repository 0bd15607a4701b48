import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { fromFileKeys, toFileKeys } from '../../../src/config/unit/respell';
import { typesOnly } from '../../../src/config/unit/types-only';

const Schema = Type.Object({
  maxPlayers: Type.Integer({ minimum: 1, maximum: 10 }),
  statusItems: Type.Record(Type.String(), Type.Object({ itemName: Type.String({ maxLength: 3 }) })),
  loreLines: Type.Array(Type.String({ minLength: 2 })),
});

describe('respell: keys as the schema or the file spells them', () => {
  test('fields are renamed, a record\'s keys are names and stay, its values\' fields are renamed', () => {
    const value = { maxPlayers: 3, statusItems: { inGame: { itemName: 'x' } }, loreLines: ['a'] };
    const file = toFileKeys(Schema, value);
    expect(file).toEqual({ max_players: 3, status_items: { inGame: { item_name: 'x' } }, lore_lines: ['a'] });
    expect(fromFileKeys(Schema, file)).toEqual(value);
  });

  test('written in the schema\'s order whatever order the value was built in; unknown keys after', () => {
    const file = toFileKeys(Schema, { extraKey: 1, loreLines: [], statusItems: {}, maxPlayers: 1 }) as Record<string, unknown>;
    expect(Object.keys(file)).toEqual(['max_players', 'status_items', 'lore_lines', 'extra_key']);
  });
});

describe('typesOnly: the shape a hand-edited file may take', () => {
  const shape = typesOnly(Schema);

  test('every field optional and snake_case; limits left out, types kept', () => {
    expect(Value.Check(shape, {})).toBe(true);
    expect(Value.Check(shape, { max_players: 99, status_items: { Any: { item_name: 'long name' } }, lore_lines: [''] })).toBe(true);
    expect(Value.Check(shape, { max_players: 'x' })).toBe(false);
    expect(Value.Check(shape, { status_items: { Any: { item_name: 1 } } })).toBe(false);
    expect(Value.Check(shape, { lore_lines: [1] })).toBe(false);
  });
});
