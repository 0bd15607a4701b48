import { candidatesFor } from './nodes';
import type { Grant, Group, PermPlayer, PermSnapshot, Scope, Where } from './types';

/**
 * Resolution: which groups count for a player at a place and time, and what they decide.
 * Pure functions over a snapshot; the cache (cache.ts) keeps their results.
 *
 * Groups that count: the default group (always, for anyone), then each group the player is
 * in by a membership that applies here, then every parent of those, depth-first, each group
 * once (a cycle ends where it closes). A grant or membership applies when it has not expired
 * and each of its server/world is either unset or equal (without case) to the question's; a
 * question without a server (or world) sees no server- (or world-) scoped row.
 *
 * Deciding a node: every stored node that answers it (the node, a proper ancestor's wildcard,
 * `*`; see nodes.ts) in every counting group takes part. The highest group weight among them
 * wins; at equal weight a negation beats a grant. No answering node: denied.
 */

export const GRANT = 1;
export const NEGATE = 2;

/** One counting group, with the nodes it holds for this question. */
export interface Layer {
  group: Group;
  /** The directly counting group this one was reached through as a parent; undefined when it counts itself. */
  via: string | undefined;
  /** Unscoped nodes (shared by every question): bare node → GRANT | NEGATE bits. */
  global: ReadonlyMap<string, number>;
  /** Scoped nodes that apply to this question, same form. */
  scoped: ReadonlyMap<string, number> | undefined;
}

/** What every player with the same counting groups (and, if scoped rows apply, place) shares. */
export interface SharedResolution {
  signature: string;
  layers: Layer[];
  /** Decisions already made: node → allowed. */
  memo: Map<string, boolean>;
  effective?: string[];
}

export interface Resolution {
  shared: SharedResolution;
  /** The group whose prefix and suffix the player shows. */
  display: Group | undefined;
  /** Epoch ms at which a row this answer relies on expires; Infinity when none does. */
  validUntil: number;
}

export interface Decision {
  allowed: boolean;
  /** The node and group that decided; undefined when no node answers. */
  by?: { layer: Layer; node: string; negated: boolean };
}

/** Does a grant's or membership's scope apply to this question at `now`? */
export function scopeApplies(scope: Scope, where: Where, now: number): boolean {
  if (scope.expiresAt !== null && scope.expiresAt <= now) return false;
  if (scope.server !== '' && (where.server === undefined || scope.server.toLowerCase() !== where.server.toLowerCase())) return false;
  if (scope.world !== '' && (where.world === undefined || scope.world.toLowerCase() !== where.world.toLowerCase())) return false;
  return true;
}

export const isScoped = (scope: Scope): boolean => scope.server !== '' || scope.world !== '' || scope.expiresAt !== null;

const bare = (node: string) => (node.startsWith('-') ? node.slice(1) : node);
const bit = (node: string) => (node.startsWith('-') ? NEGATE : GRANT);

/** Groups are immutable values (a change replaces the object), so their unscoped index is computed once. */
const globalIndex = new WeakMap<Group, Map<string, number>>();
function globalNodes(group: Group): Map<string, number> {
  let index = globalIndex.get(group);
  if (!index) {
    index = new Map();
    for (const grant of group.grants) {
      if (isScoped(grant)) continue;
      const node = bare(grant.node);
      index.set(node, (index.get(node) ?? 0) | bit(grant.node));
    }
    globalIndex.set(group, index);
  }
  return index;
}

interface Visit {
  group: Group;
  via: string | undefined;
}

/** The counting groups, in visiting order; `direct` are those that count themselves (default and memberships). */
function countingGroups(snapshot: PermSnapshot, direct: string[]): Visit[] {
  const seen = new Set<string>();
  const out: Visit[] = [];
  const visit = (key: string, via: string | undefined) => {
    if (seen.has(key)) return;
    const group = snapshot.groups.get(key);
    if (!group) return;
    seen.add(key);
    out.push({ group, via });
    for (const parent of group.parents) visit(parent, via ?? group.name);
  };
  for (const key of direct) visit(key, undefined);
  return out;
}

/** The memberships of `player` that apply here, as group keys in membership order, and the earliest expiry among them. */
function applyingMemberships(player: PermPlayer | undefined, where: Where, now: number): { keys: string[]; validUntil: number } {
  const keys: string[] = [];
  let validUntil = Infinity;
  for (const m of player?.memberships ?? []) {
    if (!scopeApplies(m, where, now)) continue;
    if (m.expiresAt !== null) validUntil = Math.min(validUntil, m.expiresAt);
    if (!keys.includes(m.group)) keys.push(m.group);
  }
  return { keys, validUntil };
}

/**
 * Resolves `player` (undefined: a player the module has never seen, who still has the default
 * group) at `where`, as of `now`. `shareable` returns an existing shared part for a signature
 * (the cache passes its table), so players with the same groups share their decisions.
 */
export function resolve(
  snapshot: PermSnapshot,
  player: PermPlayer | undefined,
  where: Where,
  now: number,
  shareable: (signature: string) => SharedResolution | undefined = () => undefined,
): Resolution {
  const memberships = applyingMemberships(player, where, now);
  const direct = snapshot.defaultGroup === undefined ? memberships.keys : [snapshot.defaultGroup, ...memberships.keys.filter((k) => k !== snapshot.defaultGroup)];
  const visits = countingGroups(snapshot, direct);
  let validUntil = memberships.validUntil;

  const layers: Layer[] = [];
  let placeMatters = false;
  for (const { group, via } of visits) {
    let scoped: Map<string, number> | undefined;
    for (const grant of group.grants) {
      if (!isScoped(grant)) continue;
      if (grant.server !== '' || grant.world !== '') placeMatters = true;
      if (!scopeApplies(grant, where, now)) continue;
      if (grant.expiresAt !== null) validUntil = Math.min(validUntil, grant.expiresAt);
      scoped ??= new Map();
      const node = bare(grant.node);
      scoped.set(node, (scoped.get(node) ?? 0) | bit(grant.node));
    }
    layers.push({ group, via, global: globalNodes(group), scoped });
  }

  // Players whose counting groups are the same share decisions; scoped rows add the place and
  // which of them apply (an expiring row changes the answer, and so the signature).
  const applied = layers.map((l) => (l.scoped ? `${l.group.key}+${[...l.scoped].map(([n, b]) => `${n}${b}`).join(';')}` : l.group.key)).join(',');
  const signature = placeMatters ? `${applied}@${(where.server ?? '').toLowerCase()}/${(where.world ?? '').toLowerCase()}` : applied;
  const shared = shareable(signature) ?? { signature, layers, memo: new Map() };

  return { shared, display: displayGroup(snapshot, memberships.keys), validUntil };
}

/** The applying membership with the highest priority (the first of equals); the default group when there is none. */
function displayGroup(snapshot: PermSnapshot, memberships: string[]): Group | undefined {
  let best: Group | undefined;
  for (const key of memberships) {
    const group = snapshot.groups.get(key);
    if (group && (!best || group.priority > best.priority)) best = group;
  }
  return best ?? (snapshot.defaultGroup === undefined ? undefined : snapshot.groups.get(snapshot.defaultGroup));
}

/** Decides `node` (lower-case) over the counting groups, naming the deciding row. */
export function decide(shared: SharedResolution, node: string): Decision {
  const candidates = candidatesFor(node);
  let best: Decision['by'];
  let bestWeight = -Infinity;
  for (const layer of shared.layers) {
    const weight = layer.group.weight;
    if (weight < bestWeight) continue;
    for (const candidate of candidates) {
      const bits = (layer.global.get(candidate) ?? 0) | (layer.scoped?.get(candidate) ?? 0);
      if (bits === 0) continue;
      const negated = (bits & NEGATE) !== 0;
      if (weight > bestWeight || (negated && !best!.negated)) {
        best = { layer, node: negated ? `-${candidate}` : candidate, negated };
        bestWeight = weight;
      }
    }
  }
  return best ? { allowed: !best.negated, by: best } : { allowed: false };
}

/** `decide` without the explanation, remembered per shared resolution. */
export function allows(shared: SharedResolution, node: string): boolean {
  let allowed = shared.memo.get(node);
  if (allowed === undefined) {
    allowed = decide(shared, node).allowed;
    shared.memo.set(node, allowed);
  }
  return allowed;
}

/**
 * The player's permissions as a sorted list a plugin can apply on its own: every stored node
 * whose own decision is a grant, and `-node` for every stored negation whose decision is a
 * denial. (`a.*` granted and `-a.b` winning gives both; a grant a heavier negation beats is left out.)
 */
export function effectivePermissions(shared: SharedResolution): string[] {
  if (shared.effective) return shared.effective;
  const held = new Map<string, number>();
  for (const layer of shared.layers) {
    for (const source of [layer.global, layer.scoped]) {
      for (const [node, bits] of source ?? []) held.set(node, (held.get(node) ?? 0) | bits);
    }
  }
  // Only a negation can deny a held grant, and only one that answers it: most nodes need no
  // decision at all (thousands of nodes, a handful of negations).
  const negatedExactly = new Set<string>();
  const negatedBelow: string[] = [];
  for (const [node, bits] of held) {
    if (!(bits & NEGATE)) continue;
    if (node === '*') negatedBelow.push('');
    else if (node.endsWith('.*')) negatedBelow.push(node.slice(0, -1));
    else negatedExactly.add(node);
  }
  const contested = (node: string) => negatedExactly.has(node) || negatedBelow.some((prefix) => node.startsWith(prefix));
  const out: string[] = [];
  for (const [node, bits] of held) {
    const allowed = contested(node) ? allows(shared, node) : true;
    if (allowed && bits & GRANT) out.push(node);
    else if (!allowed && bits & NEGATE) out.push(`-${node}`);
  }
  shared.effective = out.sort();
  return shared.effective;
}

export type ChainType = 'exact' | 'wildcard' | 'negated' | 'inherited' | 'context-filtered';

export interface ChainStep {
  /** The group holding the row. */
  source: string;
  /** The stored node, with its `-` when it negates. */
  permission: string;
  type: ChainType;
  /** Whether this row, on its own, grants. */
  granted: boolean;
  weight: number;
  /** The row that decided the answer. */
  decisive: boolean;
  /** For a parent's row: the counting group it was inherited through. */
  inheritedFrom?: string;
  /** For a scoped row: its scope, as the API shows it. */
  server?: string;
  world?: string;
  expiresAt?: number;
}

export interface Explanation {
  allowed: boolean;
  reason: string;
  chain: ChainStep[];
}

/**
 * Every row of the counting groups that answers `node`, including scoped rows that do not
 * apply here (`context-filtered`), and a reason naming the row `decide` chose, so the answer
 * always matches `check`.
 */
export function explain(shared: SharedResolution, node: string, where: Where, now: number): Explanation {
  const decision = decide(shared, node);
  const candidates = new Set(candidatesFor(node));
  const chain: ChainStep[] = [];
  for (const layer of shared.layers) {
    const { group, via } = layer;
    for (const grant of group.grants) {
      const stored = bare(grant.node);
      if (!candidates.has(stored)) continue;
      const negated = grant.node.startsWith('-');
      const applies = !isScoped(grant) || scopeApplies(grant, where, now);
      const type: ChainType = !applies ? 'context-filtered' : negated ? 'negated' : via ? 'inherited' : stored === node ? 'exact' : 'wildcard';
      const by = decision.by;
      chain.push({
        source: group.name,
        permission: grant.node,
        type,
        granted: applies && !negated,
        weight: group.weight,
        decisive: applies && by !== undefined && by.layer === layer && by.node === grant.node,
        ...(via ? { inheritedFrom: via } : {}),
        ...scopeFields(grant),
      });
    }
  }
  return { allowed: decision.allowed, reason: reasonFor(decision, node), chain };
}

function scopeFields(grant: Grant): Pick<ChainStep, 'server' | 'world' | 'expiresAt'> {
  return {
    ...(grant.server ? { server: grant.server } : {}),
    ...(grant.world ? { world: grant.world } : {}),
    ...(grant.expiresAt !== null ? { expiresAt: grant.expiresAt } : {}),
  };
}

function reasonFor(decision: Decision, node: string): string {
  const by = decision.by;
  if (!by) return `Denied — no permission node answers '${node}'`;
  const group = by.layer.group;
  const through = by.layer.via ? `, inherited through '${by.layer.via}'` : '';
  if (by.negated) return `Denied — negated by '${by.node}' in group '${group.name}' (weight ${group.weight}${through})`;
  const match = by.node === node ? 'exact' : 'wildcard';
  return `Granted by group '${group.name}' (weight ${group.weight}${through}) via ${match} match on '${by.node}'`;
}
