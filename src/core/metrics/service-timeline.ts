import type { Database } from 'bun:sqlite';
import type { EventBus } from '../../events/bus';
import type { SvcEvent } from '../../events/catalogue';
import { pruneOlderThan } from '../../storage/prune';
import type { ServiceRecord } from '../services/registry';

/** One step of a service's timeline, as GET /api/services/{name}/timeline answers it. */
export interface TimelineStep {
  /** ISO-8601 UTC, the event's own time. */
  timestamp: string;
  /** The event type (SERVICE_READY, SCALE_DOWN, a module's event, …). */
  type: string;
  /**
   * Who or what caused it: the event's actor (api:admin, dashboard:<name>, console, system), or
   * `autoscaler` for a start or stop the scaling engine decided; a module recording its own steps
   * (the backup module: `scheduler` for a scheduled backup) says its own.
   */
  actor: string;
  /** The event's fields; a start also names its `node`, an autoscaler step its `reason`. */
  data: Record<string, string>;
}

/** Steps one read returns at most. */
export const TIMELINE_MAX_STEPS = 500;

/** Events about one service (their `service` field) that belong on its timeline. */
export const TIMELINE_SERVICE_EVENTS: ReadonlySet<string> = new Set([
  'SERVICE_PREPARED',
  'SERVICE_STARTING',
  'SERVICE_READY',
  'SERVICE_DRAINING',
  'SERVICE_STOPPING',
  'SERVICE_STOPPED',
  'SERVICE_CRASHED',
  'SERVICE_RECOVERED',
  'SERVICE_DEPLOYED',
  'SERVICE_CUSTOM_STATE_CHANGED',
  'SCALE_DOWN',
  'SYNC_COMPLETED',
  'SYNC_FAILED',
  'GROUP_QUARANTINED',
]);

/** A start by the controller this soon after its group's SCALE_UP was the autoscaler's (the engine starts right after publishing). */
const SCALE_UP_WINDOW_MS = 10_000;
/** A stop by the controller this soon after the service's SCALE_DOWN was the autoscaler's. */
const SCALE_DOWN_WINDOW_MS = 10_000;

/**
 * The timeline of every service, in sqlite so it outlives the service's process and the
 * controller's restarts; pruned with the metrics. Reads are by service name, newest first.
 * Core's events are recorded by `recordServiceTimeline`; a module records its own steps about a
 * service with `record` (the backup module: src/modules/backup/timeline.ts).
 */
export class ServiceTimeline {
  private readonly insert;
  private readonly select;

  constructor(private readonly db: Database) {
    this.insert = db.prepare('INSERT INTO service_timeline (ts, service, type, actor, data) VALUES (?, ?, ?, ?, ?)');
    this.select = db.prepare<{ ts: number; type: string; actor: string; data: string }, [string, number]>(
      'SELECT ts, type, actor, data FROM service_timeline WHERE service = ? ORDER BY ts DESC, rowid DESC LIMIT ?',
    );
  }

  record(service: string, step: TimelineStep): void {
    this.insert.run(Date.parse(step.timestamp), service, step.type, step.actor, JSON.stringify(step.data));
  }

  /** The newest `limit` steps of `service` (clamped to 1..TIMELINE_MAX_STEPS), newest first. */
  steps(service: string, limit: number): TimelineStep[] {
    const rows = this.select.all(service, Math.min(TIMELINE_MAX_STEPS, Math.max(1, Math.trunc(limit))));
    return rows.map((r) => ({ timestamp: new Date(r.ts).toISOString(), type: r.type, actor: r.actor, data: JSON.parse(r.data) as Record<string, string> }));
  }

  prune(olderThanMs: number, batchSize = 1000): Promise<number> {
    return pruneOlderThan(this.db, 'service_timeline', olderThanMs, batchSize);
  }
}

/**
 * Feeds the timeline from core's events on the bus. Who caused a step is the event's actor,
 * made more precise where the bus only knows "the controller": a start within 10 s of its
 * group's SCALE_UP and a stop within 10 s of the service's SCALE_DOWN are the autoscaler's
 * (with its reason).
 */
export function recordServiceTimeline(bus: EventBus, timeline: ServiceTimeline, lookup: (service: string) => ServiceRecord | undefined): () => void {
  const scaledUp = new Map<string, { at: number; reason: string }>();
  const scaledDown = new Map<string, { at: number; reason: string }>();

  return bus.subscribe((event) => {
    const data = event.data as Record<string, string | undefined>;
    const at = Date.parse(event.timestamp);
    if (event.type === 'SCALE_UP' && data.group) {
      scaledUp.set(data.group, { at, reason: data.reason ?? '' });
      return;
    }
    const service = data.service;
    if (!service || !TIMELINE_SERVICE_EVENTS.has(event.type)) return;
    switch (event.type) {
      case 'SERVICE_STARTING': {
        const record = lookup(service);
        const extra: Record<string, string> = record ? { node: record.nodeId } : {};
        const up = data.group ? scaledUp.get(data.group) : undefined;
        if (event.actor === 'system' && up && at - up.at <= SCALE_UP_WINDOW_MS) {
          timeline.record(service, stepOf(event, 'autoscaler', { ...extra, reason: up.reason }));
          return;
        }
        timeline.record(service, stepOf(event, event.actor, extra));
        return;
      }
      case 'SCALE_DOWN':
        scaledDown.set(service, { at, reason: data.reason ?? '' });
        timeline.record(service, stepOf(event, 'autoscaler'));
        return;
      case 'SERVICE_DRAINING':
      case 'SERVICE_STOPPING': {
        const down = scaledDown.get(service);
        if (event.actor === 'system' && down && at - down.at <= SCALE_DOWN_WINDOW_MS) {
          timeline.record(service, stepOf(event, 'autoscaler', { reason: down.reason }));
          return;
        }
        timeline.record(service, stepOf(event, event.actor));
        return;
      }
      case 'SERVICE_STOPPED':
        scaledDown.delete(service);
        timeline.record(service, stepOf(event, event.actor));
        return;
      default:
        timeline.record(service, stepOf(event, event.actor));
    }
  });
}

/** A step of `event`, caused by `actor`, with its data and `extra` fields. */
export function stepOf(event: SvcEvent, actor: string, extra: Record<string, string> = {}): TimelineStep {
  return { timestamp: event.timestamp, type: event.type, actor, data: { ...(event.data as Record<string, string>), ...extra } };
}
