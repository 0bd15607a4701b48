/**
 * The typed services modules offer to core and to each other. Core declares the contract here
 * (it never imports a module); a module provides its implementation during init through
 * `kernel.modules.provide`, and a consumer asks `kernel.modules.lookup` and says what it does
 * when the answer is undefined (the module is not installed).
 */

/** One player on the network as the players module's canonical roster has them. */
export interface RosterEntry {
  /** Lower-case, dashed. */
  uuid: string;
  name: string;
  service: string;
  group: string;
  /** Epoch ms the current session opened. */
  connectedAt: number;
}

/** The players module's roster: its open sessions, kept across controller restarts. */
export interface PlayerDirectory {
  online(): RosterEntry[];
  /** The online player with this name, case-insensitively. */
  onlineByName(name: string): RosterEntry | undefined;
}

/**
 * The permissions module's answers, for modules that decide by permission nodes (dashboard
 * logins). Uuids in any accepted spelling; without `where`, only unscoped grants count.
 */
export interface PermissionResolver {
  /** The player's nodes as plugins apply them: granted nodes, and `-node` for winning negations. */
  effectivePermissions(uuid: string, where?: { server?: string; world?: string }): string[];
  has(uuid: string, node: string, where?: { server?: string; world?: string }): boolean;
}

export interface ModuleServices {
  players: PlayerDirectory;
  perms: PermissionResolver;
}
