import type { Logger } from '../../log';
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
      const now = this.changes.now();
      const groupNames = new Map(state.groups().map((g) => [g.id, g.name]));
      const players = new Map([...state.players()].map((p) => [p.id, p]));
      this.changes.apply('system', () => {
        const expired = this.changes.store.deleteExpired(now);
        const groups = [...new Set(expired.groups.map((g) => g.id))];
        const members = [...new Set(expired.memberships.map((m) => m.playerId))];
        const change: Change = {
          groups,
          players: members,
          events: [
            ...groups.map((id) => ({ type: 'PERMISSION_GROUP_UPDATED' as const, data: { group: groupNames.get(id) ?? String(id) } })),
            ...members.map((id) => ({ type: 'PLAYER_PERMISSIONS_UPDATED' as const, data: { uuid: players.get(id)?.uuid ?? '', player: players.get(id)?.name ?? '' } })),
          ],
          audit: [
            ...expired.groups.map((g) => ({ action: 'group.expireperm', target: groupNames.get(g.id) ?? String(g.id), details: [g.node, g.server && `server=${g.server}`, g.world && `world=${g.world}`].filter(Boolean).join(' ') })),
            ...expired.memberships.map((m) => ({
              action: 'user.expiregroup',
              target: players.get(m.playerId)?.name ?? String(m.playerId),
              details: [groupNames.get(m.groupId) ?? String(m.groupId), m.server && `server=${m.server}`, m.world && `world=${m.world}`].filter(Boolean).join(' '),
            })),
          ],
        };
        if (groups.length + members.length > 0) this.log.info({ grants: expired.groups.length, memberships: expired.memberships.length }, 'expired permissions removed');
        return { change, result: undefined };
      });
    } catch (error) {
      this.log.error({ err: error }, 'permission expiry sweep failed');
    }
    this.rearm();
  }
}
