import { ITEM_PATTERN, KEY_PATTERN, LORE_MAX_LINES, TEXT_MAX, type DisplaySettings } from './model';

/**
 * The value rules of a display, shared by PUT and by the file loader so both refuse the same
 * things with the same words. A problem names its field by path (camelCase, as the API spells
 * it); `tomlKey` spells the same path as the file does.
 */
export interface Problem {
  path: (string | number)[];
  /** Completes a sentence that starts with the field: `must be at most 256 characters, got 300`. */
  message: string;
}

const ITEM = new RegExp(ITEM_PATTERN);
const KEY = new RegExp(KEY_PATTERN);

function textProblem(value: string): string | null {
  if (!value.isWellFormed()) return 'must be valid Unicode text (it holds a lone surrogate)';
  if (/[\r\n]/.test(value)) return 'must be one line (no line breaks)';
  const length = [...value].length;
  if (length > TEXT_MAX) return `must be at most ${TEXT_MAX} characters, got ${length}`;
  return null;
}

const itemProblem = (value: string) => (ITEM.test(value) ? null : `must be an item name matching ${ITEM_PATTERN}, got ${JSON.stringify(value.slice(0, 70))}`);

function sizeProblem(size: number): string | null {
  if (Number.isInteger(size) && size >= 9 && size <= 54 && size % 9 === 0) return null;
  return `must be a multiple of 9 from 9 to 54 (whole inventory rows), got ${size}`;
}

/** Keys and values of a map; a bad key is reported on the map, a bad value on its key. */
function* mapProblems(path: string[], map: Record<string, string>, value: (v: string) => string | null): Generator<Problem> {
  for (const [key, v] of Object.entries(map)) {
    if (!KEY.test(key)) yield { path, message: `has the key ${JSON.stringify(key.slice(0, 70))}; keys must match ${KEY_PATTERN}` };
    const problem = value(v);
    if (problem) yield { path: [...path, key], message: problem };
  }
}

function* allProblems(s: DisplaySettings): Generator<Problem> {
  for (const [key, value] of Object.entries(s.sign)) {
    const problem = textProblem(value);
    if (problem) yield { path: ['sign', key], message: problem };
  }
  const { npc } = s;
  for (const key of ['displayName', 'subtitle', 'subtitleOffline'] as const) {
    const problem = textProblem(npc[key]);
    if (problem) yield { path: ['npc', key], message: problem };
  }
  const item = itemProblem(npc.floatingItem);
  if (item) yield { path: ['npc', 'floatingItem'], message: item };
  yield* mapProblems(['npc', 'statusItems'], npc.statusItems, itemProblem);
  const { inventory } = npc;
  for (const key of ['title', 'itemName'] as const) {
    const problem = textProblem(inventory[key]);
    if (problem) yield { path: ['npc', 'inventory', key], message: problem };
  }
  const size = sizeProblem(inventory.size);
  if (size) yield { path: ['npc', 'inventory', 'size'], message: size };
  if (inventory.itemLore.length > LORE_MAX_LINES) yield { path: ['npc', 'inventory', 'itemLore'], message: `must have at most ${LORE_MAX_LINES} lines, got ${inventory.itemLore.length}` };
  for (const [index, line] of inventory.itemLore.entries()) {
    const problem = textProblem(line);
    if (problem) yield { path: ['npc', 'inventory', 'itemLore', index], message: problem };
  }
  yield* mapProblems(['states'], s.states, textProblem);
}

/** The first rule the settings break, or null. */
export function firstProblem(settings: DisplaySettings): Problem | null {
  for (const problem of allProblems(settings)) return problem;
  return null;
}

/** `npc.inventory.itemLore[2]`, `states.READY`. */
export function apiPath(path: Problem['path']): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

const TOML_KEYS: Record<string, string> = {
  line4Online: 'line4_online',
  line4Offline: 'line4_offline',
  displayName: 'display_name',
  subtitleOffline: 'subtitle_offline',
  floatingItem: 'floating_item',
  statusItems: 'status_items',
  itemName: 'item_name',
  itemLore: 'item_lore',
};

/** The same path as the file spells it: `display.npc.inventory.item_lore[2]`; map keys stay as they are. */
export function tomlKey(path: Problem['path']): string {
  const mapAt = path.findIndex((part) => part === 'states' || part === 'statusItems');
  const spelled = path.map((part, i) => (typeof part === 'string' && (mapAt === -1 || i <= mapAt) ? (TOML_KEYS[part] ?? part) : part));
  return `display.${apiPath(spelled)}`;
}
