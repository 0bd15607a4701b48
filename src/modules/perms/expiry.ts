import type { Logger } from '../../log';
import { SYSTEM } from './author';
import type { Change, Changes } from './changes';

/** Longest wait between sweeps, so a clock jump or a missed timer costs at most this. */
const MAX_WAIT_MS = 60_000;

/**
 * Deletes grants and memberships whose time is over, with their whole row (nothing is ever
 * kept as a permanent one), and announces each group and player that changed. Resolution
 * already ignores an expired row the moment it expires; the sweep, armed for the earliest
 * stored expiry and re-armed after every change, makes it gone and tells the plugins.
 */
export class ExpirySweeper {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly changes: Changes,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.sweep();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** After any write: an earlier expiry may have been added. */
  rearm(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const next = this.changes.store.nextExpiry();
    const wait = next === undefined ? MAX_WAIT_MS : Math.min(Math.max(next - this.changes.now(), 0), MAX_WAIT_MS);
    this.timer = setTimeout(() => this.sweep(), wait);
    this.timer.unref();
  }

  sweep(): void {
    if (this.stopped) return;
    try {
      const state = this.changes.state;
      // Names are read before the apply reloads memory: the rows are gone from disk by then.
      const groupName = (id: number) => state.groupById(id)?.name ?? String(id);
      const player = (id: number) => state.playerById(id);
      const scoped = (row: { server: string; world: string }) => [row.server && `server=${row.server}`, row.world && `world=${row.world}`];
      this.changes.apply(SYSTEM, () => {
        const expired = this.changes.store.deleteExpired(this.changes.now());
        if (expired.groups.length + expired.memberships.length === 0) return { change: {}, result: undefined };
        const groups = [...new Set(expired.groups.map((g) => g.id))];
        const members = [...new Set(expired.memberships.map((m) => m.playerId))];
        const change: Change = {
          groups,
          players: members,
          events: [
            ...groups.map((id) => ({ type: 'PERMISSION_GROUP_UPDATED' as const, data: { group: groupName(id) } })),
            ...members.map((id) => ({ type: 'PLAYER_PERMISSIONS_UPDATED' as const, data: { uuid: player(id)?.uuid ?? '', player: player(id)?.name ?? '' } })),
          ],
          audit: [
            ...expired.groups.map((g) => ({ action: 'group.expireperm', target: groupName(g.id), details: [g.node, ...scoped(g)].filter(Boolean).join(' ') })),
            ...expired.memberships.map((m) => ({
              action: 'user.expiregroup',
              target: player(m.playerId)?.name ?? String(m.playerId),
              details: [groupName(m.groupId), ...scoped(m)].filter(Boolean).join(' '),
            })),
          ],
        };
        this.log.info({ grants: expired.groups.length, memberships: expired.memberships.length }, 'expired permissions removed');
        return { change, result: undefined };
      });
    } catch (error) {
      this.log.error({ err: error }, 'permission expiry sweep failed');
    }
    this.rearm();
  }
}
