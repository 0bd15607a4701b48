import type { Backend, Strategy } from './model';

/** A healthy backend as the strategy sees it: the registry's numbers plus the balancer's own. */
export interface Candidate extends Backend {
  /** Load-balancer connections to it now (connecting ones included, so a burst spreads out). */
  connections: number;
}

/**
 * Picks where the next client goes, among healthy candidates only (the caller filters).
 *
 * - `least-players`: fewest players; ties broken by fewest load-balancer connections, then by
 *   list order (stable, so a test or an operator can predict it).
 * - `round-robin`: the candidate at `turn` modulo the list length; the caller advances `turn`
 *   once per pick. When the list changes length the rotation shifts, which is fine: fairness
 *   is over many picks, not exact.
 *
 * Returns undefined for an empty list. Pure: no clock, no randomness.
 */
export function chooseBackend<C extends Candidate>(strategy: Strategy, candidates: readonly C[], turn: number): C | undefined {
  if (candidates.length === 0) return undefined;
  if (strategy === 'round-robin') return candidates[Math.abs(turn) % candidates.length];
  let best = candidates[0]!;
  for (let i = 1; i < candidates.length; i++) {
    const c = candidates[i]!;
    if (c.playerCount < best.playerCount || (c.playerCount === best.playerCount && c.connections < best.connections)) best = c;
  }
  return best;
}
