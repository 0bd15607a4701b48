import type { Static } from '@sinclair/typebox';
import type { KnownPlayerSchema, OnlinePlayerSchema, PlayerInfoSchema, SessionSchema, StatsSchema } from './model';
import { iso, type OpenSession, type PlayerSessions } from './sessions';
import type { PlayerRow, PlayerStore, SessionRow } from './store';

/** What the routes and the console command read: rows and the live roster turned into answers. */
export class PlayerViews {
  constructor(
    private readonly store: PlayerStore,
    private readonly sessions: PlayerSessions,
    private readonly now: () => number = Date.now,
    /** The proxy carrying a player (core's roster keeps it); '' when not known. */
    private readonly proxyOf: (uuid: string) => string = () => '',
  ) {}

  private cached: { version: number; json: string } | undefined;

  online(): Static<typeof OnlinePlayerSchema>[] {
    return this.sessions.online().map((s) => onlineView(s, this.proxyOf(s.uuid)));
  }

  /** The roster as its JSON answer, made again only when the roster changed since the last call. */
  onlineJson(): string {
    if (this.cached?.version !== this.sessions.version) this.cached = { version: this.sessions.version, json: JSON.stringify(this.online()) };
    return this.cached.json;
  }

  onlineOne(uuid: string): Static<typeof OnlinePlayerSchema> | undefined {
    const session = this.sessions.get(uuid);
    return session && onlineView(session, this.proxyOf(session.uuid));
  }

  history(uuid: string, limit: number): Static<typeof SessionSchema>[] {
    return this.store.history(uuid, limit).map(sessionView);
  }

  info(uuid: string): Static<typeof PlayerInfoSchema> | undefined {
    const row = this.store.player(uuid);
    return row && this.infoOf(row);
  }

  /** The player by name: the online one first, else the one last seen under it. */
  infoByName(name: string): Static<typeof PlayerInfoSchema> | undefined {
    const online = this.sessions.onlineByName(name);
    const row = online ? this.store.player(online.uuid) : this.store.playerByName(name);
    return row && this.infoOf(row);
  }

  /** Players whose name contains `q`, or the most recently seen ones when `q` is empty. */
  known(q: string, limit: number): Static<typeof KnownPlayerSchema>[] {
    const rows = q === '' ? this.store.recent(limit) : this.store.search(q, limit);
    return rows.map((row) => {
      const { uuid, name, firstSeen, lastSeen, totalPlaytimeSeconds, online } = this.infoOf(row);
      return { uuid, name, firstSeen, lastSeen, totalPlaytimeSeconds: String(totalPlaytimeSeconds), online: online ? ('true' as const) : ('false' as const) };
    });
  }

  stats(): Static<typeof StatsSchema> {
    return { online: this.sessions.size, totalUnique: this.store.uniquePlayers(), perService: this.sessions.countsByService() };
  }

  private infoOf(row: PlayerRow): Static<typeof PlayerInfoSchema> {
    const session = this.sessions.get(row.uuid);
    const running = session ? this.sessions.runningMs(session, this.now()) : 0;
    return {
      uuid: row.uuid,
      name: row.name,
      firstSeen: iso(row.firstSeen),
      lastSeen: iso(row.lastSeen),
      totalPlaytimeSeconds: Math.floor((row.playtimeMs + running) / 1000),
      online: session !== undefined,
      currentService: session?.service ?? null,
    };
  }
}

function onlineView(s: OpenSession, proxy: string): Static<typeof OnlinePlayerSchema> {
  return { uuid: s.uuid, name: s.name, service: s.service, group: s.group, connectedAt: s.connectedAtIso, proxy: proxy || null };
}

function sessionView(row: SessionRow): Static<typeof SessionSchema> {
  return { service: row.service, group: row.group, connectedAt: iso(row.connectedAt), disconnectedAt: row.disconnectedAt === null ? null : iso(row.disconnectedAt) };
}
