/**
 * A new order of the packs at one place, as priorities. The API has no route that changes an
 * assignment's priority: one is removed and made again with the new priority (DELETE
 * /assignments/{id}, POST /{packId}/assignments). So the plan touches as few as it can: a pack
 * moved alone gets a priority between its new neighbours' when there is room; otherwise every
 * pack at the place is numbered again (0, 10, 20…), and only those whose number changes are
 * made again. Within a priority the controller orders by id, and an assignment made again gets
 * the newest id: the plan is checked against that before it is used.
 */
import { LIMITS, type Assignment } from './model';

export interface Change {
  assignment: Assignment;
  priority: number;
}

/** The order the controller would give, after `changes` are made in their order (each made again gets the next, newest id). */
export function orderAfter(current: readonly Assignment[], changes: readonly Change[]): number[] {
  const remade = new Map(changes.map((c, i) => [c.assignment.id, { priority: c.priority, rank: Number.MAX_SAFE_INTEGER - changes.length + i }]));
  return current
    .map((a) => ({ packId: a.packId, priority: remade.get(a.id)?.priority ?? a.priority, id: remade.get(a.id)?.rank ?? a.id }))
    .sort((x, y) => x.priority - y.priority || x.id - y.id)
    .map((x) => x.packId);
}

const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** One pack moved within an otherwise unchanged order: its new place, or null when the change is not that. */
function singleMove(current: readonly number[], wanted: readonly number[]): number | null {
  for (let i = 0; i < wanted.length; i++) {
    const moved = wanted[i]!;
    const rest = current.filter((p) => p !== moved);
    if (same(rest, wanted.filter((p) => p !== moved))) return i;
  }
  return null;
}

const clamp = (p: number) => Math.max(-LIMITS.priority, Math.min(LIMITS.priority, p));

/**
 * The assignments to make again, with their new priorities, for the packs of `current` (in the
 * controller's order) to come in the order `wanted` (pack ids). Empty when nothing changes.
 */
export function planOrder(current: readonly Assignment[], wanted: readonly number[]): Change[] {
  const now = current.map((a) => a.packId);
  if (same(now, wanted)) return [];
  const byPack = new Map(current.map((a) => [a.packId, a]));
  const at = singleMove(now, wanted);
  if (at !== null) {
    const moved = byPack.get(wanted[at]!)!;
    const before = at > 0 ? byPack.get(wanted[at - 1]!)! : undefined;
    const after = at < wanted.length - 1 ? byPack.get(wanted[at + 1]!)! : undefined;
    const candidates: number[] = [];
    if (before && after) candidates.push(before.priority + Math.floor((after.priority - before.priority) / 2), before.priority);
    else if (before) candidates.push(clamp(before.priority + 10), before.priority);
    else if (after) candidates.push(clamp(after.priority - 10), after.priority - 1);
    for (const priority of candidates) {
      if (Math.abs(priority) > LIMITS.priority) continue;
      const plan = [{ assignment: moved, priority }];
      if (same(orderAfter(current, plan), wanted)) return plan;
    }
  }
  const renumbered = wanted.map((packId, i) => ({ assignment: byPack.get(packId)!, priority: i * 10 }));
  return renumbered.filter((c) => c.assignment.priority !== c.priority);
}

/** `list` with the item at `from` moved to `to`. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const out = [...list];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item!);
  return out;
}
