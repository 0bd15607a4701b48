/**
 * What the Display page reads and sends: a group's display as the display module's routes
 * answer it (src/modules/display/model.ts, "D"), the fields an operator edits, and the PUT
 * body made of the changed fields only (any field at any depth; `states` and
 * `npc.statusItems` merge key by key, a null removing its key). Pure code, no DOM.
 */

export interface Sign {
  line1: string;
  line2: string;
  line3: string;
  line4Online: string;
  line4Offline: string;
}

export interface Inventory {
  title: string;
  size: number;
  itemName: string;
  itemLore: string[];
}

export interface Npc {
  displayName: string;
  subtitle: string;
  subtitleOffline: string;
  floatingItem: string;
  statusItems: Record<string, string>;
  inventory: Inventory;
}

/** D: one group's display; `name` is the group's own spelling. */
export interface Display {
  name: string;
  sign: Sign;
  npc: Npc;
  states: Record<string, string>;
}

export interface DisplayList {
  displays: Display[];
  total: number;
}

/** GET /api/displays/{name}/state/{state}: the label a group shows for a state. */
export interface StateLabel {
  raw: string;
  label: string;
}

export const BASE = '/api/displays';
export const VIEW_NODE = 'svc.dashboard.display.view';
export const MANAGE_NODE = 'svc.dashboard.display.manage';

/** Query keys: everything under ['display'] is read again on the module's events. */
export const KEYS = {
  all: ['display'] as const,
  list: ['display', 'list'] as const,
  one: (name: string) => ['display', 'one', name.toLowerCase()] as const,
  label: (name: string, state: string) => ['display', 'label', name.toLowerCase(), state] as const,
  /** The group's numbers for the preview (players, servers, max players): core's routes, read on service events. */
  sample: (name: string) => ['display-sample', name.toLowerCase()] as const,
};

export const displayPath = (name: string) => `${BASE}/${encodeURIComponent(name)}`;
export const displayHref = (name: string) => `/display?group=${encodeURIComponent(name)}`;

/** The text fields of a display, each by its path in D (the PUT's path and the API's refusals name them so). */
export type TextPath =
  | 'sign.line1'
  | 'sign.line2'
  | 'sign.line3'
  | 'sign.line4Online'
  | 'sign.line4Offline'
  | 'npc.displayName'
  | 'npc.subtitle'
  | 'npc.subtitleOffline'
  | 'npc.floatingItem'
  | 'npc.inventory.title'
  | 'npc.inventory.itemName';

export type ScalarPath = TextPath | 'npc.inventory.size' | 'npc.inventory.itemLore';

export interface FieldInfo {
  path: ScalarPath;
  /** The control's accessible name. */
  label: string;
  hint: string;
  kind: 'text' | 'item' | 'size' | 'lore';
}

export const SIGN_FIELDS: readonly FieldInfo[] = [
  { path: 'sign.line1', label: 'Sign line 1', hint: 'The top line.', kind: 'text' },
  { path: 'sign.line2', label: 'Sign line 2', hint: '', kind: 'text' },
  { path: 'sign.line3', label: 'Sign line 3', hint: '', kind: 'text' },
  { path: 'sign.line4Online', label: 'Sign line 4 while joinable', hint: 'While a server of the group can be joined.', kind: 'text' },
  { path: 'sign.line4Offline', label: 'Sign line 4 while none is', hint: 'While no server of the group can be joined.', kind: 'text' },
];

export const NPC_FIELDS: readonly FieldInfo[] = [
  { path: 'npc.displayName', label: 'NPC name', hint: 'The hologram above the NPC; || separates animation frames.', kind: 'text' },
  { path: 'npc.subtitle', label: 'NPC line while joinable', hint: 'Under the name while a server of the group can be joined.', kind: 'text' },
  { path: 'npc.subtitleOffline', label: 'NPC line while none is', hint: 'Under the name while no server of the group can be joined.', kind: 'text' },
  { path: 'npc.floatingItem', label: 'Floating item', hint: 'The item shown above the NPC: a material name such as NETHER_STAR.', kind: 'item' },
];

export const INVENTORY_FIELDS: readonly FieldInfo[] = [
  { path: 'npc.inventory.title', label: 'Server picker title', hint: 'The chest the NPC opens when clicked.', kind: 'text' },
  { path: 'npc.inventory.size', label: 'Server picker size', hint: 'Whole rows of 9 slots.', kind: 'size' },
  { path: 'npc.inventory.itemName', label: 'Server item name', hint: 'One item per server of the group; {name} is the server’s name here.', kind: 'text' },
  { path: 'npc.inventory.itemLore', label: 'Server item lore', hint: 'The lines under the item’s name, one per line of this box; an empty line stays empty.', kind: 'lore' },
];

export const ALL_FIELDS: readonly FieldInfo[] = [...SIGN_FIELDS, ...NPC_FIELDS, ...INVENTORY_FIELDS];

export const SIZES = [9, 18, 27, 36, 45, 54] as const;

export type ScalarValue = string | number | string[];

/** A field's value in a display. */
export function valueAt(display: Display, path: ScalarPath): ScalarValue {
  const [head, second, third] = path.split('.') as [string, string, string | undefined];
  if (head === 'sign') return display.sign[second as keyof Sign];
  if (second === 'inventory') return display.npc.inventory[third as keyof Inventory];
  return display.npc[second as 'displayName' | 'subtitle' | 'subtitleOffline' | 'floatingItem'];
}

export function sameValue(a: ScalarValue, b: ScalarValue): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}

/** The two maps a display holds: state labels, and an item per label. */
export type MapName = 'states' | 'statusItems';
export const mapOf = (display: Display, map: MapName): Record<string, string> => (map === 'states' ? display.states : display.npc.statusItems);

/**
 * What the operator changed and has not saved: a field's new value, a map key's new value (or
 * null: removed). A field typed back to what the controller holds is no change, so the PUT
 * carries exactly the fields that differ.
 */
export interface Draft {
  fields: Partial<Record<ScalarPath, ScalarValue>>;
  maps: Record<MapName, Record<string, string | null>>;
}

export const emptyDraft = (): Draft => ({ fields: {}, maps: { states: {}, statusItems: {} } });

export function fieldValue(display: Display, draft: Draft, path: ScalarPath): ScalarValue {
  return Object.hasOwn(draft.fields, path) ? draft.fields[path]! : valueAt(display, path);
}

export function withField(display: Display, draft: Draft, path: ScalarPath, value: ScalarValue): Draft {
  const fields = { ...draft.fields };
  if (sameValue(value, valueAt(display, path))) delete fields[path];
  else fields[path] = value;
  return { ...draft, fields };
}

/** A map as it would be after the draft: the controller's entries, changed, removed and added. */
export function draftMap(display: Display, draft: Draft, map: MapName): [string, string][] {
  const held = mapOf(display, map);
  const edits = draft.maps[map];
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(held)) {
    if (!Object.hasOwn(edits, key)) out.push([key, value]);
    else if (edits[key] !== null) out.push([key, edits[key]!]);
  }
  for (const [key, value] of Object.entries(edits)) if (!Object.hasOwn(held, key) && value !== null) out.push([key, value]);
  return out;
}

/** The draft with one map key set (null: removed); a value equal to the controller's is no change. */
export function withMapKey(display: Display, draft: Draft, map: MapName, key: string, value: string | null): Draft {
  const held = mapOf(display, map);
  const edits = { ...draft.maps[map] };
  const has = Object.hasOwn(held, key);
  if ((value === null && !has) || (value !== null && has && held[key] === value)) delete edits[key];
  else edits[key] = value;
  return { ...draft, maps: { ...draft.maps, [map]: edits } };
}

/** The draft without what no longer differs from `display` (the controller changed meanwhile). */
export function rebase(display: Display, draft: Draft): Draft {
  let next: Draft = { fields: {}, maps: { states: {}, statusItems: {} } };
  for (const [path, value] of Object.entries(draft.fields) as [ScalarPath, ScalarValue][]) next = withField(display, next, path, value);
  for (const map of ['states', 'statusItems'] as const) for (const [key, value] of Object.entries(draft.maps[map])) next = withMapKey(display, next, map, key, value);
  return next;
}

export function changeCount(draft: Draft): number {
  return Object.keys(draft.fields).length + Object.keys(draft.maps.states).length + Object.keys(draft.maps.statusItems).length;
}

/** The changes in words: "Sign line 1", "state label READY removed". */
export function changeWords(draft: Draft): string[] {
  const words = ALL_FIELDS.filter((f) => Object.hasOwn(draft.fields, f.path)).map((f) => f.label);
  for (const [map, what] of [
    ['states', 'state label'],
    ['statusItems', 'status item'],
  ] as const) {
    for (const [key, value] of Object.entries(draft.maps[map])) words.push(`${what} ${key}${value === null ? ' removed' : ''}`);
  }
  return words;
}

type Json = Record<string, unknown>;

/** The PUT body: only what the draft changes, nested as D is. */
export function patchOf(draft: Draft): Json {
  const patch: Json = {};
  const at = (keys: string[]): Json => {
    let node = patch;
    for (const key of keys) node = (node[key] ??= {}) as Json;
    return node;
  };
  for (const [path, value] of Object.entries(draft.fields)) {
    const keys = path.split('.');
    at(keys.slice(0, -1))[keys.at(-1)!] = value;
  }
  if (Object.keys(draft.maps.states).length > 0) Object.assign(at(['states']), draft.maps.states);
  if (Object.keys(draft.maps.statusItems).length > 0) Object.assign(at(['npc', 'statusItems']), draft.maps.statusItems);
  return patch;
}

/**
 * Where a refusal points: the API says `body field "npc.inventory.itemLore[2]" must be …`.
 * The field's path (the lore box for a lore line), or the map and key for a map's entry
 * (`states` alone: a key the map may not have). Null when the message names no field.
 */
export type Target = { kind: 'field'; path: ScalarPath } | { kind: 'map'; map: MapName; key: string | null };

export function targetOf(message: string): Target | null {
  // The store's rules say `body field "…"`, the schema's `body "…"` (array items as `.2` there, `[2]` here).
  const named = /\bbody(?: field)? "([^"]+)"/.exec(message);
  if (!named) return null;
  const path = named[1]!.replace(/(\[\d+\]|\.\d+)$/, '');
  if (path === 'states' || path.startsWith('states.')) return { kind: 'map', map: 'states', key: path === 'states' ? null : path.slice('states.'.length) };
  if (path === 'npc.statusItems' || path.startsWith('npc.statusItems.')) return { kind: 'map', map: 'statusItems', key: path === 'npc.statusItems' ? null : path.slice('npc.statusItems.'.length) };
  const field = ALL_FIELDS.find((f) => f.path === path);
  return field ? { kind: 'field', path: field.path } : null;
}

/** Every state a service can be in (core's lifecycle), for the preview's choice beside the labels' own keys. */
export const SERVICE_STATES = ['PREPARING', 'PREPARED', 'STARTING', 'READY', 'DRAINING', 'STOPPING', 'STOPPED', 'CRASHED'] as const;

/** The display as it would be once the draft is saved (what the preview draws). */
export function applied(display: Display, draft: Draft): Display {
  const value = <T extends ScalarValue>(path: ScalarPath) => fieldValue(display, draft, path) as T;
  return {
    name: display.name,
    sign: {
      line1: value('sign.line1'),
      line2: value('sign.line2'),
      line3: value('sign.line3'),
      line4Online: value('sign.line4Online'),
      line4Offline: value('sign.line4Offline'),
    },
    npc: {
      displayName: value('npc.displayName'),
      subtitle: value('npc.subtitle'),
      subtitleOffline: value('npc.subtitleOffline'),
      floatingItem: value('npc.floatingItem'),
      statusItems: Object.fromEntries(draftMap(display, draft, 'statusItems')),
      inventory: {
        title: value('npc.inventory.title'),
        size: value('npc.inventory.size'),
        itemName: value('npc.inventory.itemName'),
        itemLore: value('npc.inventory.itemLore'),
      },
    },
    states: Object.fromEntries(draftMap(display, draft, 'states')),
  };
}
