import { defaultSettings } from '../../../../src/modules/display/defaults';
import { mergeDisplay } from '../../../../src/modules/display/merge';
import type { DisplaySettings } from '../../../../src/modules/display/model';
import { HOSTILE } from '../hostile';

/**
 * The group names and settings display files' golden files (next to this) were written from,
 * by the renderer display files had before they were rendered from their schema.
 */
const [a, b, c, d, e, f, g, h, i] = HOSTILE;
export const GOLDEN_VALUES: Record<string, { group: string; settings: DisplaySettings }> = {
  defaults: { group: 'Lobby', settings: defaultSettings('Lobby') },
  hostile: {
    group: 'Bed "Wars" \\ 2',
    settings: mergeDisplay(defaultSettings('BedWars'), {
      sign: { line1: a, line2: b, line3: c, line4Online: d, line4Offline: e },
      npc: { displayName: g, subtitle: f, subtitleOffline: h, statusItems: { 'MY-STATE_1': 'minecraft:red_wool', 'with space': 'X', 'ünï': 'Y' }, inventory: { title: i, itemName: a, itemLore: [...HOSTILE] } },
      states: { CUSTOM: g, READY: null },
    }),
  },
  /** Empty maps: a table line alone, one right after the other, and last. */
  'empty-maps': { group: 'Survival', settings: { ...defaultSettings('Survival'), npc: { ...defaultSettings('Survival').npc, statusItems: {}, inventory: { ...defaultSettings('Survival').npc.inventory, itemLore: [] } }, states: {} } },
};
