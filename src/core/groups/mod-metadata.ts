import { parse as parseToml } from 'smol-toml';

/**
 * The mod loaders' metadata files and how to get mod ids out of each. Only ids are read:
 * versions and everything else are ignored (Forge's `version` is often a `${file.jarVersion}`
 * placeholder filled in at load time, so it would be meaningless here anyway).
 */

/** The metadata file is unusable; the message says why and is shown to operators. */
export class MetadataError extends Error {}

export interface MetadataFormat {
  /** Path of the file inside the jar. */
  entry: string;
  /** The ids the file declares; throws MetadataError when the loader itself would reject it. */
  ids(text: string): string[];
}

/**
 * Fabric and Quilt: `^[a-z][a-z0-9-_]{1,63}$`; Forge and NeoForge: `^[a-z][a-z0-9_]{1,63}$`.
 * An id outside their union would make the loader refuse the mod, so such a file contributes
 * nothing. This also keeps unexpanded build placeholders (`${mod_id}`) and junk out of the API.
 */
const MOD_ID = /^[a-z][a-z0-9_-]{1,63}$/;

export const METADATA_FORMATS: readonly MetadataFormat[] = [
  { entry: 'fabric.mod.json', ids: (text) => [modId(field(parseJson(text), 'id'), 'id')] },
  {
    entry: 'quilt.mod.json',
    ids: (text) => [modId(field(field(parseJson(text), 'quilt_loader'), 'id'), 'quilt_loader.id')],
  },
  { entry: 'META-INF/mods.toml', ids: modsTomlIds },
  { entry: 'META-INF/neoforge.mods.toml', ids: modsTomlIds },
];

/** Forge and NeoForge share the format: one `[[mods]]` table per mod in the jar, each with a `modId`. */
function modsTomlIds(text: string): string[] {
  let doc: unknown;
  try {
    doc = parseToml(text);
  } catch (err) {
    throw new MetadataError(`is not valid TOML: ${firstLine(err)}`);
  }
  const mods = field(doc, 'mods');
  if (!Array.isArray(mods) || mods.length === 0) throw new MetadataError('has no [[mods]] tables');
  return mods.map((table: unknown, i) => modId(field(table, 'modId'), `mods[${i}].modId`));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new MetadataError(`is not valid JSON: ${firstLine(err)}`);
  }
}

/** `value[key]` when value is a plain object, else undefined. */
function field(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return (value as Record<string, unknown>)[key];
}

function modId(value: unknown, where: string): string {
  if (value === undefined) throw new MetadataError(`has no ${where}`);
  if (typeof value !== 'string') throw new MetadataError(`has a ${where} that is not a string`);
  if (value.includes('${')) throw new MetadataError(`has an unexpanded placeholder as ${where}: ${quote(value)}`);
  if (!MOD_ID.test(value)) throw new MetadataError(`has an invalid ${where}: ${quote(value)}`);
  return value;
}

/** The offending value for a message, cut short so a hostile file cannot flood the warnings. */
function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** Parser messages can run to several lines (smol-toml adds a code excerpt): the first one says it. */
function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n', 1)[0] ?? message;
}
