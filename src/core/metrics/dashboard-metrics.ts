import type { Database } from 'bun:sqlite';
import type { EventBus } from '../../events/bus';
import type { PlayerTracker } from '../players/tracker';
import type { ServiceRecord, ServiceRegistry } from '../services/registry';
import { memoryUsedMb } from '../services/view';
import { groupRows } from './group-rows';
import { historyMinutes, NetworkHistory, type PlayerSample } from './network-history';
import { performanceSummary, type PerformanceSummary } from './performance';
import { recordServiceEvents, ServiceEventsStore } from './service-events-store';
import { recordTimeline, Timeline } from './timeline';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest window a figure reads (crashesLast7d, the startup average): events are kept at least this long. */
const EVENT_WINDOW_MS = 7 * DAY_MS;

export interface DashboardMetricsDeps {
  db: Database;
  bus: EventBus;
  registry: Pick<ServiceRegistry, 'all' | 'get'>;
  /** The configured groups (the group store). */
  groups: { list(): readonly { name: string; maxPlayers: number }[] };
  /** The configured dedicated services (the dedicated store). */
  dedicated: { list(): readonly { name: string }[] };
  players: Pick<PlayerTracker, 'networkTotal'>;
  /** Resident memory of a service (default: the process table, or the agent's report). */
  memoryUsedMb?: (record: ServiceRecord) => number;
}

/**
 * What the dashboard's overview and performance pages read beyond the service list: the
 * network's player history and the performance summary. It records service crashes and
 * startups from the bus from construction on; `sample()` is called every sample tick by the
 * controller (and directly by tests).
 *
 * Uptime: the reference derives it from the crash count alone (100 − 2 per crash in 24 h,
 * never below 80), which is not an availability and cannot tell one crash of a 30-second
 * lobby from a day-long outage. Here `uptimePercent` is service availability over the last
 * 24 h, measured at every sample tick: of the services that were up (READY, DRAINING) or down
 * (CRASHED and not yet replaced or stopped, or a crash restart still booting), the share that
 * were up, summed over the ticks. Deliberate starts and stops are not downtime; time while the
 * controller itself was down is not sampled; 100 when no tick saw a service up or down.
 */
export class DashboardMetrics {
  readonly network: NetworkHistory;
  readonly events: ServiceEventsStore;
  /** The network's history (GET /api/timeline; a service's own at GET /api/services/{name}/timeline). */
  readonly timeline: Timeline;

  constructor(private readonly deps: DashboardMetricsDeps) {
    this.network = new NetworkHistory({
      db: deps.db,
      records: () => deps.registry.all(),
      networkPlayers: () => deps.players.networkTotal(),
      groupNames: () => this.rows(deps.registry.all()).map((r) => r.name),
    });
    this.events = new ServiceEventsStore(deps.db);
    recordServiceEvents(deps.bus, this.events, (name) => deps.registry.get(name));
    this.timeline = new Timeline(deps.db);
    recordTimeline(deps.bus, this.timeline, (name) => deps.registry.get(name));
  }

  /** One sample of the network (players, up and down services). */
  sample(now = Date.now()): PlayerSample {
    return this.network.sample(now);
  }

  /** `minutes` is clamped to 5..1440 (default 60); at most 2000 samples, oldest first. */
  playerHistory(minutes: number | undefined, now = Date.now()): PlayerSample[] {
    return this.network.players(historyMinutes(minutes), now);
  }

  performance(now = Date.now()): PerformanceSummary {
    const records = this.deps.registry.all();
    return performanceSummary({
      records,
      rows: this.rows(records),
      networkPlayers: this.deps.players.networkTotal(),
      crashes24h: this.events.crashesByGroup(now - DAY_MS),
      crashes7d: this.events.crashesByGroup(now - EVENT_WINDOW_MS),
      startups: this.events.startupsByGroup(now - EVENT_WINDOW_MS),
      uptimePercent: this.network.availability(now - DAY_MS, now),
      memoryUsedMb: this.deps.memoryUsedMb ?? memoryUsedMb,
    });
  }

  /** Drops samples and timeline steps older than the cutoff (`[metrics] retention_days`); events only once past the 7-day window too. */
  async prune(cutoffMs: number, now = Date.now()): Promise<number> {
    const samples = await this.network.prune(cutoffMs);
    const events = await this.events.prune(Math.min(cutoffMs, now - EVENT_WINDOW_MS));
    const steps = await this.timeline.prune(cutoffMs);
    return samples + events + steps;
  }

  private rows(records: readonly ServiceRecord[]) {
    return groupRows(this.deps.groups.list(), this.deps.dedicated.list(), records);
  }
}
