/**
 * The stack a player on a server gets, worked out on the page from the packs and assignments,
 * by the controller's rules (src/modules/resourcepacks/stack.ts): everywhere first, then the
 * group's, then the service's, by priority (then the older assignment first) within each; a
 * pack assigned at several of these places comes once, at its narrowest. Used to say where each
 * pack of the controller's answer comes from, and in place of that answer for a dashboard
 * session: the route the servers ask is for API tokens only.
 */
import type { Assignment, Pack, Place, Scope } from './model';

export interface StackEntry {
  pack: Pack;
  assignment: Assignment;
  /** Where the pack is assigned for this server: everywhere, its group or its service. */
  place: Place;
}

const WEIGHT: Record<string, number> = { GLOBAL: 0, GROUP: 1, SERVICE: 2 };

export function resolveOnPage(packs: readonly Pack[], assignments: readonly Assignment[], group: string, service: string): StackEntry[] {
  const g = group.trim().toLowerCase();
  const s = service.trim().toLowerCase();
  const byId = new Map(packs.map((p) => [p.id, p]));
  const applying = assignments
    .filter((a) => a.scope === 'GLOBAL' || (a.scope === 'GROUP' && a.target.toLowerCase() === g) || (a.scope === 'SERVICE' && s !== '' && a.target.toLowerCase() === s))
    .filter((a) => byId.has(a.packId))
    .sort((a, b) => WEIGHT[a.scope]! - WEIGHT[b.scope]! || a.priority - b.priority || a.id - b.id);
  const last = new Map<number, number>();
  applying.forEach((a, i) => last.set(a.packId, i));
  return applying
    .filter((a, i) => last.get(a.packId) === i)
    .map((a) => ({ pack: byId.get(a.packId)!, assignment: a, place: { scope: a.scope as Scope, target: a.target } }));
}
