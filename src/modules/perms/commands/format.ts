import { describeScope } from '../scope';
import type { PermState } from '../state';
import type { Scope } from '../types';

/** " [server=Lobby-1 until …]" for a scoped row, nothing for an unscoped one. */
export function scopeSuffix(scope: Scope): string {
  const text = describeScope(scope);
  return text ? ` [${text}]` : '';
}

/** Group keys as display names (a key whose group is gone shows as stored). */
export const groupNames = (state: PermState, keys: readonly string[]): string[] => keys.map((key) => state.groupByKey(key)?.name ?? key);

/** A comma list, or "none". */
export const listOrNone = (items: readonly string[]): string => (items.length ? items.join(', ') : 'none');

/** Text shown quoted, so an empty prefix or trailing spaces are visible. */
export const quoted = (text: string): string => JSON.stringify(text);
