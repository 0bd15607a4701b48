import type { Database } from 'bun:sqlite';
import type { EventBus } from '../../events/bus';
import { pruneOlderThan } from '../../storage/prune';
import type { ServiceRecord } from '../services/registry';
import { serviceGroupLabel } from './core-series';

/** Startups of one group in a window: how many, and their summed STARTING → READY time. */
export interface StartupStats {
  count: number;
  totalMs: number;
}

/**
 * Crashes and startup durations of services, in sqlite so the 24 h and 7 d figures survive a
 * controller restart (the in-memory counters of `/api/metrics` reset on purpose). Rows carry
 * the group as the crash counter labels it: a dedicated service under its own name.
 */
export class ServiceEventsStore {
  private readonly insert;

  constructor(private readonly db: Database) {
    this.insert = db.prepare('INSERT INTO service_events (ts, kind, service, grp, value) VALUES (?, ?, ?, ?, ?)');
  }

  recordCrash(service: string, group: string, exitCode: number, ts: number): void {
    this.insert.run(ts, 'CRASH', service, group, Number.isInteger(exitCode) ? exitCode : -1);
  }

  recordStartup(service: string, group: string, durationMs: number, ts: number): void {
    this.insert.run(ts, 'STARTUP', service, group, Math.max(0, Math.round(durationMs)));
  }

  /** Crashes at or after `sinceMs`, by group. */
  crashesByGroup(sinceMs: number): Map<string, number> {
    const rows = this.db
      .query<{ grp: string; n: number }, [number]>("SELECT grp, COUNT(*) AS n FROM service_events WHERE kind = 'CRASH' AND ts >= ? GROUP BY grp")
      .all(sinceMs);
    return new Map(rows.map((r) => [r.grp, r.n]));
  }

  /** Startups that reached READY at or after `sinceMs`, by group. */
  startupsByGroup(sinceMs: number): Map<string, StartupStats> {
    const rows = this.db
      .query<{ grp: string; n: number; total: number }, [number]>("SELECT grp, COUNT(*) AS n, SUM(value) AS total FROM service_events WHERE kind = 'STARTUP' AND ts >= ? GROUP BY grp")
      .all(sinceMs);
    return new Map(rows.map((r) => [r.grp, { count: r.n, totalMs: r.total }]));
  }

  prune(olderThanMs: number, batchSize = 1000): Promise<number> {
    return pruneOlderThan(this.db, 'service_events', olderThanMs, batchSize);
  }
}

/**
 * Feeds the store from the bus: every SERVICE_CRASHED, and for every start the time from its
 * SERVICE_STARTING to its SERVICE_READY. A start served by a booted warm-pool instance is READY
 * at once and counts as such (the wait its caller had). A service that was STARTING when the
 * controller restarted has no STARTING here; its process start time stands in.
 */
export function recordServiceEvents(bus: EventBus, store: ServiceEventsStore, lookup: (service: string) => ServiceRecord | undefined): () => void {
  const starting = new Map<string, number>();
  return bus.subscribe(
    (event) => {
      const service = event.data.service;
      if (!service) return;
      const ts = Date.parse(event.timestamp);
      switch (event.type) {
        case 'SERVICE_STARTING':
          starting.set(service, ts);
          return;
        case 'SERVICE_READY': {
          const record = lookup(service);
          const from = starting.get(service) ?? record?.startedAt?.getTime();
          starting.delete(service);
          if (from !== undefined) store.recordStartup(service, serviceGroupLabel(service, record), ts - from, ts);
          return;
        }
        case 'SERVICE_CRASHED':
          starting.delete(service);
          store.recordCrash(service, serviceGroupLabel(service, lookup(service)), Number(event.data.exitCode), ts);
          return;
        case 'SERVICE_STOPPED':
          starting.delete(service);
          return;
      }
    },
    // A crash or a start time is a row of its own; one lost to a full disk fails the request that caused it.
    { records: 'the service event record' },
  );
}
