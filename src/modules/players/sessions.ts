import { monotonicNow, type Clock } from '../../core/time/monotonic';
import type { KnownPlayer, PlayerDirectory, RosterEntry } from '../services';
import type { PlayerStore } from './store';

/** An online player: their open session row, mirrored in memory for the roster routes. */
export interface OpenSession extends RosterEntry {
  sessionId: number;
  /** connectedAt as ISO-8601, made once: the roster is read far more often than it changes. */
  connectedAtIso: string;
  /** When this controller opened it, on the monotonic clock (what its length is measured from); absent for a session read back after a restart. */
  connectedMono?: number;
}

/** Epoch ms as the ISO-8601 UTC text every players answer carries. */
export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The canonical online roster: one open session per online player, written to the module's
 * tables before anything reads it, so the roster is the open rows and outlives the process.
 * The bridge's word always wins: a connect elsewhere or a switch moves the player whatever
 * was recorded before, and a switch of a player nobody saw connect opens a session.
 */
export class PlayerSessions implements PlayerDirectory {
  private readonly byUuid = new Map<string, OpenSession>();
  /** lower-case name → uuid of the online player holding it. */
  private readonly uuidByName = new Map<string, string>();
  /** Moves on every change of the roster, so readers can cache what they made of it. */
  version = 0;

  constructor(
    private readonly store: PlayerStore,
    private readonly groupOf: (service: string) => string,
    /** Session lengths are measured on it (monotonic; tests pass a fake). */
    private readonly mono: Clock = monotonicNow,
  ) {}

  /**
   * Reads the open rows back after a restart. Two open rows for one player (a crash between
   * two writes cannot leave that, but an old database might) keep the newest.
   */
  load(at: number): OpenSession[] {
    this.byUuid.clear();
    this.uuidByName.clear();
    const rows = this.store.openSessions();
    for (const row of rows) {
      const older = this.byUuid.get(row.uuid);
      if (older) this.store.closeSession(older.sessionId, older.uuid, older.connectedAt, Math.min(at, row.connectedAt));
      this.put({ uuid: row.uuid, name: row.name, service: row.service, group: row.group, connectedAt: row.connectedAt, connectedAtIso: iso(row.connectedAt), sessionId: row.id });
    }
    return this.online();
  }

  /** The bridge says the player is on `service` now (a connect or the target of a switch). */
  arrive(uuid: string, name: string, service: string, at: number): void {
    this.store.transaction(() => {
      this.store.upsertPlayer(uuid, name, at);
      const current = this.byUuid.get(uuid);
      if (current?.service === service) {
        // A retried post: the session goes on; a renamed player keeps it under the new name.
        if (current.name !== name) this.put({ ...current, name });
        return;
      }
      if (current) this.closeOne(current, at, true);
      const group = this.groupOf(service);
      const sessionId = this.store.openSession(uuid, name, service, group, at);
      this.put({ uuid, name, service, group, connectedAt: at, connectedAtIso: iso(at), sessionId, connectedMono: this.mono() });
    });
  }

  /** The bridge says the player left the network. */
  leave(uuid: string, at: number): void {
    this.store.transaction(() => {
      const current = this.byUuid.get(uuid);
      if (current) this.closeOne(current, at, true);
      else this.store.touch(uuid, at);
    });
  }

  /** Closes every session on `service` (it stopped or crashed) at `at`, now; how many. */
  closeService(service: string, at: number): number {
    return this.closeMany([...this.byUuid.values()].filter((s) => s.service === service), () => at, true);
  }

  /**
   * Closes the given sessions, each at its own time; how many were still open. `now`: those
   * times are the present, so the lengths are measured on the monotonic clock where known.
   */
  closeMany(sessions: readonly OpenSession[], at: (session: OpenSession) => number, now = false): number {
    let closed = 0;
    this.store.transaction(() => {
      for (const session of sessions) {
        if (this.byUuid.get(session.uuid)?.sessionId !== session.sessionId) continue;
        this.closeOne(session, at(session), now);
        closed++;
      }
    });
    return closed;
  }

  online(): OpenSession[] {
    return [...this.byUuid.values()];
  }

  get(uuid: string): OpenSession | undefined {
    return this.byUuid.get(uuid);
  }

  onlineByName(name: string): OpenSession | undefined {
    const uuid = this.uuidByName.get(name.toLowerCase());
    return uuid === undefined ? undefined : this.byUuid.get(uuid);
  }

  knownByName(name: string): KnownPlayer | undefined {
    const online = this.onlineByName(name);
    if (online) return { uuid: online.uuid, name: online.name };
    const row = this.store.playerByName(name);
    return row && { uuid: row.uuid, name: row.name };
  }

  knownByUuid(uuid: string): KnownPlayer | undefined {
    const online = this.byUuid.get(uuid);
    if (online) return { uuid: online.uuid, name: online.name };
    const row = this.store.player(uuid);
    return row && { uuid: row.uuid, name: row.name };
  }

  /** Online players per service, services without players left out. */
  countsByService(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { service } of this.byUuid.values()) counts[service] = (counts[service] ?? 0) + 1;
    return counts;
  }

  get size(): number {
    return this.byUuid.size;
  }

  /** `now`: it closes at the present, so a session opened by this controller has its length from the monotonic clock. */
  private closeOne(session: OpenSession, at: number, now = false): void {
    const lengthMs = now && session.connectedMono !== undefined ? this.mono() - session.connectedMono : undefined;
    this.store.closeSession(session.sessionId, session.uuid, session.connectedAt, at, lengthMs);
    this.drop(session);
  }

  /** How long an open session has lasted so far: on the monotonic clock where known, else from `now` (wall-clock ms). */
  runningMs(session: OpenSession, now: number): number {
    return Math.max(0, session.connectedMono !== undefined ? this.mono() - session.connectedMono : now - session.connectedAt);
  }

  private put(session: OpenSession): void {
    this.version++;
    const previous = this.byUuid.get(session.uuid);
    if (previous) this.drop(previous);
    // An offline-mode name now held by another uuid: the newest holder owns the name lookup.
    this.byUuid.set(session.uuid, session);
    this.uuidByName.set(session.name.toLowerCase(), session.uuid);
  }

  private drop(session: OpenSession): void {
    this.version++;
    this.byUuid.delete(session.uuid);
    const lower = session.name.toLowerCase();
    if (this.uuidByName.get(lower) === session.uuid) this.uuidByName.delete(lower);
  }
}
