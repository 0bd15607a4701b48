/**
 * The JSON document a server returns in its Status Response, checked field by field:
 * only `version`, `players` and `description` are kept, other fields (favicon,
 * enforcesSecureChat, mod lists...) are ignored.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface PlayerSample {
  name: string;
  id: string;
}

export interface ServerStatus {
  version: { name: string; protocol: number };
  players: { online: number; max: number; sample?: PlayerSample[] };
  /** The MOTD exactly as sent: a legacy string or a chat component object/array; null when absent. */
  description: JsonValue;
}

/** Parses and validates a status JSON document. Throws an Error naming the first bad field. */
export function parseServerStatus(text: string): ServerStatus {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(`status is not JSON: ${preview(text)}`);
  }
  if (!isObject(doc)) throw new Error(`status is not a JSON object: ${preview(text)}`);
  const version = doc.version;
  if (!isObject(version) || typeof version.name !== 'string' || !isInteger(version.protocol)) {
    throw new Error('status lacks version.name (string) and version.protocol (integer)');
  }
  const players = doc.players;
  if (!isObject(players) || !isInteger(players.online) || !isInteger(players.max)) {
    throw new Error('status lacks players.online and players.max (integers)');
  }
  const status: ServerStatus = {
    version: { name: version.name, protocol: version.protocol },
    players: { online: players.online, max: players.max },
    // JSON.parse output is JSON by construction; only the static type is narrowed here.
    description: doc.description === undefined ? null : (doc.description as JsonValue),
  };
  if (players.sample !== undefined) status.players.sample = parseSample(players.sample);
  return status;
}

function parseSample(sample: unknown): PlayerSample[] {
  if (!Array.isArray(sample)) throw new Error('status players.sample is not an array');
  return sample.map((entry: unknown, i) => {
    if (!isObject(entry) || typeof entry.name !== 'string' || typeof entry.id !== 'string') {
      throw new Error(`status players.sample[${i}] lacks name and id strings`);
    }
    return { name: entry.name, id: entry.id };
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** First characters of a bad document, for error messages that stay one line. */
function preview(text: string): string {
  const flat = JSON.stringify(text.slice(0, 60));
  return text.length > 60 ? `${flat}...` : flat;
}
