import type { DisplayPatch, DisplaySettings } from './model';

/**
 * Laying a partial display over a whole one, written once for the PUT (mergeDisplay) and the
 * file (file.ts reads a group's file over its defaults). The walk follows the whole value's
 * fields, so only known fields are read and whatever else the partial carries is ignored, and a
 * field added to the settings is carried by both without another copy.
 */

/** The fields that are maps (a label or item per key) rather than records of fixed fields. */
const MAP_FIELDS: ReadonlySet<string> = new Set(['states', 'npc.statusItems']);

export interface OverlayRules {
  /** The partial's name for a settings key (the file spells them snake_case); the same name by default. */
  keyOf?: (key: string) => string;
  /** A map given: merged key by key with a null removing its key (the PUT), or taken whole (the file: an empty table means none). */
  maps: 'merge' | 'replace';
}

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `over` laid on `whole`, as a new value (neither is touched): a field the partial gives replaces
 * its value at any depth, a missing or null one keeps it; an array is copied. The result is not
 * checked here: see rules.ts.
 */
export function overlaySettings(whole: DisplaySettings, over: unknown, rules: OverlayRules): DisplaySettings {
  // The walk builds exactly the fields of `whole`, each of its type (the partial's were checked by its schema).
  return overlayFields(whole, over, '', rules) as DisplaySettings;
}

function overlayFields(whole: Fields, over: unknown, at: string, rules: OverlayRules): Fields {
  const given = isFields(over) ? over : {};
  const out: Fields = {};
  for (const [key, value] of Object.entries(whole)) {
    const path = at === '' ? key : `${at}.${key}`;
    const next = given[rules.keyOf ? rules.keyOf(key) : key];
    if (MAP_FIELDS.has(path) && isFields(value)) out[key] = overlayMap(value, next, rules.maps);
    else if (Array.isArray(value)) out[key] = [...(Array.isArray(next) ? next : value)];
    else if (isFields(value)) out[key] = overlayFields(value, next, path, rules);
    else out[key] = next ?? value;
  }
  return out;
}

function overlayMap(whole: Fields, over: unknown, maps: OverlayRules['maps']): Fields {
  if (!isFields(over)) return { ...whole };
  // A Map, so a key such as `__proto__` is a key like any other and never touches a prototype.
  const out = new Map(maps === 'merge' ? Object.entries(whole) : []);
  for (const [key, value] of Object.entries(over)) {
    if (value === null) out.delete(key);
    else out.set(key, value);
  }
  return Object.fromEntries(out);
}

/**
 * A PUT applied to the current settings, as a new value (the current one is not touched).
 * Every field the patch carries replaces its value, at any depth; every other field keeps its
 * value. `states` and `npc.statusItems` merge key by key, and a null removes its key.
 */
export function mergeDisplay(current: DisplaySettings, patch: DisplayPatch): DisplaySettings {
  return overlaySettings(current, patch, { maps: 'merge' });
}
