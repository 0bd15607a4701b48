import { ApiError } from '../../errors';
import { ResolutionCache } from './cache';
import type { Resolution } from './resolve';
import type { PermStore } from './store';
import type { Group, PermPlayer, PermSnapshot, Track, Where } from './types';

/**
 * The module's data held in memory, as it is on disk: loaded once, and after every write the
 * changed groups, players or tracks are read back from the tables (`reload*`), so memory never
 * holds what a restart would lose. Groups are replaced, never mutated, which the resolver's
 * per-group index relies on.
 */
export class PermState {
  private groupsByKey = new Map<string, Group>();
  private groupKeyById = new Map<number, string>();
  private defaultKey: string | undefined;
  private snap: PermSnapshot = { groups: this.groupsByKey, defaultGroup: undefined };
  /** In first-seen order (the search lists players that way). */
  private readonly playersByUuid = new Map<string, PermPlayer>();
  private readonly uuidById = new Map<number, string>();
  private tracksByKey = new Map<string, Track>();
  readonly cache: ResolutionCache;

  constructor(private readonly store: PermStore) {
    this.cache = new ResolutionCache(
      () => this.snap,
      (uuid) => this.playersByUuid.get(uuid),
    );
  }

  load(): void {
    this.groupsByKey = new Map(this.store.groups().map((g) => [g.key, g]));
    this.reindexGroups();
    this.playersByUuid.clear();
    this.uuidById.clear();
    for (const player of this.store.players()) this.putPlayer(player);
    this.reloadTracks();
  }

  // ---- reads -----------------------------------------------------------------------------

  snapshot(): PermSnapshot {
    return this.snap;
  }

  groups(): Group[] {
    return [...this.groupsByKey.values()];
  }

  findGroup(name: string): Group | undefined {
    return this.groupsByKey.get(name.toLowerCase());
  }

  /** The group, or 404 PERMISSION_GROUP_NOT_FOUND. */
  group(name: string): Group {
    const group = this.findGroup(name);
    if (!group) throw new ApiError('PERMISSION_GROUP_NOT_FOUND', `no permission group named "${name}"`);
    return group;
  }

  groupByKey(key: string): Group | undefined {
    return this.groupsByKey.get(key);
  }

  groupById(id: number): Group | undefined {
    const key = this.groupKeyById.get(id);
    return key === undefined ? undefined : this.groupsByKey.get(key);
  }

  defaultGroup(): Group | undefined {
    return this.defaultKey === undefined ? undefined : this.groupsByKey.get(this.defaultKey);
  }

  players(): IterableIterator<PermPlayer> {
    return this.playersByUuid.values();
  }

  player(uuid: string): PermPlayer | undefined {
    return this.playersByUuid.get(uuid);
  }

  playerById(id: number): PermPlayer | undefined {
    const uuid = this.uuidById.get(id);
    return uuid === undefined ? undefined : this.playersByUuid.get(uuid);
  }

  playerByName(name: string): PermPlayer | undefined {
    const wanted = name.toLowerCase();
    let found: PermPlayer | undefined;
    // The last registered of equal names: names move between accounts over time.
    for (const player of this.playersByUuid.values()) if (player.name.toLowerCase() === wanted) found = player;
    return found;
  }

  tracks(): Track[] {
    return [...this.tracksByKey.values()];
  }

  /** The track, or 404 PERMISSION_TRACK_NOT_FOUND. */
  track(name: string): Track {
    const track = this.tracksByKey.get(name.toLowerCase());
    if (!track) throw new ApiError('PERMISSION_TRACK_NOT_FOUND', `no track named "${name}"`);
    return track;
  }

  findTrack(name: string): Track | undefined {
    return this.tracksByKey.get(name.toLowerCase());
  }

  resolution(uuid: string, where: Where, now: number): Resolution {
    return this.cache.get(uuid, where, now);
  }

  // ---- after writes ----------------------------------------------------------------------

  /** Reads groups back after a change (a deleted one drops out); every cached answer goes. */
  reloadGroups(ids: Iterable<number>): void {
    const next = new Map(this.groupsByKey);
    // Names never change, so an edited group keeps its place (the list order is creation order).
    for (const id of ids) {
      const group = this.store.group(id);
      const oldKey = this.groupKeyById.get(id);
      if (group) next.set(group.key, group);
      else if (oldKey !== undefined) next.delete(oldKey);
    }
    this.groupsByKey = next;
    this.reindexGroups();
  }

  reloadPlayers(ids: Iterable<number>): void {
    for (const id of ids) {
      const player = this.store.player(id);
      if (player) {
        this.putPlayer(player);
        this.cache.forget(player.uuid);
      }
    }
  }

  reloadTracks(): void {
    this.tracksByKey = new Map(this.store.tracks().map((t) => [t.key, t]));
  }

  private putPlayer(player: PermPlayer): void {
    this.playersByUuid.set(player.uuid, player);
    this.uuidById.set(player.id, player.uuid);
  }

  private reindexGroups(): void {
    this.groupKeyById = new Map([...this.groupsByKey.values()].map((g) => [g.id, g.key]));
    this.defaultKey = [...this.groupsByKey.values()].find((g) => g.isDefault)?.key;
    this.snap = { groups: this.groupsByKey, defaultGroup: this.defaultKey };
    this.cache.clear();
  }
}
