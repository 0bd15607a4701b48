import type { EventBus } from '../../events/bus';
import type { GroupStore } from '../groups/store';
import type { PlayerTracker } from '../players/tracker';
import { SERVICE_STATES, type ServiceState } from '../services/lifecycle';
import type { ServiceRecord, ServiceRegistry } from '../services/registry';
import { registerProcessSeries } from './process-series';
import type { MetricsRegistry, Sample } from './registry';
import { secondsSinceMono } from '../time/monotonic';

/**
 * The group a service belongs to, from its `<Group>-<N>` name: a trailing `-<digits>` is
 * stripped (`Lobby-3` → `Lobby`, `Bed-Wars-12` → `Bed-Wars`). A name without one is its own
 * group (`-7` too: nothing would be left).
 */
export function groupFromServiceName(service: string): string {
  const match = /^(.+)-\d+$/.exec(service);
  return match?.[1] ?? service;
}

/**
 * The `group` label of an event that names only a service (SERVICE_CRASHED): a dedicated
 * service is its own group, a known service its record's group, else the name says it.
 */
export function serviceGroupLabel(service: string, record: Pick<ServiceRecord, 'group' | 'isDedicated'> | undefined): string {
  if (record?.isDedicated) return service;
  if (record && record.group) return record.group;
  return groupFromServiceName(service);
}

/**
 * What the core series read: the kernel satisfies it. Named here rather than taken as the
 * Kernel so metrics never import the kernel that holds them (no kernel ↔ metrics loop).
 */
export interface CoreSeriesSources {
  readonly version: string;
  /** The controller's start on the monotonic clock (core/time/monotonic). */
  readonly startedMono: number;
  readonly metrics: MetricsRegistry;
  readonly services: ServiceRegistry;
  readonly groups: GroupStore;
  readonly bus: EventBus;
  readonly players: Pick<PlayerTracker, 'networkTotal'>;
}

type Direction = 'up' | 'down';
const DIRECTIONS: readonly Direction[] = ['up', 'down'];

/**
 * The controller's own series on `GET /api/metrics`. Gauges are read from the registry and
 * the groups when scraped; the counters count bus events in memory since this start (the
 * spec: counters reset when the controller restarts). A family with nothing to count yet
 * still shows its HELP and TYPE, and zero for each configured group, so a series goes to
 * 0 (or stays there) instead of appearing out of nowhere. The standard `process_*` series
 * of the controller process come with them.
 */
export function registerCoreSeries(kernel: CoreSeriesSources): void {
  const { metrics, services, groups, bus } = kernel;

  const crashes = new Map<string, number>();
  const scaling = new Map<string, Map<Direction, number>>();
  const blocked = new Map<string, number>();
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

  bus.subscribe((event) => {
    switch (event.type) {
      case 'SERVICE_CRASHED': {
        const service = event.data.service ?? '';
        bump(crashes, serviceGroupLabel(service, services.get(service)));
        break;
      }
      case 'SCALE_UP':
      case 'SCALE_DOWN': {
        const group = event.data.group ?? '';
        const direction: Direction = event.type === 'SCALE_UP' ? 'up' : 'down';
        const counts = scaling.get(group) ?? new Map<Direction, number>();
        counts.set(direction, (counts.get(direction) ?? 0) + 1);
        scaling.set(group, counts);
        break;
      }
      case 'PLACEMENT_BLOCKED':
        bump(blocked, event.data.group ?? '');
        break;
    }
  });

  const groupNames = () => groups.list().map((g) => g.name);
  /** Configured groups first (in the store's order), then the other names, sorted. */
  const union = (configured: string[], more: Iterable<string>) => {
    const known = new Set(configured);
    const extra = [...new Set(more)].filter((name) => !known.has(name)).sort();
    return [...configured, ...extra];
  };
  const perGroup = (map: Map<string, number>): Sample[] => union(groupNames(), map.keys()).map((group) => ({ labels: { group }, value: map.get(group) ?? 0 }));

  metrics.gauge('svc_info', 'controller version', () => [{ labels: { version: kernel.version }, value: 1 }]);
  metrics.gauge('svc_uptime_seconds', 'seconds since the controller started', () => secondsSinceMono(kernel.startedMono));
  metrics.gauge('svc_services_total', 'services known to the controller', () => services.size);

  metrics.gauge('svc_services_by_state', 'services known to the controller, by lifecycle state', () => {
    const counts = new Map<ServiceState, number>(SERVICE_STATES.map((state) => [state, 0]));
    for (const s of services.all()) counts.set(s.state, (counts.get(s.state) ?? 0) + 1);
    return SERVICE_STATES.map((state) => ({ labels: { state }, value: counts.get(state) ?? 0 }));
  });

  metrics.gauge('svc_services_by_group', 'services known to the controller, by group (every configured group, 0 included)', () => {
    const counts = new Map<string, number>();
    for (const s of services.all()) counts.set(s.group, (counts.get(s.group) ?? 0) + 1);
    return union(groupNames(), counts.keys()).map((group) => ({ labels: { group }, value: counts.get(group) ?? 0 }));
  });

  metrics.gauge('svc_players_total', 'players online across the network (the larger of what backends, proxies and the roster count)', () => kernel.players.networkTotal());

  metrics.gauge('svc_warmpool_size', 'prepared services now in the warm pool, by group', () => {
    const prepared = new Map<string, number>();
    for (const s of services.all()) if (s.state === 'PREPARED') prepared.set(s.group, (prepared.get(s.group) ?? 0) + 1);
    const pooled = groups
      .list()
      .filter((g) => g.warmPoolSize > 0)
      .map((g) => g.name);
    return union(pooled, prepared.keys()).map((group) => ({ labels: { group }, value: prepared.get(group) ?? 0 }));
  });

  metrics.gauge('svc_warmpool_target', 'configured scaling.warm_pool_size, by group', () => groups.list().map((g) => ({ labels: { group: g.name }, value: g.warmPoolSize })));

  metrics.counter('svc_service_crashes_total', 'service crashes since the controller started, by group (dedicated services by their own name)', () => perGroup(crashes));

  metrics.counter('svc_scaling_events_total', 'scaling decisions since the controller started, by group and direction (up or down)', () =>
    union(groupNames(), scaling.keys()).flatMap((group) => DIRECTIONS.map((direction) => ({ labels: { group, direction }, value: scaling.get(group)?.get(direction) ?? 0 }))),
  );

  metrics.counter('svc_placement_blocked_total', 'service starts blocked by placement constraints since the controller started, by group', () => perGroup(blocked));

  registerProcessSeries(metrics);
}
