import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import type { ServiceRecord, ServiceRegistry } from '../services/registry';
import { Roster, type CountDelta, type ProxyPlayerEvent } from './roster';

const PROXY_GONE = new Set(['SERVICE_STOPPED', 'SERVICE_CRASHED']);

/** Only a running server has players; a stopped or crashed record keeps its last count for the record. */
export function holdsPlayers(service: Pick<ServiceRecord, 'state'>): boolean {
  return service.state === 'READY' || service.state === 'DRAINING';
}

/** A proxy in these states may still carry players (or is about to). */
export function proxyUp(service: Pick<ServiceRecord, 'isProxy' | 'state'>): boolean {
  return service.isProxy && (service.state === 'READY' || service.state === 'STARTING' || service.state === 'DRAINING');
}

/**
 * The players of the network: the roster the bridge feeds, and the player counts of services
 * it moves. `/api/status`, the stop drain and the scaling engine read those counts.
 */
export class PlayerTracker {
  readonly roster: Roster;
  private readonly clearedListeners = new Set<(proxy: string) => void>();

  constructor(
    private readonly deps: { bus: EventBus; registry: ServiceRegistry; log: Logger },
    now: () => number = Date.now,
  ) {
    this.roster = new Roster(now);
    deps.bus.subscribe((event) => {
      if (PROXY_GONE.has(event.type)) this.proxyMayBeGone(event.data.service ?? '');
    });
  }

  /** One bridge event: the roster and the counts move, then the matching event is published. */
  record(event: ProxyPlayerEvent, actor: Actor): void {
    this.applyCounts(this.roster.apply(event));
    if (event.type === 'PLAYER_SERVER_SWITCH') {
      this.deps.bus.publish('PLAYER_SERVER_SWITCH', { player: event.player, uuid: event.uuid, from: event.from, to: event.to }, actor);
    } else {
      // The proxy is named when known (its own credential reported the connect).
      const proxy = event.type === 'PLAYER_CONNECTED' && event.proxy ? { proxy: event.proxy } : {};
      this.deps.bus.publish(event.type, { player: event.player, uuid: event.uuid, service: event.service, ...proxy }, actor);
    }
  }

  /**
   * A fresh absolute count for a backend (Server List Ping): replaces the estimate without
   * arming the stale watch, which only SDK reports do.
   */
  observe(service: string, online: number): void {
    const record = this.deps.registry.get(service);
    if (record) record.playerCount = online;
  }

  /** Called when the roster empties because the last proxy is gone (the proxy's name); returns the unsubscribe. */
  onRosterCleared(listener: (proxy: string) => void): () => void {
    this.clearedListeners.add(listener);
    return () => this.clearedListeners.delete(listener);
  }

  /** Players on the network: the larger of what the backends and what the proxies count. */
  networkTotal(): number {
    let backends = 0;
    let proxies = 0;
    for (const s of this.deps.registry.all()) {
      if (!holdsPlayers(s)) continue;
      if (s.isProxy) proxies += s.playerCount;
      else backends += s.playerCount;
    }
    return Math.max(backends, proxies, this.roster.size);
  }

  private applyCounts(deltas: CountDelta[]): void {
    for (const { service, delta } of deltas) {
      const record = this.deps.registry.get(service);
      if (record) record.playerCount = Math.max(0, record.playerCount + delta);
    }
  }

  /**
   * When the last supervised proxy has gone, nobody can still be connected through it: the
   * roster empties and the counts it had added are taken back. With a proxy still running
   * (or none ever supervised: an external proxy feeds the bridge) the roster stays.
   */
  private proxyMayBeGone(service: string): void {
    if (!this.deps.registry.get(service)?.isProxy) return;
    const stillUp = this.deps.registry.all().some((s) => s.name !== service && proxyUp(s));
    if (stillUp) return;
    const dropped = this.roster.size;
    if (dropped > 0) {
      this.applyCounts(this.roster.clear());
      this.deps.log.info({ service, players: dropped }, 'the last proxy is gone: its players left the roster');
    }
    for (const listener of this.clearedListeners) listener(service);
  }
}
