import { describe, expect, test } from 'bun:test';
import { defaultSettings } from '../../../src/modules/display/defaults';
import { mergeDisplay } from '../../../src/modules/display/merge';
import type { DisplayPatch } from '../../../src/modules/display/model';
import { apiPath, firstProblem, tomlKey } from '../../../src/modules/display/rules';

const base = () => defaultSettings('Lobby');

describe('mergeDisplay', () => {
  test('an empty patch changes nothing and returns a new value', () => {
    const current = base();
    const merged = mergeDisplay(current, {});
    expect(merged).toEqual(current);
    expect(merged).not.toBe(current);
    expect(merged.npc.inventory.itemLore).not.toBe(current.npc.inventory.itemLore);
  });

  test('one sign line replaces that line only', () => {
    const merged = mergeDisplay(base(), { sign: { line3: 'x' } });
    expect(merged.sign).toEqual({ ...base().sign, line3: 'x' });
    expect(merged.npc).toEqual(base().npc);
  });

  test('partial npc and inventory keep the fields they do not carry', () => {
    const merged = mergeDisplay(base(), { npc: { subtitle: 's', inventory: { size: 54 } } });
    expect(merged.npc).toEqual({ ...base().npc, subtitle: 's', inventory: { ...base().npc.inventory, size: 54 } });
  });

  test('itemLore replaces the whole list', () => {
    expect(mergeDisplay(base(), { npc: { inventory: { itemLore: [] } } }).npc.inventory.itemLore).toEqual([]);
  });

  test('states and statusItems merge key by key; null removes; a removed unknown key is no change', () => {
    const patch: DisplayPatch = {
      states: { READY: 'OPEN', CRASHED: null, CUSTOM_STATE: 'LABEL', NEVER_THERE: null },
      npc: { statusItems: { OPEN: 'GREEN_WOOL', FULL: null } },
    };
    const merged = mergeDisplay(base(), patch);
    const { CRASHED: _gone, ...states } = base().states;
    expect(merged.states).toEqual({ ...states, READY: 'OPEN', CUSTOM_STATE: 'LABEL' });
    const { FULL: _full, ...items } = base().npc.statusItems;
    expect(merged.npc.statusItems).toEqual({ ...items, OPEN: 'GREEN_WOOL' });
  });

  test('a __proto__ key is an ordinary key', () => {
    const patch = JSON.parse('{"states":{"__proto__":"X"}}') as DisplayPatch;
    const merged = mergeDisplay(base(), patch);
    expect(Object.hasOwn(merged.states, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(merged.states)).toBe(Object.prototype);
  });

  test('the current value is never modified', () => {
    const current = base();
    const before = structuredClone(current);
    mergeDisplay(current, { sign: { line1: 'a' }, states: { READY: null }, npc: { statusItems: { ONLINE: null }, inventory: { itemLore: ['x'] } } });
    expect(current).toEqual(before);
  });

  test('fields outside the shape are ignored', () => {
    const patch = JSON.parse('{"sign":{"line9":"x"},"npc":{"skin":"y"},"extra":1}') as DisplayPatch;
    expect(mergeDisplay(base(), patch)).toEqual(base());
  });
});

describe('rules', () => {
  const problemOf = (patch: DisplayPatch) => {
    const problem = firstProblem(mergeDisplay(base(), patch));
    return problem && { api: apiPath(problem.path), toml: tomlKey(problem.path), message: problem.message };
  };

  test.each<[DisplayPatch, string, string, string]>([
    [{ sign: { line1: 'x'.repeat(257) } }, 'sign.line1', 'display.sign.line1', 'at most 256 characters, got 257'],
    [{ sign: { line4Online: 'a\nb' } }, 'sign.line4Online', 'display.sign.line4_online', 'one line'],
    [{ sign: { line2: 'a\rb' } }, 'sign.line2', 'display.sign.line2', 'one line'],
    [{ sign: { line3: 'bad \ud800' } }, 'sign.line3', 'display.sign.line3', 'lone surrogate'],
    [{ npc: { subtitleOffline: 'x'.repeat(300) } }, 'npc.subtitleOffline', 'display.npc.subtitle_offline', 'got 300'],
    [{ npc: { floatingItem: 'not an item' } }, 'npc.floatingItem', 'display.npc.floating_item', 'item name matching'],
    [{ npc: { floatingItem: '' } }, 'npc.floatingItem', 'display.npc.floating_item', 'item name matching'],
    [{ npc: { statusItems: { ONLINE: 'red wool' } } }, 'npc.statusItems.ONLINE', 'display.npc.status_items.ONLINE', 'item name matching'],
    [{ npc: { statusItems: { 'bad key': 'RED_WOOL' } } }, 'npc.statusItems', 'display.npc.status_items', 'keys must match'],
    [{ states: { displayName: 'x\n' } }, 'states.displayName', 'display.states.displayName', 'one line'],
    [{ states: { 'a.b': 'x' } }, 'states', 'display.states', 'keys must match'],
    [{ npc: { inventory: { size: 10 } } }, 'npc.inventory.size', 'display.npc.inventory.size', 'multiple of 9'],
    [{ npc: { inventory: { size: 63 } } }, 'npc.inventory.size', 'display.npc.inventory.size', 'got 63'],
    [{ npc: { inventory: { size: 0 } } }, 'npc.inventory.size', 'display.npc.inventory.size', 'got 0'],
    [{ npc: { inventory: { size: 27.5 } } }, 'npc.inventory.size', 'display.npc.inventory.size', 'got 27.5'],
    [{ npc: { inventory: { itemLore: Array.from({ length: 33 }, () => 'x') } } }, 'npc.inventory.itemLore', 'display.npc.inventory.item_lore', 'at most 32 lines'],
    [{ npc: { inventory: { itemLore: ['ok', 'x'.repeat(257)] } } }, 'npc.inventory.itemLore[1]', 'display.npc.inventory.item_lore[1]', 'at most 256'],
    [{ npc: { inventory: { title: 'a\nb' } } }, 'npc.inventory.title', 'display.npc.inventory.title', 'one line'],
  ])('%j → %s', (patch, api, toml, fragment) => {
    const problem = problemOf(patch);
    expect(problem).toMatchObject({ api, toml });
    expect(problem!.message).toContain(fragment);
  });

  test.each<DisplayPatch>([
    { sign: { line1: 'x'.repeat(256) } },
    { sign: { line1: '🎉'.repeat(256) } },
    { sign: { line1: '' } },
    { npc: { floatingItem: 'minecraft:diamond_sword' } },
    { npc: { inventory: { size: 9 } } },
    { npc: { inventory: { size: 54 } } },
    { npc: { inventory: { itemLore: Array.from({ length: 32 }, () => '') } } },
    { states: { 'my-state_2': 'x'.repeat(256) } },
  ])('accepted: %j', (patch) => {
    expect(problemOf(patch)).toBeNull();
  });
});
