import { ApiError } from '../../errors';
import type { Author } from './author';
import type { Changes } from './changes';
import { isGroupName } from './nodes';
import type { PlayerService } from './players-service';
import type { Track } from './types';

export const TRACK_MIN_GROUPS = 2;
export const TRACK_MAX_GROUPS = 100;

/** What promote and demote answer (the reference's shape, with previousGroup filled). */
export interface StepResult {
  success: boolean;
  previousGroup: string | null;
  newGroup: string | null;
  message: string;
}

const invalid = (message: string) => new ApiError('VALIDATION_FAILED', message);

/**
 * Where a player stands on a track: the highest track position among the groups they are in
 * (any scope), or -1 when they are in none. Pure, so the ladder rules are table-tested.
 */
export function rankOn(track: Pick<Track, 'groups'>, memberships: readonly { group: string }[]): number {
  let rank = -1;
  for (const m of memberships) rank = Math.max(rank, track.groups.indexOf(m.group));
  return rank;
}

/** The step a promotion (+1) or demotion (-1) takes: from and to positions, or why none is taken. */
export function stepOn(track: Pick<Track, 'groups'>, rank: number, direction: 1 | -1): { from: number; to: number } | { refused: 'top' | 'bottom' | 'off-track' } {
  if (direction === 1) return rank >= track.groups.length - 1 ? { refused: 'top' } : { from: rank, to: rank + 1 };
  if (rank < 0) return { refused: 'off-track' };
  if (rank === 0) return { refused: 'bottom' };
  return { from: rank, to: rank - 1 };
}

/** Tracks (ordered ladders of groups) and moving players up and down them. */
export class TrackService {
  constructor(
    private readonly changes: Changes,
    private readonly players: PlayerService,
  ) {}

  private get state() {
    return this.changes.state;
  }

  create(name: string, groupNames: string[], by: Author): Track {
    if (!isGroupName(name)) throw invalid(`track name "${name}" must be 1–64 of letters, digits, _ and -`);
    const taken = this.state.findTrack(name);
    if (taken) throw invalid(`a track named "${taken.name}" already exists`);
    if (groupNames.length < TRACK_MIN_GROUPS) throw invalid(`a track needs at least ${TRACK_MIN_GROUPS} groups, lowest rank first`);
    const groups = groupNames.map((g) => {
      const group = this.state.findGroup(g);
      if (!group) throw invalid(`"${g}" is not a permission group`);
      return group;
    });
    if (new Set(groups.map((g) => g.id)).size !== groups.length) throw invalid('a group appears twice on the track');
    this.changes.apply(by, () => {
      this.changes.store.insertTrack(name, groups.map((g) => g.id));
      return {
        change: {
          tracks: true,
          events: [{ type: 'PERMISSION_TRACK_CREATED', data: { track: name } }],
          audit: [{ action: 'track.create', target: name, details: groups.map((g) => g.name).join(',') }],
        },
        result: undefined,
      };
    });
    return this.state.track(name);
  }

  delete(name: string, by: Author): void {
    const track = this.state.track(name);
    this.changes.apply(by, () => {
      this.changes.store.deleteTrack(track.id);
      return {
        change: { tracks: true, events: [{ type: 'PERMISSION_TRACK_DELETED', data: { track: track.name } }], audit: [{ action: 'track.delete', target: track.name }] },
        result: undefined,
      };
    });
  }

  promote(trackName: string, uuid: string, by: Author): StepResult {
    return this.step(trackName, uuid, 1, by);
  }

  demote(trackName: string, uuid: string, by: Author): StepResult {
    return this.step(trackName, uuid, -1, by);
  }

  /**
   * One rung: the player leaves the group they hold at their rank (every scope of it) and gets
   * the next one unscoped. Lower track groups they also hold stay, as they were given.
   */
  private step(trackName: string, uuid: string, direction: 1 | -1, by: Author): StepResult {
    const track = this.state.track(trackName);
    const player = this.players.known(uuid);
    const rank = rankOn(track, player.memberships);
    const nameAt = (i: number) => (i < 0 ? null : (this.state.groupByKey(track.groups[i]!)?.name ?? track.groups[i]!));
    const step = stepOn(track, rank, direction);
    if ('refused' in step) {
      const message = { top: `${player.name} is already at the top of ${track.name}`, bottom: `${player.name} is already at the bottom of ${track.name}`, 'off-track': `${player.name} holds no group of ${track.name}` }[step.refused];
      return { success: false, previousGroup: nameAt(rank), newGroup: null, message };
    }
    const from = step.from < 0 ? undefined : this.state.groupByKey(track.groups[step.from]!);
    const to = this.state.groupByKey(track.groups[step.to]!)!;
    const verb = direction === 1 ? 'promoted' : 'demoted';
    this.changes.apply(by, () => {
      if (from) this.changes.store.deleteMemberships(player.id, from.id);
      this.changes.store.deleteMembershipKind(player.id, to.id, true);
      this.changes.store.upsertMembership(player.id, to.id, { server: '', world: '', expiresAt: null });
      const data = { uuid, player: player.name, track: track.name, newGroup: to.name };
      return {
        change: {
          players: [player.id],
          events: [
            { type: direction === 1 ? 'PLAYER_PROMOTED' : 'PLAYER_DEMOTED', data },
            { type: 'PLAYER_PERMISSIONS_UPDATED', data: { uuid, player: player.name } },
          ],
          audit: [{ action: direction === 1 ? 'user.promote' : 'user.demote', target: player.name, details: `${track.name}: ${from?.name ?? '-'} → ${to.name}` }],
        },
        result: undefined,
      };
    });
    return { success: true, previousGroup: from?.name ?? null, newGroup: to.name, message: `${player.name} ${verb} on ${track.name}: ${from?.name ?? '(none)'} → ${to.name}` };
  }
}
