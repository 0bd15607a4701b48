import { effectivePermissions, isScoped, type Resolution } from './resolve';
import { scopeView } from './scope';
import type { PermState } from './state';
import type { Group, PermPlayer, Track } from './types';

/**
 * The JSON shapes of REFERENCE-MODULES §2, which the dashboard, the Velocity bridge and the
 * backend perms plugin read, plus the scopes the reference never showed.
 */

export interface GroupView {
  name: string;
  default: boolean;
  prefix: string;
  suffix: string;
  priority: number;
  weight: number;
  /** Every node the group holds, scoped or not, once each (the dashboard edits this list). */
  permissions: string[];
  /** The scoped rows behind `permissions`. */
  scopedPermissions: { permission: string; server?: string; world?: string; expiresAt?: string }[];
  parents: string[];
  meta: Record<string, string>;
}

export interface PlayerView {
  uuid: string;
  name: string;
  groups: string[];
  /** The memberships behind `groups`, with their scopes. */
  memberships: { group: string; server?: string; world?: string; expiresAt?: string }[];
  effectivePermissions: string[];
  prefix: string;
  suffix: string;
  displayGroup: string;
  priority: number;
  meta: Record<string, string>;
}

export interface PlayerListItem {
  uuid: string;
  name: string;
  groups: string[];
  displayGroup: string;
  prefix: string;
}

export interface TrackView {
  name: string;
  groups: string[];
}

/** Display name of a group key (a key whose group is gone shows as given). */
const nameOf = (state: PermState, key: string) => state.groupByKey(key)?.name ?? key;

export function groupView(state: PermState, group: Group): GroupView {
  return {
    name: group.name,
    default: group.isDefault,
    prefix: group.prefix,
    suffix: group.suffix,
    priority: group.priority,
    weight: group.weight,
    permissions: [...new Set(group.grants.map((g) => g.node))],
    scopedPermissions: group.grants.filter(isScoped).map((g) => ({ permission: g.node, ...scopeView(g) })),
    parents: group.parents.map((key) => nameOf(state, key)),
    meta: { ...group.meta },
  };
}

/** The player's groups by name, once each, in the order they were given. */
export function playerGroups(state: PermState, player: PermPlayer | undefined): string[] {
  return [...new Set((player?.memberships ?? []).map((m) => m.group))].filter((key) => state.groupByKey(key)).map((key) => nameOf(state, key));
}

export function playerView(state: PermState, uuid: string, player: PermPlayer | undefined, resolution: Resolution): PlayerView {
  const display = resolution.display;
  return {
    uuid,
    name: player?.name ?? 'unknown',
    groups: playerGroups(state, player),
    memberships: (player?.memberships ?? []).filter((m) => state.groupByKey(m.group)).map((m) => ({ group: nameOf(state, m.group), ...scopeView(m) })),
    effectivePermissions: effectivePermissions(resolution.shared),
    prefix: display?.prefix ?? '',
    suffix: display?.suffix ?? '',
    displayGroup: display?.name ?? '',
    priority: display?.priority ?? 0,
    meta: { ...(player?.meta ?? {}) },
  };
}

export function playerListItem(state: PermState, player: PermPlayer, resolution: Resolution): PlayerListItem {
  return {
    uuid: player.uuid,
    name: player.name,
    groups: playerGroups(state, player),
    displayGroup: resolution.display?.name ?? '',
    prefix: resolution.display?.prefix ?? '',
  };
}

export function trackView(state: PermState, track: Track): TrackView {
  return { name: track.name, groups: track.groups.map((key) => nameOf(state, key)) };
}
