import { ApiError } from '../../errors';
import type { EventData, EventType } from '../../events/catalogue';
import type { ModuleKernel } from '../module';
import type { Author } from './author';
import { escalation } from './escalation';
import type { PermState } from './state';
import type { PermStore } from './store';
import type { Group, PermSnapshot } from './types';

type PermEvent = {
  [T in EventType]: { type: T; data: EventData<T> };
}[
  | 'PERMISSION_GROUP_CREATED'
  | 'PERMISSION_GROUP_UPDATED'
  | 'PERMISSION_GROUP_DELETED'
  | 'PLAYER_PERMISSIONS_UPDATED'
  | 'PERMISSION_TRACK_CREATED'
  | 'PERMISSION_TRACK_DELETED'
  | 'PLAYER_PROMOTED'
  | 'PLAYER_DEMOTED'
];

/** What a write touched: read back into memory, announced, and written to the module's audit. */
export interface Change {
  groups?: Iterable<number>;
  players?: Iterable<number>;
  tracks?: boolean;
  events?: PermEvent[];
  audit?: { action: string; target: string; details?: string }[];
}

/**
 * The one way the module changes anything: the write and its audit rows in one transaction,
 * then memory read back from disk, then the events (published only once the change is durable).
 * A write by an author without admin is read back inside its transaction first and compared
 * with memory: one that hands out admin (escalation.ts) is rolled back and refused with 403
 * FORBIDDEN, so no route, command, track or bulk path can do it.
 */
export class Changes {
  /** Called after every applied change (the expiry sweeper re-arms for a new earliest expiry). */
  onApplied: (() => void) | undefined;
  /** Told which players' answers may have changed ('all' for a group or track change). */
  private readonly changeListeners = new Set<(changed: readonly string[] | 'all') => void>();

  constructor(
    readonly store: PermStore,
    readonly state: PermState,
    private readonly kernel: ModuleKernel<'bus'>,
    readonly now: () => number = Date.now,
  ) {}

  apply<T>(by: Author, write: () => { change: Change; result: T }): T {
    const at = this.now();
    const actor = by.actor;
    const { change, result, groups, players } = this.store.transaction(() => {
      const outcome = write();
      // The lists may be iterators: read once.
      const touched = { groups: [...(outcome.change.groups ?? [])], players: [...(outcome.change.players ?? [])] };
      if (!by.admin) this.refuseEscalation(touched.groups, touched.players, at);
      for (const entry of outcome.change.audit ?? []) this.store.audit({ at, actor, action: entry.action, target: entry.target, details: entry.details ?? '' });
      return { ...outcome, ...touched };
    });
    // An empty list reloads nothing (reloading groups would drop every cached answer).
    if (groups.length > 0) this.state.reloadGroups(groups);
    if (players.length > 0) this.state.reloadPlayers(players);
    if (change.tracks) this.state.reloadTracks();
    for (const event of change.events ?? []) this.kernel.bus.publish(event.type, event.data as never, actor);
    this.onApplied?.();
    this.announce(groups.length > 0 || change.tracks === true ? 'all' : players.flatMap((id) => this.state.playerById(id)?.uuid ?? []));
    return result;
  }

  /**
   * Compares memory (before) with what the write left in the tables (after): the groups and
   * players it names are read back, the rest is shared. Throws 403 to roll the write back.
   */
  private refuseEscalation(groupIds: readonly number[], playerIds: readonly number[], now: number): void {
    const before = this.state.snapshot();
    const groups = new Map<string, Group>(before.groups);
    for (const id of groupIds) {
      const fresh = this.store.group(id);
      const old = this.state.groupById(id);
      if (fresh) groups.set(fresh.key, fresh);
      else if (old) groups.delete(old.key);
    }
    const after: PermSnapshot = { groups, defaultGroup: [...groups.values()].find((g) => g.isDefault)?.key };
    const changed = playerIds.map((id) => ({ before: this.state.playerById(id), after: this.store.player(id) }));
    const problem = escalation({ before, after, players: this.state.players(), changed, now });
    if (problem) throw new ApiError('FORBIDDEN', problem);
  }

  /** Subscribes to "whose answers may have changed"; returns the unsubscribe function. */
  onChange(listener: (changed: readonly string[] | 'all') => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private announce(changed: readonly string[] | 'all'): void {
    if (changed !== 'all' && changed.length === 0) return;
    for (const listener of this.changeListeners) listener(changed);
  }
}
