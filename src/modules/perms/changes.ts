import type { Actor, EventData, EventType } from '../../events/catalogue';
import type { Kernel } from '../../kernel';
import type { PermState } from './state';
import type { PermStore } from './store';

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
 */
export class Changes {
  /** Called after every applied change (the expiry sweeper re-arms for a new earliest expiry). */
  onApplied: (() => void) | undefined;
  /** Told which players' answers may have changed ('all' for a group or track change). */
  private readonly changeListeners = new Set<(changed: readonly string[] | 'all') => void>();

  constructor(
    readonly store: PermStore,
    readonly state: PermState,
    private readonly kernel: Kernel,
    readonly now: () => number = Date.now,
  ) {}

  apply<T>(actor: Actor, write: () => { change: Change; result: T }): T {
    const at = this.now();
    const { change, result } = this.store.transaction(() => {
      const outcome = write();
      for (const entry of outcome.change.audit ?? []) this.store.audit({ at, actor, action: entry.action, target: entry.target, details: entry.details ?? '' });
      return outcome;
    });
    // An empty list reloads nothing (reloading groups would drop every cached answer).
    const groups = [...(change.groups ?? [])];
    const players = [...(change.players ?? [])];
    if (groups.length > 0) this.state.reloadGroups(groups);
    if (players.length > 0) this.state.reloadPlayers(players);
    if (change.tracks) this.state.reloadTracks();
    for (const event of change.events ?? []) this.kernel.bus.publish(event.type, event.data as never, actor);
    this.onApplied?.();
    this.announce(groups.length > 0 || change.tracks === true ? 'all' : players.flatMap((id) => this.state.playerById(id)?.uuid ?? []));
    return result;
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
