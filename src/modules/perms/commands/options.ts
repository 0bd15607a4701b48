import { CommandFailure, UsageError } from '../../../core/commands/command';
import { normalizeUuid } from '../../../core/players/uuid';
import { parseDuration } from '../scope';
import type { PermState } from '../state';
import type { Where } from '../types';

/** The `key=value` words the perms console takes after positional arguments. */
export type OptionKey = 'server' | 'world' | 'expires';
export type Options = Partial<Record<OptionKey, string>>;

/** A word that is an option: a name, `=`, and the rest. Nodes, group and player names never hold `=`. */
const OPTION = /^([A-Za-z][A-Za-z0-9_-]*)=(.*)$/s;

/**
 * Splits `key=value` words (in any order) from the positional ones. A key this action does not
 * take, a key given twice and an empty value are usage errors, so a typo never silently widens
 * a grant to every server.
 */
export function splitOptions(usage: string, words: readonly string[], allowed: readonly OptionKey[]): { positional: string[]; options: Options } {
  const positional: string[] = [];
  const options: Options = {};
  for (const word of words) {
    const match = OPTION.exec(word);
    if (!match) {
      positional.push(word);
      continue;
    }
    const key = match[1]!.toLowerCase();
    const value = match[2]!;
    if (!(allowed as readonly string[]).includes(key)) {
      const takes = allowed.length ? ` (this takes ${allowed.map((k) => `${k}=`).join(', ')})` : ' (this takes none)';
      throw new UsageError(usage, `unknown option "${match[1]}="${takes}`);
    }
    if (options[key as OptionKey] !== undefined) throw new UsageError(usage, `${key}= is given twice`);
    if (value === '') throw new UsageError(usage, `${key}= needs a value`);
    options[key as OptionKey] = value;
  }
  return { positional, options };
}

/** The place a question is asked about, from `server=` and `world=`. */
export const whereOf = (options: Options): Where => ({
  ...(options.server !== undefined ? { server: options.server } : {}),
  ...(options.world !== undefined ? { world: options.world } : {}),
});

/**
 * `expires=`: a duration from now (`30m`, `12h`, `7d`, `1d12h`) as epoch ms, or an ISO-8601
 * time passed on as text for the service to check (real, in the future) as it does the API's.
 */
export function expiryOf(usage: string, text: string | undefined, now: number): number | string | undefined {
  if (text === undefined) return undefined;
  const duration = parseDuration(text);
  if (duration !== undefined) return now + duration;
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) return text;
  throw new UsageError(usage, `expires=${text} is neither a duration (30m, 12h, 7d, 1d12h) nor an ISO-8601 time`);
}

/** The player a console word names: a uuid in any spelling, or the name of a player the module holds. */
export function findPlayer(state: PermState, word: string): { uuid: string; name: string | undefined } {
  const uuid = normalizeUuid(word);
  if (uuid) return { uuid, name: state.player(uuid)?.name };
  const player = state.playerByName(word);
  if (!player) throw new CommandFailure(`the permissions module knows no player named "${word}"; give their uuid, or wait until they have joined once`);
  return { uuid: player.uuid, name: player.name };
}

/** A whole number argument, or a usage error; the service checks its range. */
export function wholeNumber(usage: string, word: string): number {
  const value = Number(word);
  if (!/^[-+]?\d+$/.test(word) || !Number.isSafeInteger(value)) throw new UsageError(usage, `"${word}" is not a whole number`);
  return value;
}

/** Free text from the remaining words; `""` (or an empty word) stands for empty text. */
export function freeText(words: readonly string[]): string {
  const text = words.join(' ');
  return text === '""' || text === "''" ? '' : text;
}
