/**
 * The network timeline's data, pure: the filters as the API's query, the entries in words, and
 * the merge of the live tail into the pages read back (newest first, no entry twice).
 */
import { eventWords } from '../../event-words';

export interface TimelineEntry {
  id: number;
  timestamp: string;
  type: string;
  actor: string;
  service: string | null;
  group: string | null;
  data: Record<string, string>;
}

export interface TimelinePage {
  entries: TimelineEntry[];
  next: number | null;
}

export interface TimelineFilters {
  service: string;
  group: string;
  actor: string;
  /** Event types, comma- or space-separated. */
  types: string;
}

export const NO_FILTERS: TimelineFilters = { service: '', group: '', actor: '', types: '' };

/** Entries read per request: a few screens' worth. */
export const PAGE_SIZE = 200;

/** The query string of a request (`before` to page back, `after` for the tail). */
export function timelineQuery(filters: TimelineFilters, cursor: { before?: number; after?: number } = {}): string {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filters.service.trim()) query.set('service', filters.service.trim());
  if (filters.group.trim()) query.set('group', filters.group.trim());
  if (filters.actor.trim()) query.set('actor', filters.actor.trim());
  const types = typesOf(filters.types);
  if (types.length > 0) query.set('type', types.join(','));
  if (cursor.before !== undefined) query.set('before', String(cursor.before));
  if (cursor.after !== undefined) query.set('after', String(cursor.after));
  return query.toString();
}

/** The types typed in the filter, as the API takes them (upper case, known characters only). */
export function typesOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((t) => t.trim().toUpperCase())
    .filter((t) => /^[A-Z0-9_]+$/.test(t));
}

/** The tail (oldest first, as `after` answers) in front of what is shown (newest first), without repeats. */
export function withTail(shown: readonly TimelineEntry[], tail: readonly TimelineEntry[]): TimelineEntry[] {
  const newest = shown[0]?.id ?? 0;
  const fresh = tail.filter((e) => e.id > newest).sort((a, b) => b.id - a.id);
  return [...fresh, ...shown];
}

/** Data keys shown as the entry's subject already (its service and group, the module's id). */
const SUBJECT_KEYS: ReadonlySet<string> = new Set(['service', 'group', 'moduleId']);

/** An entry's fields other than its subject, as `key value` pairs. */
export function detailsOf(entry: TimelineEntry): string {
  return Object.entries(entry.data)
    .filter(([key, value]) => !SUBJECT_KEYS.has(key) && value !== '')
    .map(([key, value]) => `${key} ${value}`)
    .join(' · ');
}

export function titleOf(entry: TimelineEntry): string {
  return eventWords(entry.type);
}
