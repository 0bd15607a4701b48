/**
 * The permission model as the resolver and the views read it. Nodes are stored lower-case
 * (Minecraft permission checks ignore case); a node starting with `-` is a negation. Group,
 * server and world names compare without case.
 */

/** Where and until when a grant or a membership applies. Empty server/world: everywhere. */
export interface Scope {
  /** '' when not scoped to a server. */
  server: string;
  /** '' when not scoped to a world. */
  world: string;
  /** Epoch ms after which the row no longer applies (and is deleted); null: permanent. */
  expiresAt: number | null;
}

/** One row of a group's permissions: a node with its scope. */
export interface Grant extends Scope {
  node: string;
}

export interface Group {
  id: number;
  name: string;
  /** Lower-case name: how groups are looked up. */
  key: string;
  isDefault: boolean;
  prefix: string;
  suffix: string;
  /** Decides which group's prefix and suffix a player shows. */
  priority: number;
  /** Decides a conflict between a grant and a negation (higher wins; ties: the negation). */
  weight: number;
  /** Parent group keys, in the order they were given. */
  parents: string[];
  grants: Grant[];
  meta: Record<string, string>;
}

/** A player's place in a group, with its scope. */
export interface Membership extends Scope {
  /** Group key. */
  group: string;
}

export interface PermPlayer {
  id: number;
  /** Lower-case, dashed. */
  uuid: string;
  name: string;
  memberships: Membership[];
  meta: Record<string, string>;
}

export interface Track {
  id: number;
  name: string;
  key: string;
  /** Group keys, lowest rank first. */
  groups: string[];
}

/** What a permission question is asked about: the server and world the player is on, if any. */
export interface Where {
  server?: string;
  world?: string;
}

/** Everything the resolver reads: a value, so resolution is a pure function of it. */
export interface PermSnapshot {
  groups: ReadonlyMap<string, Group>;
  /** Key of the default group, if any group is marked default. */
  defaultGroup: string | undefined;
}
