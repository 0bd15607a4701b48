/**
 * A group's display file is rendered from its schema (the settings' own, snake_case on disk)
 * and its header. The golden files next to this were written by the renderer it replaced (the
 * header over smol-toml's stringify), from golden/values.ts: every save must still give those bytes.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDisplayToml, renderDisplayToml } from '../../../src/modules/display/file';
import type { DisplaySettings } from '../../../src/modules/display/model';
import { GOLDEN_VALUES } from './golden/values';

const golden = (name: string) => readFileSync(join(import.meta.dir, 'golden', `${name}.toml`), 'utf8');

describe('a display file rendered from its schema', () => {
  test.each(Object.keys(GOLDEN_VALUES))('%s: the bytes the renderer before wrote', (name) => {
    const { group, settings } = GOLDEN_VALUES[name]!;
    expect(renderDisplayToml(group, settings)).toBe(golden(name));
  });

  test('settings built in another key order give the same file', () => {
    const { group, settings } = GOLDEN_VALUES.hostile!;
    const reverse = <T>(value: T): T => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reverse(v)])) as T) : value);
    const reversed = reverse(settings);
    // A map's keys are names: their order is the operator's and is kept.
    reversed.states = settings.states;
    reversed.npc.statusItems = settings.npc.statusItems;
    expect(renderDisplayToml(group, reversed)).toBe(golden('hostile'));
  });

  test.each(['defaults', 'empty-maps'])('%s: the file reads back as the settings', (name) => {
    const { group, settings } = GOLDEN_VALUES[name]!;
    expect(parseDisplayToml(golden(name), group)).toEqual({ ok: true, settings: settings as DisplaySettings });
  });
});
