import type { DisplayPatch, DisplaySettings } from './model';

/**
 * A PUT applied to the current settings, as a new value (the current one is not touched).
 * Every field the patch carries replaces its value, at any depth; every other field keeps its
 * value. `states` and `npc.statusItems` merge key by key, and a null removes its key. Only the
 * known fields are read, so whatever else a body carries is ignored. The result is not checked
 * here: see rules.ts.
 */
export function mergeDisplay(current: DisplaySettings, patch: DisplayPatch): DisplaySettings {
  // `?? {}` rather than defaults in the pattern: a null where an object belongs is "nothing" too.
  const sign = patch.sign ?? {};
  const npc = patch.npc ?? {};
  const inventory = npc.inventory ?? {};
  const { states } = patch;
  const { statusItems } = npc;
  return {
    sign: {
      line1: sign.line1 ?? current.sign.line1,
      line2: sign.line2 ?? current.sign.line2,
      line3: sign.line3 ?? current.sign.line3,
      line4Online: sign.line4Online ?? current.sign.line4Online,
      line4Offline: sign.line4Offline ?? current.sign.line4Offline,
    },
    npc: {
      displayName: npc.displayName ?? current.npc.displayName,
      subtitle: npc.subtitle ?? current.npc.subtitle,
      subtitleOffline: npc.subtitleOffline ?? current.npc.subtitleOffline,
      floatingItem: npc.floatingItem ?? current.npc.floatingItem,
      statusItems: mergeMap(current.npc.statusItems, statusItems),
      inventory: {
        title: inventory.title ?? current.npc.inventory.title,
        size: inventory.size ?? current.npc.inventory.size,
        itemName: inventory.itemName ?? current.npc.inventory.itemName,
        itemLore: [...(inventory.itemLore ?? current.npc.inventory.itemLore)],
      },
    },
    states: mergeMap(current.states, states),
  };
}

function mergeMap(current: Record<string, string>, patch: Record<string, string | null> | undefined): Record<string, string> {
  // A Map, so a key such as `__proto__` is a key like any other and never touches a prototype.
  const out = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null) out.delete(key);
    else out.set(key, value);
  }
  return Object.fromEntries(out);
}
