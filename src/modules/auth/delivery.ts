import type { PlayerDirectory } from '../../core/module-services';
import type { EventBus } from '../../events/bus';
import type { Logger } from '../../log';
import type { ChallengeService } from './challenges';
import { monotonicNow, SlidingWindow } from './sliding-window';

/** Links the login page may send one player per minute: enough to ask again, not to flood a chat. */
export const PUBLIC_DELIVERIES_PER_PLAYER = 3;
const PLAYER_WINDOW_MS = 60_000;

export type DeliveryOutcome = 'delivered' | 'offline' | 'over-budget';

/**
 * deliver-magic-link's work: a name typed on the login page becomes a link in that player's
 * chat (the AUTH_MAGIC_LINK_DELIVERY event, which the proxy's auth plugin turns into a
 * clickable line), when they are online.
 *
 * The caller has already answered: the work runs after the response, so neither the answer nor
 * its timing tells a stranger whether the name is online or how much of its budget is spent.
 * Public links have a budget of their own per player (on the monotonic clock) and never count
 * against the in-game codes and links (`max_generates_per_minute`): strangers naming an admin
 * on the login page cannot lock the admin out of logging in from the game. The per-address
 * limit is the route's own (10 calls a minute, answered before anything is looked up).
 */
export class MagicLinkDelivery {
  private readonly perPlayer: SlidingWindow;

  constructor(
    private readonly challenges: ChallengeService,
    private readonly players: () => PlayerDirectory | undefined,
    private readonly bus: EventBus,
    private readonly linkOf: (token: string) => string,
    private readonly log: Logger,
    now: () => number = monotonicNow,
  ) {
    this.perPlayer = new SlidingWindow(PUBLIC_DELIVERIES_PER_PLAYER, PLAYER_WINDOW_MS, now);
  }

  /** Delivers after the current response has gone out; failures are logged, never answered. */
  later(name: string): void {
    setImmediate(() => {
      try {
        this.deliver(name);
      } catch (error) {
        this.log.error({ err: error }, 'a magic link asked for on the login page could not be delivered');
      }
    });
  }

  /** Does the delivery now; what happened is for the log and tests, never for the caller. */
  deliver(name: string): DeliveryOutcome {
    const player = this.players()?.onlineByName(name);
    if (!player) return 'offline';
    if (this.perPlayer.take(player.uuid) > 0) {
      this.log.info({ player: player.name }, `login page: more than ${PUBLIC_DELIVERIES_PER_PLAYER} magic links a minute asked for this player; no link sent`);
      return 'over-budget';
    }
    const issued = this.challenges.issueMagicLink({ uuid: player.uuid, name: player.name }, 'public');
    this.bus.publish('AUTH_MAGIC_LINK_DELIVERY', { uuid: player.uuid, name: player.name, url: this.linkOf(issued.secret), ttl: issued.ttlSeconds, expiresAt: issued.expiresAt }, 'system');
    return 'delivered';
  }

  sweep(): void {
    this.perPlayer.sweep();
  }
}
