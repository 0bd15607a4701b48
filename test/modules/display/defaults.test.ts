import { describe, expect, test } from 'bun:test';
import { defaultSettings, floatingItemFor } from '../../../src/modules/display/defaults';
import { firstProblem } from '../../../src/modules/display/rules';

describe('floating item guessed from the group name', () => {
  test.each([
    ['BedWars', 'RED_BED'],
    ['skywars-solo', 'EYE_OF_ENDER'],
    ['SkyBlock', 'GRASS_BLOCK'],
    ['Survival', 'DIAMOND_PICKAXE'],
    ['creative2', 'PAINTING'],
    ['Lobby', 'NETHER_STAR'],
    ['PRACTICE', 'IRON_SWORD'],
    ['pvp', 'DIAMOND_SWORD'],
    // First match wins: "kitpvp" contains "pvp", which the table lists earlier.
    ['KitPvP', 'DIAMOND_SWORD'],
    ['BuildBattle', 'BRICKS'],
    ['Prison', 'IRON_BARS'],
    ['Factions', 'TNT'],
    ['Duels', 'BOW'],
    ['TNTRun', 'TNT'],
    ['PartyGames', 'CAKE'],
    // "bedwar" is listed before "lobby".
    ['BedwarsLobby', 'RED_BED'],
    ['Minigames', 'GRASS_BLOCK'],
    ['', 'GRASS_BLOCK'],
  ])('%p → %p', (name, item) => {
    expect(floatingItemFor(name)).toBe(item);
  });
});

describe('default settings', () => {
  test('keep placeholders instead of the group name or a player limit, and pass the rules', () => {
    const d = defaultSettings('Lobby');
    expect(d.sign.line1).toBe('&1&l★ {name} ★');
    expect(d.sign.line2).toBe('&8{players}/{max_players} online');
    expect(d.npc.displayName).toBe('&b&l{name}');
    expect(JSON.stringify(d)).not.toContain('Lobby');
    expect(firstProblem(d)).toBeNull();
  });

  test('every call is a fresh value', () => {
    const a = defaultSettings('Lobby');
    a.states.READY = 'changed';
    a.npc.inventory.itemLore.push('x');
    expect(defaultSettings('Lobby').states.READY).toBe('ONLINE');
    expect(defaultSettings('Lobby').npc.inventory.itemLore).toHaveLength(4);
  });
});
