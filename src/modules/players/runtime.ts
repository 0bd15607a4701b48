import type { PlayersKernel } from './uses';
import type { Logger } from '../../log';
import type { SvcEvent } from '../../events/catalogue';
import { closedByRestart, emptiedByReport } from './reconcile';
import { PlayerSessions } from './sessions';
import { PlayerStore } from './store';
import { PlayerViews } from './views';

/** How often the module notes it is alive and checks sessions against the backends' counts. */
export const TICK_MS = 15_000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 3600 * 1000;
/** The state key of the last moment this controller was known alive (written every tick and at stop). */
export const ALIVE = 'alive';

export interface PlayersSettings {
  /** Closed sessions older than this are deleted (totals stay); 0 keeps them all. */
  historyRetentionDays: number;
}

/**
 * One controller's players module: the session tables, the roster kept from them, and what
 * moves it. Proxy events (through core's bus) open and close sessions; a stopped or crashed
 * service closes its sessions at that moment; the last proxy going closes them all; a
 * restart keeps the open sessions as the roster, closing those the downtime ended.
 */
export class PlayersRuntime {
  readonly store: PlayerStore;
  readonly sessions: PlayerSessions;
  readonly views: PlayerViews;
  private readonly unsubscribe: (() => void)[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastPrune = 0;

  constructor(
    private readonly kernel: PlayersKernel,
    private readonly log: Logger,
    readonly settings: PlayersSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.store = new PlayerStore(kernel.db);
    this.sessions = new PlayerSessions(this.store, (service) => kernel.services.get(service)?.group ?? 'unknown');
    this.views = new PlayerViews(this.store, this.sessions, now, (uuid) => kernel.players.roster.get(uuid)?.proxy ?? '');
  }

  /**
   * After services are recovered: the open rows become the roster again, except those on a
   * service that ended while no controller watched, which close at the last moment this
   * controller was known alive. Core's roster gets the survivors back, so send, kick and
   * completions know them too.
   */
  ready(): void {
    const now = this.now();
    const open = this.sessions.load(now);
    const lastAlive = Math.min(this.store.state(ALIVE) ?? now, now);
    const ended = closedByRestart(open, this.kernel.services.all());
    this.sessions.closeMany(ended, (s) => Math.max(s.connectedAt, lastAlive));
    const kept = this.sessions.online();
    // Who carried them is not kept across a restart: the proxies' next connects name it again.
    this.kernel.players.roster.restore(kept.map((s) => ({ name: s.name, uuid: s.uuid, service: s.service, since: s.connectedAt, proxy: '' })));
    if (open.length > 0) this.log.info({ kept: kept.length, closed: ended.length }, 'the online roster came back from the open sessions');

    this.unsubscribe.push(
      // The session rows are the record of the proxy's events: a connect is not acknowledged without its row.
      this.kernel.bus.subscribe((event) => this.onEvent(event), { records: 'the player session' }),
      this.kernel.players.onRosterCleared((proxy) => {
        const closed = this.sessions.closeMany(this.sessions.online(), () => this.now());
        if (closed > 0) this.log.info({ proxy, closed }, 'the last proxy is gone: every session closed');
      }),
    );
    this.tick();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    for (const off of this.unsubscribe.splice(0)) off();
    this.store.setState(ALIVE, this.now());
  }

  private onEvent(event: SvcEvent): void {
    const at = this.now();
    const { data } = event;
    switch (event.type) {
      case 'PLAYER_CONNECTED':
        // A connect without a server yet (the bridge reports the first post-connect) has nowhere to open.
        if (data.service) this.sessions.arrive(data.uuid!, data.player!, data.service, at);
        return;
      case 'PLAYER_SERVER_SWITCH':
        this.sessions.arrive(data.uuid!, data.player!, data.to!, at);
        return;
      case 'PLAYER_DISCONNECTED':
        this.sessions.leave(data.uuid!, at);
        return;
      case 'SERVICE_STOPPED':
      case 'SERVICE_CRASHED': {
        const closed = this.sessions.closeService(data.service!, at);
        if (closed > 0) this.log.info({ service: data.service, closed }, `${data.service} ${event.type === 'SERVICE_CRASHED' ? 'crashed' : 'stopped'}: its sessions closed`);
        return;
      }
    }
  }

  /** Notes the controller alive, closes sessions a backend's own count contradicts, prunes old sessions hourly. */
  private tick(): void {
    try {
      const now = this.now();
      this.store.setState(ALIVE, now);
      const emptied = emptiedByReport(this.sessions.online(), this.kernel.services.all());
      if (emptied.length > 0) {
        const at = new Map(emptied.map((e) => [e.session.sessionId, e.at]));
        const closed = this.sessions.closeMany(emptied.map((e) => e.session), (s) => at.get(s.sessionId)!);
        this.log.info({ closed }, 'closed sessions on backends that report no players');
      }
      if (this.settings.historyRetentionDays > 0 && now - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = now;
        const removed = this.store.pruneClosed(now - this.settings.historyRetentionDays * DAY_MS);
        if (removed > 0) this.log.info({ removed }, 'pruned old sessions');
      }
    } catch (error) {
      this.log.error({ err: error }, 'players tick failed');
    }
  }
}
