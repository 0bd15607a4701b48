import type { DisplaySettings } from './model';

/**
 * What a group's display holds before anyone edits it (REFERENCE-MODULES §3). Text keeps its
 * placeholders (`{name}`, `{players}`, `{max_players}`, `{state}`), which the plugin fills in,
 * so a renamed group or a changed player limit never leaves a stale value in the file.
 */

/** First match wins, on the lower-case group name; order matters (`kitpvp` is caught by `pvp`). */
export const FLOATING_ITEMS: readonly (readonly [string, string])[] = [
  ['bedwar', 'RED_BED'],
  ['skywar', 'EYE_OF_ENDER'],
  ['skyblock', 'GRASS_BLOCK'],
  ['survival', 'DIAMOND_PICKAXE'],
  ['creative', 'PAINTING'],
  ['lobby', 'NETHER_STAR'],
  ['practice', 'IRON_SWORD'],
  ['pvp', 'DIAMOND_SWORD'],
  ['build', 'BRICKS'],
  ['prison', 'IRON_BARS'],
  ['faction', 'TNT'],
  ['kitpvp', 'GOLDEN_APPLE'],
  ['duels', 'BOW'],
  ['tnt', 'TNT'],
  ['party', 'CAKE'],
];
export const FALLBACK_FLOATING_ITEM = 'GRASS_BLOCK';

export function floatingItemFor(groupName: string): string {
  const lower = groupName.toLowerCase();
  return FLOATING_ITEMS.find(([part]) => lower.includes(part))?.[1] ?? FALLBACK_FLOATING_ITEM;
}

export function defaultSettings(groupName: string): DisplaySettings {
  return {
    sign: {
      line1: '&1&l★ {name} ★',
      line2: '&8{players}/{max_players} online',
      line3: '&7{state}',
      line4Online: '&2▶ Click to join!',
      line4Offline: '&4✖ Offline',
    },
    npc: {
      displayName: '&b&l{name}',
      subtitle: '&7{players}/{max_players} online &8| &7{state}',
      subtitleOffline: '&c✖ Offline',
      floatingItem: floatingItemFor(groupName),
      statusItems: {
        ONLINE: 'LIME_WOOL',
        STARTING: 'YELLOW_WOOL',
        INGAME: 'ORANGE_WOOL',
        WAITING: 'LIGHT_BLUE_WOOL',
        OFFLINE: 'GRAY_WOOL',
        FULL: 'RED_WOOL',
        ENDING: 'ORANGE_WOOL',
        STOPPING: 'RED_WOOL',
      },
      inventory: {
        title: '&8» &b&l{name} Servers',
        size: 27,
        itemName: '&b{name}',
        itemLore: ['&7Players: &f{players}/{max_players}', '&7State: &f{state}', '', '&aClick to join!'],
      },
    },
    states: {
      PREPARING: 'STARTING',
      STARTING: 'STARTING',
      READY: 'ONLINE',
      STOPPING: 'STOPPING',
      STOPPED: 'OFFLINE',
      CRASHED: 'OFFLINE',
      WAITING: 'WAITING',
      INGAME: 'INGAME',
      ENDING: 'ENDING',
    },
  };
}
