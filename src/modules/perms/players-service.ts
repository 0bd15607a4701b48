import { ApiError } from '../../errors';
import type { Author } from './author';
import type { Changes } from './changes';
import { checkMeta } from './groups-service';
import { normalizeNode } from './nodes';
import { allows, effectivePermissions, explain, type Explanation } from './resolve';
import { describeScope, parseScope, type ScopeInput } from './scope';
import type { PermPlayer, Where } from './types';
import { playerListItem, playerView, type PlayerListItem, type PlayerView } from './views';

export const UNKNOWN_NAME = 'unknown';

/**
 * Players: registration on join, group memberships, meta, and the questions other code asks
 * (check, debug, effective permissions). Uuids arrive normalised (lower-case, dashed).
 */
export class PlayerService {
  constructor(private readonly changes: Changes) {}

  private get state() {
    return this.changes.state;
  }
  private get store() {
    return this.changes.store;
  }

  /** Players whose name contains `q` (any case), in the order they were first seen. */
  search(q: string, limit: number): PlayerListItem[] {
    const wanted = q.toLowerCase();
    const out: PlayerListItem[] = [];
    const now = this.changes.now();
    for (const player of this.state.players()) {
      if (out.length >= limit) break;
      if (wanted && !player.name.toLowerCase().includes(wanted)) continue;
      out.push(playerListItem(this.state, player, this.state.resolution(player.uuid, {}, now)));
    }
    return out;
  }

  /** Never 404: a player the module has not seen is "unknown" with the default group. */
  view(uuid: string, where: Where): PlayerView {
    return playerView(this.state, uuid, this.state.player(uuid), this.state.resolution(uuid, where, this.changes.now()));
  }

  /**
   * The proxy's and the backends' call on join: a new player is stored with the default group
   * (no event: nothing another client holds changed); a known one only has a new name saved.
   */
  register(uuid: string, name: string, where: Where, by: Author): PlayerView {
    const known = this.state.player(uuid);
    if (!known) {
      const fallback = this.state.defaultGroup();
      this.changes.apply(by, () => {
        const id = this.store.insertPlayer(uuid, name);
        if (fallback) this.store.upsertMembership(id, fallback.id, { server: '', world: '', expiresAt: null });
        return { change: { players: [id], audit: [{ action: 'user.create', target: name, details: uuid }] }, result: undefined };
      });
    } else if (known.name !== name) {
      this.changes.apply(by, () => {
        this.store.renamePlayer(known.id, name);
        return { change: { players: [known.id] }, result: undefined };
      });
    }
    return this.view(uuid, where);
  }

  /**
   * Puts a player in a group (an unseen player is stored under `name`, or "unknown"). Unscoped
   * replaces the group's scoped memberships and the other way round; the same server and world
   * again only sets the new expiry.
   */
  addGroup(uuid: string, groupName: string, scopeInput: ScopeInput, name: string | undefined, by: Author): void {
    const group = this.state.group(groupName);
    const scope = parseScope(scopeInput, this.changes.now());
    const scoped = scope.server !== '' || scope.world !== '' || scope.expiresAt !== null;
    const known = this.state.player(uuid);
    const playerName = known?.name ?? name ?? UNKNOWN_NAME;
    this.changes.apply(by, () => {
      const id = known?.id ?? this.store.insertPlayer(uuid, playerName);
      this.store.deleteMembershipKind(id, group.id, !scoped);
      this.store.upsertMembership(id, group.id, scope);
      return {
        change: {
          players: [id],
          events: [{ type: 'PLAYER_PERMISSIONS_UPDATED', data: { uuid, player: playerName } }],
          audit: [{ action: 'user.addgroup', target: playerName, details: [group.name, describeScope(scope)].filter(Boolean).join(' ') }],
        },
        result: undefined,
      };
    });
  }

  /** Takes a player out of a group: every membership, or only the one with this server and world. False when there was none. */
  removeGroup(uuid: string, groupName: string, only: { server?: string | null; world?: string | null } | undefined, by: Author): boolean {
    const player = this.known(uuid);
    const group = this.state.group(groupName);
    const exact = only && (only.server || only.world) ? parseScope({ server: only.server, world: only.world }, this.changes.now()) : undefined;
    return this.changes.apply(by, () => {
      if (this.store.deleteMemberships(player.id, group.id, exact) === 0) return { change: {}, result: false };
      return {
        change: {
          players: [player.id],
          events: [{ type: 'PLAYER_PERMISSIONS_UPDATED', data: { uuid, player: player.name } }],
          audit: [{ action: 'user.removegroup', target: player.name, details: [group.name, exact && describeScope(exact)].filter(Boolean).join(' ') }],
        },
        result: true,
      };
    });
  }

  meta(uuid: string): Record<string, string> {
    return { ...(this.state.player(uuid)?.meta ?? {}) };
  }

  setMeta(uuid: string, key: string, value: string, by: Author): void {
    const player = this.known(uuid);
    checkMeta(key, value);
    this.changes.apply(by, () => {
      this.store.setPlayerMeta(player.id, key, value);
      return {
        change: {
          players: [player.id],
          events: [{ type: 'PLAYER_PERMISSIONS_UPDATED', data: { uuid, player: player.name } }],
          audit: [{ action: 'user.meta.set', target: player.name, details: `${key}=${value}` }],
        },
        result: undefined,
      };
    });
  }

  removeMeta(uuid: string, key: string, by: Author): boolean {
    const player = this.known(uuid);
    return this.changes.apply(by, () => {
      if (this.store.deletePlayerMeta(player.id, key) === 0) return { change: {}, result: false };
      return {
        change: {
          players: [player.id],
          events: [{ type: 'PLAYER_PERMISSIONS_UPDATED', data: { uuid, player: player.name } }],
          audit: [{ action: 'user.meta.remove', target: player.name, details: key }],
        },
        result: true,
      };
    });
  }

  check(uuid: string, node: string, where: Where): boolean {
    return allows(this.state.resolution(uuid, where, this.changes.now()).shared, normalizeNode(node));
  }

  debug(uuid: string, node: string, where: Where): Explanation {
    const now = this.changes.now();
    return explain(this.state.resolution(uuid, where, now).shared, normalizeNode(node), where, now);
  }

  effective(uuid: string, where: Where): string[] {
    return effectivePermissions(this.state.resolution(uuid, where, this.changes.now()).shared);
  }

  /** The stored player, or 404 PLAYER_NOT_FOUND. */
  known(uuid: string): PermPlayer {
    const player = this.state.player(uuid);
    if (!player) throw new ApiError('PLAYER_NOT_FOUND', `the permissions module has no player ${uuid}; they are registered when they join, or by adding them to a group`);
    return player;
  }
}
