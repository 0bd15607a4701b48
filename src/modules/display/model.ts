import { t } from '../../http/t';
import { Type, type Static } from '@sinclair/typebox';
import { GROUP_NAME } from '../../core/groups/model';

/**
 * The shapes the existing dashboard and the display plugin read (REFERENCE-MODULES §3). Field
 * rules (lengths, patterns, chest sizes) are checked by rules.ts, so the file and the API share
 * one set of messages; the schemas here describe types and document the rules.
 */

export const TEXT_MAX = 256;
export const LORE_MAX_LINES = 32;
export const ITEM_PATTERN = '^[A-Za-z0-9_:.-]{1,64}$';
export const KEY_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

const text = (description: string) => Type.String({ description: `${description}; at most ${TEXT_MAX} characters, one line` });
const item = (description: string) => Type.String({ description: `${description}; a material name matching ${ITEM_PATTERN}` });

export const SignSchema = Type.Object({
  line1: text('first sign line'),
  line2: text('second sign line'),
  line3: text('third sign line'),
  line4Online: text('fourth line while a server of the group is joinable'),
  line4Offline: text('fourth line while none is'),
});

export const InventorySchema = Type.Object({
  title: text('title of the server-picker inventory'),
  size: Type.Integer({ minimum: 9, maximum: 54, multipleOf: 9, description: 'slots: 9 to 54, a multiple of 9' }),
  itemName: text('name of each server item'),
  itemLore: Type.Array(text('lore line'), { maxItems: LORE_MAX_LINES }),
});

export const NpcSchema = Type.Object({
  displayName: text('hologram name; `||` separates animation frames'),
  subtitle: text('hologram line while a server of the group is joinable'),
  subtitleOffline: text('hologram line while none is'),
  floatingItem: item('item shown above the NPC'),
  statusItems: Type.Record(Type.String(), Type.String(), { description: `item per state label (keys match ${KEY_PATTERN})` }),
  inventory: InventorySchema,
});

export const StatesSchema = Type.Record(Type.String(), Type.String(), { description: `label per service state (keys match ${KEY_PATTERN})` });

/** What a group's display is, without its name (the file's content). */
export const DisplaySettingsSchema = Type.Object({ sign: SignSchema, npc: NpcSchema, states: StatesSchema });
export type DisplaySettings = Static<typeof DisplaySettingsSchema>;

/** D: one group's display as the API answers it; `name` is the group's own spelling. */
export const DisplaySchema = Type.Object({ name: Type.String(), ...DisplaySettingsSchema.properties });
export type Display = Static<typeof DisplaySchema>;

export const DisplayListSchema = Type.Object({ displays: Type.Array(DisplaySchema), total: Type.Integer() });

export const StateLabelSchema = Type.Object({
  raw: Type.String({ description: 'the state asked for' }),
  label: Type.String({ description: 'its label from `states`, or the raw state when it has none' }),
});

const removable = (value: ReturnType<typeof Type.String>) => Type.Record(Type.String(), Type.Union([value, Type.Null()]));

/**
 * PUT body: every field optional at every level, the body itself too (no body, no change).
 * `states` and `npc.statusItems` merge key by key, a null value removing the key. Unknown keys
 * are ignored.
 */
export const DisplayPatchSchema = Type.Optional(Type.Object({
  sign: Type.Optional(Type.Partial(SignSchema)),
  npc: Type.Optional(
    Type.Object({
      displayName: Type.Optional(NpcSchema.properties.displayName),
      subtitle: Type.Optional(NpcSchema.properties.subtitle),
      subtitleOffline: Type.Optional(NpcSchema.properties.subtitleOffline),
      floatingItem: Type.Optional(NpcSchema.properties.floatingItem),
      statusItems: Type.Optional(removable(Type.String({ description: 'an item name, or null to remove the key' }))),
      // A number, so a fractional size gets the same message as every other wrong size.
      inventory: Type.Optional(Type.Partial(Type.Object({ ...InventorySchema.properties, size: Type.Number({ description: 'slots: 9 to 54, a multiple of 9' }) }))),
    }),
  ),
  states: Type.Optional(removable(Type.String({ description: 'a label, or null to remove the key' }))),
}));
export type DisplayPatch = Static<typeof DisplayPatchSchema>;

export const NameParams = t.Object({ name: t.String({ pattern: GROUP_NAME, description: 'group name, any case' }) });
export const StateParams = t.Object({
  name: t.String({ pattern: GROUP_NAME, description: 'group name, any case' }),
  state: t.String({ pattern: KEY_PATTERN, description: 'a service state (READY, STOPPED...) or a custom state' }),
});
