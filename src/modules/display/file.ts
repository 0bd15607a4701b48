import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { stringify } from 'smol-toml';
import { parseTomlText, TomlSyntaxError } from '../../config/unit/toml-syntax';
import { describeSchema, showValue } from '../../describe-schema';
import { defaultSettings } from './defaults';
import { overlaySettings } from './merge';
import type { DisplaySettings } from './model';
import { firstProblem, tomlKey } from './rules';

/**
 * One group's display file, `config/modules/display/<Group>.toml`, read and written only with
 * a TOML parser and encoder, so any text survives (quotes, backslashes, unicode, brackets).
 * Every key is optional: a missing one takes its default.
 */

const S = Type.Optional(Type.String());
const StringMap = Type.Optional(Type.Record(Type.String(), Type.String()));

const FileSchema = Type.Object({
  display: Type.Optional(
    Type.Object({
      name: S,
      sign: Type.Optional(Type.Object({ line1: S, line2: S, line3: S, line4_online: S, line4_offline: S })),
      npc: Type.Optional(
        Type.Object({
          display_name: S,
          subtitle: S,
          subtitle_offline: S,
          floating_item: S,
          status_items: StringMap,
          inventory: Type.Optional(Type.Object({ title: S, size: Type.Optional(Type.Integer()), item_name: S, item_lore: Type.Optional(Type.Array(Type.String())) })),
        }),
      ),
      states: StringMap,
    }),
  ),
});
type DisplayFile = Static<typeof FileSchema>;

const HEADER = [
  '# Display of one group: server-selector signs and NPCs, read by the svc display plugin.',
  '# Placeholders: {name} {players} {max_players} {state} {servers} {target}; `||` separates',
  '# NPC hologram animation frames. After editing by hand, run POST /api/reload.',
  '',
].join('\n');

export function renderDisplayToml(groupName: string, s: DisplaySettings): string {
  const file: Required<DisplayFile> = {
    display: {
      name: groupName,
      sign: { line1: s.sign.line1, line2: s.sign.line2, line3: s.sign.line3, line4_online: s.sign.line4Online, line4_offline: s.sign.line4Offline },
      npc: {
        display_name: s.npc.displayName,
        subtitle: s.npc.subtitle,
        subtitle_offline: s.npc.subtitleOffline,
        floating_item: s.npc.floatingItem,
        status_items: s.npc.statusItems,
        inventory: { title: s.npc.inventory.title, size: s.npc.inventory.size, item_name: s.npc.inventory.itemName, item_lore: s.npc.inventory.itemLore },
      },
      states: s.states,
    },
  };
  return `${HEADER}\n${stringify(file)}\n`;
}

export type ParsedDisplay = { ok: true; settings: DisplaySettings } | { ok: false; problem: string };

/** The settings a file holds, or what is wrong with it (key and expectation, without the file name). */
export function parseDisplayToml(text: string, groupName: string): ParsedDisplay {
  let raw: unknown;
  try {
    raw = parseTomlText(text);
  } catch (error) {
    if (error instanceof TomlSyntaxError) return { ok: false, problem: error.problem };
    throw error;
  }
  const typeError = Value.Errors(FileSchema, raw).First();
  if (typeError) {
    const key = typeError.path.replace(/^\//, '').replace(/\//g, '.') || 'the document';
    return { ok: false, problem: `${key} must be ${describeSchema(typeError.schema)}, got ${showValue(typeError.value)}` };
  }
  const settings = fromFile(raw as DisplayFile, groupName);
  const problem = firstProblem(settings);
  if (problem) return { ok: false, problem: `${tomlKey(problem.path)} ${problem.message}` };
  return { ok: true, settings };
}

/** The file's settings over the group's defaults; the file spells keys snake_case, and a table given (even empty) replaces its map. */
function fromFile(file: DisplayFile, groupName: string): DisplaySettings {
  return overlaySettings(defaultSettings(groupName), file.display, { keyOf: snakeCase, maps: 'replace' });
}

const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
