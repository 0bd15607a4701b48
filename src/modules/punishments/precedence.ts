import type { Punishment } from './model';

/** Where a check is asked: the group and service the player is joining or chatting on. */
export interface Where {
  group?: string;
  service?: string;
}

type Candidate = Pick<Punishment, 'id' | 'type' | 'expiresAt' | 'scope' | 'scopeTarget'>;

/** In force at `now`: the end is strictly in the future (a record ending now no longer holds). */
export const inForce = (p: Candidate, now: number) => p.expiresAt === null || p.expiresAt > now;

/**
 * Whether a record holds where the player is. NETWORK holds everywhere. A GROUP or SERVICE
 * record holds only when the check names that group or service (any case, as group and
 * service names are unique regardless of case); a check that names neither (the proxy's
 * first login check) sees network records only.
 */
export function appliesAt(p: Candidate, where: Where): boolean {
  if (p.scope === 'NETWORK') return true;
  const target = p.scopeTarget?.toLowerCase();
  if (target === undefined) return false;
  if (p.scope === 'GROUP') return where.group !== undefined && where.group.toLowerCase() === target;
  return where.service !== undefined && where.service.toLowerCase() === target;
}

/** An IP ban outranks an account ban (it keeps out every account on that address). */
const SEVERITY: Partial<Record<Punishment['type'], number>> = { IPBAN: 2, BAN: 1, TEMPBAN: 1, MUTE: 1, TEMPMUTE: 1 };

/**
 * Orders two records that both apply, the winner first: the most severe type, then the one
 * lasting longest (permanent beats any end), then network over scoped (it says more about
 * the player), then the newest.
 */
export function compareSeverity(a: Candidate, b: Candidate): number {
  const severity = (SEVERITY[b.type] ?? 0) - (SEVERITY[a.type] ?? 0);
  if (severity !== 0) return severity;
  const end = (p: Candidate) => p.expiresAt ?? Number.POSITIVE_INFINITY;
  if (end(a) !== end(b)) return end(b) > end(a) ? 1 : -1;
  const network = Number(b.scope === 'NETWORK') - Number(a.scope === 'NETWORK');
  if (network !== 0) return network;
  return b.id - a.id;
}

/** The record that decides a check, or undefined when none is in force where the player is. */
export function decide<T extends Candidate>(candidates: Iterable<T>, where: Where, now: number): T | undefined {
  let best: T | undefined;
  for (const p of candidates) {
    if (!inForce(p, now) || !appliesAt(p, where)) continue;
    if (best === undefined || compareSeverity(p, best) < 0) best = p;
  }
  return best;
}
