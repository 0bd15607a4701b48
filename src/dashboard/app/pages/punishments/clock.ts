import { useEffect, useState } from 'preact/hooks';
import { useQueryClient, type QueryKey } from '@tanstack/preact-query';
import type { Punishment } from './model';

/** The time now, renewed every `everyMs` (the "in 2 hours" texts age with it). */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** setTimeout's longest wait; anything later is waited for in steps. */
const LONGEST = 2 ** 31 - 1;

/**
 * Reads `key` again when the first of the shown records in force reaches its end: the API
 * answers it as ended from that moment, before the module's expiry loop announces it.
 */
export function useReadAgainAtEnd(rows: readonly Punishment[] | undefined, key: QueryKey): void {
  const queries = useQueryClient();
  const now = Date.now();
  let next = Number.POSITIVE_INFINITY;
  for (const p of rows ?? []) {
    if (!p.active || p.expiresAt === null) continue;
    const end = Date.parse(p.expiresAt);
    if (end > now && end < next) next = end;
  }
  const identity = JSON.stringify(key);
  useEffect(() => {
    if (next === Number.POSITIVE_INFINITY) return;
    const timer = setTimeout(() => void queries.invalidateQueries({ queryKey: key }), Math.min(LONGEST, next - Date.now() + 250));
    return () => clearTimeout(timer);
  }, [next, identity, queries]);
}
