import { describe, expect, test } from 'bun:test';
import { defaultSettings } from '../../../src/modules/display/defaults';
import { overlaySettings } from '../../../src/modules/display/merge';

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

describe('overlaySettings: one walk for the PUT and the file', () => {
  test('the partial names keys its own way (keyOf); every field of the settings is reached', () => {
    const whole = defaultSettings('Lobby');
    const over = {
      sign: { line1: 'a', line2: 'b', line3: 'c', line4_online: 'd', line4_offline: 'e' },
      npc: { display_name: 'f', subtitle: 'g', subtitle_offline: 'h', floating_item: 'STONE', status_items: { X: 'DIRT' }, inventory: { title: 'i', size: 18, item_name: 'j', item_lore: ['k'] } },
      states: { READY: 'l' },
    };
    expect(overlaySettings(whole, over, { keyOf: snake, maps: 'replace' })).toEqual({
      sign: { line1: 'a', line2: 'b', line3: 'c', line4Online: 'd', line4Offline: 'e' },
      npc: { displayName: 'f', subtitle: 'g', subtitleOffline: 'h', floatingItem: 'STONE', statusItems: { X: 'DIRT' }, inventory: { title: 'i', size: 18, itemName: 'j', itemLore: ['k'] } },
      states: { READY: 'l' },
    });
  });

  test('replace: a map given (even empty) is taken whole; merge: key by key, null removing', () => {
    const whole = { ...defaultSettings('Lobby'), states: { A: '1', B: '2' } };
    expect(overlaySettings(whole, { states: {} }, { maps: 'replace' }).states).toEqual({});
    expect(overlaySettings(whole, { states: { B: null, C: '3' } }, { maps: 'merge' }).states).toEqual({ A: '1', C: '3' });
    expect(overlaySettings(whole, {}, { maps: 'replace' }).states).toEqual({ A: '1', B: '2' });
  });

  test('unknown keys and a partial that is not an object are ignored; the whole value is not touched', () => {
    const whole = defaultSettings('Lobby');
    const before = structuredClone(whole);
    const out = overlaySettings(whole, { extra: 1, sign: 'nonsense', npc: { inventory: { itemLore: ['x'] } } }, { maps: 'merge' });
    expect(out).not.toHaveProperty('extra');
    expect(out.sign).toEqual(whole.sign);
    expect(out.npc.inventory.itemLore).toEqual(['x']);
    expect(out.sign).not.toBe(whole.sign);
    expect(whole).toEqual(before);
  });
});
