import { describe, expect, test } from 'bun:test';
import { parse } from 'smol-toml';
import { defaultSettings } from '../../../src/modules/display/defaults';
import { parseDisplayToml, renderDisplayToml } from '../../../src/modules/display/file';
import { mergeDisplay } from '../../../src/modules/display/merge';
import { HOSTILE } from './hostile';

describe('display TOML file', () => {
  test('defaults render as the documented layout and read back equal', () => {
    const text = renderDisplayToml('Lobby', defaultSettings('Lobby'));
    expect(text.startsWith('#')).toBe(true);
    const raw = parse(text) as { display: Record<string, unknown> };
    expect(Object.keys(raw.display)).toEqual(['name', 'sign', 'npc', 'states']);
    expect(raw.display.name).toBe('Lobby');
    expect(raw.display.sign).toEqual({
      line1: '&1&l★ {name} ★',
      line2: '&8{players}/{max_players} online',
      line3: '&7{state}',
      line4_online: '&2▶ Click to join!',
      line4_offline: '&4✖ Offline',
    });
    expect(Object.keys(raw.display.npc as object)).toEqual(['display_name', 'subtitle', 'subtitle_offline', 'floating_item', 'status_items', 'inventory']);
    expect((raw.display.npc as { inventory: unknown }).inventory).toEqual({
      title: '&8» &b&l{name} Servers',
      size: 27,
      item_name: '&b{name}',
      item_lore: ['&7Players: &f{players}/{max_players}', '&7State: &f{state}', '', '&aClick to join!'],
    });
    expect(text).toContain('[display.npc.status_items]\nONLINE = "LIME_WOOL"');
    expect(text).toContain('[display.states]\nPREPARING = "STARTING"');
    expect(parseDisplayToml(text, 'Lobby')).toEqual({ ok: true, settings: defaultSettings('Lobby') });
  });

  test('every value round-trips, hostile text and custom keys included', () => {
    const [a, b, c, d, e, f, g, h, i] = HOSTILE;
    const settings = mergeDisplay(defaultSettings('Lobby'), {
      sign: { line1: a, line2: b, line3: c, line4Online: d, line4Offline: e },
      npc: { displayName: g, subtitle: f, subtitleOffline: h, statusItems: { 'MY-STATE_1': 'minecraft:red_wool' }, inventory: { title: i, itemName: a, itemLore: [...HOSTILE] } },
      states: { CUSTOM: g, READY: null },
    });
    const back = parseDisplayToml(renderDisplayToml('Lobby', settings), 'Lobby');
    expect(back).toEqual({ ok: true, settings });
  });

  test('empty maps stay empty; only a missing table takes the defaults', () => {
    const settings = { ...defaultSettings('Lobby'), states: {} };
    expect(parseDisplayToml(renderDisplayToml('Lobby', settings), 'Lobby')).toEqual({ ok: true, settings });
    const partial = parseDisplayToml('[display.sign]\nline1 = "only this"\n', 'BedWars');
    expect(partial).toEqual({ ok: true, settings: { ...defaultSettings('BedWars'), sign: { ...defaultSettings('BedWars').sign, line1: 'only this' } } });
    expect(parseDisplayToml('', 'Lobby')).toEqual({ ok: true, settings: defaultSettings('Lobby') });
  });

  test.each([
    ['[display.sign\nline1 = "x"', 'not valid TOML'],
    ['[display.sign]\nline1 = "unterminated', 'not valid TOML: unfinished string at line 2, column 9'],
    ['[display.npc.inventory]\nsize = "27"', 'display.npc.inventory.size must be an integer, got "27"'],
    ['[display.sign]\nline1 = 5', 'display.sign.line1 must be a string, got 5'],
    ['[display.npc.inventory]\nitem_lore = "one line"', 'display.npc.inventory.item_lore must be'],
    ['[display.states]\nREADY = 1', 'display.states.READY must be a string, got 1'],
    ['display = 3', 'display must be an object'],
    ['[display.npc.inventory]\nsize = 10', 'display.npc.inventory.size must be a multiple of 9'],
    ['[display.npc]\nfloating_item = "two words"', 'display.npc.floating_item must be an item name'],
    ['[display.npc.status_items]\n"bad key" = "RED_WOOL"', 'display.npc.status_items has the key "bad key"'],
    ['[display.sign]\nline1 = "a\\nb"', 'display.sign.line1 must be one line'],
  ])('%p is refused: %p', (text, fragment) => {
    const parsed = parseDisplayToml(text, 'Lobby');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toContain(fragment);
  });
});
