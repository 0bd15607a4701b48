/**
 * Who is online and on which service, as the proxy bridge reports it (POST /api/proxy/events).
 * In memory only: a controller restart starts it empty, and the bridge's next events fill it.
 *
 * The roster also says how each event moves the player counts of services. Those are deltas,
 * not totals: a backend's SDK report is an absolute reading, and proxy events move the count
 * between two readings. A repeated event (the bridge retrying a post) moves nothing.
 */
export interface OnlinePlayer {
  name: string;
  /** Lower-case, dashed. */
  uuid: string;
  /** The backend the player is on; empty while the proxy has not placed them yet. */
  service: string;
  /** Epoch ms of the connect. */
  since: number;
  /**
   * The proxy that carries them: the service whose own credential reported the connect; empty
   * when the report came with a shared token (or from an external proxy), which names none.
   */
  proxy: string;
}

export type ProxyPlayerEvent =
  | { type: 'PLAYER_CONNECTED'; player: string; uuid: string; service: string; proxy?: string }
  | { type: 'PLAYER_DISCONNECTED'; player: string; uuid: string; service: string }
  | { type: 'PLAYER_SERVER_SWITCH'; player: string; uuid: string; from: string; to: string };

/** A change of one service's player count. */
export interface CountDelta {
  service: string;
  delta: number;
}

/** How many players who left are remembered as "known offline" (oldest forgotten first). */
const REMEMBERED_DEPARTURES = 10_000;

export class Roster {
  private readonly byUuid = new Map<string, OnlinePlayer>();
  /** lower-case name → uuid, for the online players. */
  private readonly uuidByName = new Map<string, string>();
  /** lower-case names of players seen leaving and not back since. */
  private readonly departed = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Applies one bridge event and says how service counts move. */
  apply(event: ProxyPlayerEvent): CountDelta[] {
    const known = this.byUuid.get(event.uuid);
    switch (event.type) {
      case 'PLAYER_CONNECTED': {
        this.place(event.player, event.uuid, event.service, known?.since, event.proxy || known?.proxy || '');
        if (known?.service === event.service) return [];
        return deltas([known?.service, -1], [event.service, +1]);
      }
      case 'PLAYER_SERVER_SWITCH': {
        this.place(event.player, event.uuid, event.to, known?.since, known?.proxy ?? '');
        if (known?.service === event.to) return [];
        return deltas([known ? known.service : event.from, -1], [event.to, +1]);
      }
      case 'PLAYER_DISCONNECTED': {
        const name = event.player.toLowerCase();
        if (!known && this.departed.has(name)) return [];
        this.remove(event.uuid);
        this.remember(name);
        return deltas([known ? known.service : event.service, -1]);
      }
    }
  }

  /** Forgets everyone (the proxies that carried them are gone) and says how counts move. */
  clear(): CountDelta[] {
    const perService = new Map<string, number>();
    for (const player of this.byUuid.values()) {
      this.remember(player.name.toLowerCase());
      if (player.service) perService.set(player.service, (perService.get(player.service) ?? 0) - 1);
    }
    this.byUuid.clear();
    this.uuidByName.clear();
    return [...perService].map(([service, delta]) => ({ service, delta }));
  }

  /**
   * Puts players back without moving any count: a roster kept elsewhere (the players module's
   * open sessions) after a controller restart. The service counts came back on their own.
   */
  restore(players: readonly OnlinePlayer[]): void {
    for (const p of players) this.place(p.name, p.uuid, p.service, p.since, p.proxy);
  }

  get(uuid: string): OnlinePlayer | undefined {
    return this.byUuid.get(uuid);
  }

  /** The online player with this name, case-insensitively. */
  byName(name: string): OnlinePlayer | undefined {
    const uuid = this.uuidByName.get(name.toLowerCase());
    return uuid === undefined ? undefined : this.byUuid.get(uuid);
  }

  /**
   * True only when the roster has seen this player leave and not come back. A name it never
   * saw is not known to be offline: the player may have joined before this controller started.
   */
  knownOffline(name: string): boolean {
    const lower = name.toLowerCase();
    return !this.uuidByName.has(lower) && this.departed.has(lower);
  }

  all(): OnlinePlayer[] {
    return [...this.byUuid.values()];
  }

  get size(): number {
    return this.byUuid.size;
  }

  private place(name: string, uuid: string, service: string, since: number | undefined, proxy: string): void {
    const previous = this.byUuid.get(uuid);
    if (previous && previous.name.toLowerCase() !== name.toLowerCase()) this.uuidByName.delete(previous.name.toLowerCase());
    const lower = name.toLowerCase();
    // A name now held by another uuid (an offline-mode name reused): the newest holder wins.
    const holder = this.uuidByName.get(lower);
    if (holder !== undefined && holder !== uuid) this.byUuid.delete(holder);
    this.byUuid.set(uuid, { name, uuid, service, since: since ?? this.now(), proxy });
    this.uuidByName.set(lower, uuid);
    this.departed.delete(lower);
  }

  private remove(uuid: string): void {
    const player = this.byUuid.get(uuid);
    if (!player) return;
    this.byUuid.delete(uuid);
    if (this.uuidByName.get(player.name.toLowerCase()) === uuid) this.uuidByName.delete(player.name.toLowerCase());
  }

  private remember(lowerName: string): void {
    this.departed.delete(lowerName);
    this.departed.add(lowerName);
    if (this.departed.size > REMEMBERED_DEPARTURES) {
      const oldest = this.departed.values().next().value;
      if (oldest !== undefined) this.departed.delete(oldest);
    }
  }
}

function deltas(...changes: [string | undefined, number][]): CountDelta[] {
  const out: CountDelta[] = [];
  for (const [service, delta] of changes) if (service) out.push({ service, delta });
  return out;
}
