import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FileText } from '../../config/unit/file-text';
import { renderToml } from '../../config/unit/render';
import { toSnake } from '../../config/unit/respell';
import { parseTomlText, TomlSyntaxError } from '../../config/unit/toml-syntax';
import { typesOnly } from '../../config/unit/types-only';
import { describeSchema, showValue } from '../../describe-schema';
import { defaultSettings } from './defaults';
import { overlaySettings } from './merge';
import { DisplaySchema, DisplaySettingsSchema, type DisplaySettings } from './model';
import { firstProblem, tomlKey } from './rules';

/**
 * One group's display file, `config/modules/display/<Group>.toml`, read and written only with
 * a TOML parser and encoder, so any text survives (quotes, backslashes, unicode, brackets).
 * Every key is optional: a missing one takes its default.
 */

/**
 * What the file may hold, from the settings' own schema: every key optional and snake_case,
 * checked for its type here; limits and lines are rules.ts's, in this file's words.
 */
const FileSchema = Type.Object({
  display: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), ...typesOnly(DisplaySettingsSchema).properties })),
});

/**
 * The file's shape: `[display]` with the group's name and every setting (snake_case on disk).
 * What it is rendered from; it is read against FileSchema above (every key optional).
 */
const DisplayFileSchema = Type.Object({ display: DisplaySchema });

/** The file's words: a header above the settings, which carry none of their own. */
const DISPLAY_TOML_TEXT: FileText<typeof DisplayFileSchema> = {
  header: [
    'Display of one group: server-selector signs and NPCs, read by the svc display plugin.',
    'Placeholders: {name} {players} {max_players} {state} {servers} {target}; `||` separates',
    'NPC hologram animation frames. After editing by hand, run POST /api/reload.',
  ],
  spelling: 'snake_case',
  blankAtEnd: true,
};

/** The file: the header, then `[display]` with the group's name and every setting, snake_case, in the schema's order. */
export function renderDisplayToml(groupName: string, s: DisplaySettings): string {
  return renderToml(DisplayFileSchema, DISPLAY_TOML_TEXT, { display: { name: groupName, ...s } });
}

export type ParsedDisplay = { ok: true; settings: DisplaySettings } | { ok: false; problem: string };

/** The settings a file holds, or what is wrong with it (key and expectation, without the file name). */
export function parseDisplayToml(text: string, groupName: string): ParsedDisplay {
  let raw: Record<string, unknown>;
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
  const settings = fromFile(raw.display, groupName);
  const problem = firstProblem(settings);
  if (problem) return { ok: false, problem: `${tomlKey(problem.path)} ${problem.message}` };
  return { ok: true, settings };
}

/** The file's settings over the group's defaults; the file spells keys snake_case, and a table given (even empty) replaces its map. */
function fromFile(display: unknown, groupName: string): DisplaySettings {
  return overlaySettings(defaultSettings(groupName), display, { keyOf: toSnake, maps: 'replace' });
}
