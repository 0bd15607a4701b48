import type { Database } from 'bun:sqlite';
import type { EventBus } from '../../events/bus';
import { specOf, type SvcEvent } from '../../events/catalogue';
import { pruneOlderThan } from '../../storage/prune';
import type { ServiceRecord } from '../services/registry';

/** One entry of the timeline, as GET /api/timeline and GET /api/services/{name}/timeline answer it. */
export interface TimelineStep {
  /** ISO-8601 UTC, the event's own time. */
  timestamp: string;
  /** The event type (SERVICE_READY, SCALE_DOWN, a module's event, …). */
  type: string;
  /**
   * Who or what caused it: the event's actor (api:admin, api:<token>, dashboard:<name>, console,
   * system), made precise where the bus only knows "the controller": `autoscaler` for a start or
   * stop the scaling engine decided, `crash-handler` for the restart after a crash; a module may
   * say its own (the backup module: `scheduler` for a scheduled backup).
   */
  actor: string;
  /** The event's fields; a start also names its `node`, an autoscaler step its `reason`. */
  data: Record<string, string>;
}

/** A timeline entry with what the network timeline filters by. */
export interface TimelineEntry extends TimelineStep {
  /** Increases with every entry: the cursor of `before` and `after`. */
  id: number;
  /** The service it is about; null when it is about no single service. */
  service: string | null;
  /** That service's group (or the group it is about); null when none. */
  group: string | null;
}

export interface TimelineQuery {
  service?: string;
  group?: string;
  actor?: string;
  /** Exact event types; any of them. */
  types?: readonly string[];
  /** Entries older than this id (paging back), newest first. */
  before?: number;
  /** Entries newer than this id (the live tail), oldest first. */
  after?: number;
  limit: number;
}

/** Entries one read returns at most. */
export const TIMELINE_MAX_STEPS = 500;

/**
 * Events too frequent or too slight to read as history: players moving (the players module
 * keeps their sessions), node heartbeats, plugin-to-plugin messages, per-player tab formats,
 * API warnings.
 */
const NOT_ON_TIMELINE: ReadonlySet<string> = new Set([
  'PLAYER_CONNECTED',
  'PLAYER_DISCONNECTED',
  'PLAYER_SERVER_SWITCH',
  'NODE_HEARTBEAT',
  'SERVICE_MESSAGE',
  'PLAYER_TAB_UPDATED',
  'API_WARNING',
  'STRESS_TEST_UPDATED',
]);

/** A start by the controller this soon after its group's SCALE_UP was the autoscaler's (the engine starts right after publishing). */
const SCALE_UP_WINDOW_MS = 10_000;
/** A stop by the controller this soon after the service's SCALE_DOWN was the autoscaler's. */
const SCALE_DOWN_WINDOW_MS = 10_000;

/**
 * What a module knows of one of its events that the event does not say: the service it is
 * about, and who caused it. Undefined: nothing to add.
 */
export type TimelineResolver = (event: SvcEvent) => { service: string; actor?: string } | undefined;

interface Row {
  id: number;
  ts: number;
  type: string;
  actor: string;
  service: string | null;
  grp: string | null;
  data: string;
}

/**
 * The network's history in sqlite, so it outlives the services' processes and the controller's
 * restarts; pruned with the metrics. Core's recorder (`recordTimeline`) writes every event but
 * the high-volume ones; a module that knows more about its own events than they say (which
 * service a backup is of) adds a resolver.
 */
export class Timeline {
  private readonly insert;
  private readonly byService;
  readonly resolvers: TimelineResolver[] = [];

  constructor(private readonly db: Database) {
    this.insert = db.prepare('INSERT INTO timeline (ts, type, actor, service, grp, data) VALUES (?, ?, ?, ?, ?, ?)');
    this.byService = db.prepare<Row, [string, number]>('SELECT id, ts, type, actor, service, grp, data FROM timeline WHERE service = ? ORDER BY id DESC LIMIT ?');
  }

  /** Lets a module name the service (and the actor) of its own events. */
  addResolver(resolver: TimelineResolver): () => void {
    this.resolvers.push(resolver);
    return () => {
      const at = this.resolvers.indexOf(resolver);
      if (at >= 0) this.resolvers.splice(at, 1);
    };
  }

  record(step: TimelineStep, about: { service: string | null; group: string | null }): void {
    this.insert.run(Date.parse(step.timestamp), step.type, step.actor, about.service, about.group, JSON.stringify(step.data));
  }

  /** The newest `limit` steps of `service` (clamped to 1..TIMELINE_MAX_STEPS), newest first. */
  steps(service: string, limit: number): TimelineStep[] {
    return this.byService.all(service, clampLimit(limit)).map((r) => ({ timestamp: new Date(r.ts).toISOString(), type: r.type, actor: r.actor, data: parseData(r.data) }));
  }

  /** A page of the whole timeline: newest first, or with `after` the entries since, oldest first. */
  query(q: TimelineQuery): TimelineEntry[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    const exact = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      args.push(value);
    };
    exact('service', q.service);
    exact('grp', q.group);
    exact('actor', q.actor);
    if (q.types && q.types.length > 0) {
      where.push(`type IN (${q.types.map(() => '?').join(', ')})`);
      args.push(...q.types);
    }
    if (q.before !== undefined) {
      where.push('id < ?');
      args.push(q.before);
    }
    if (q.after !== undefined) {
      where.push('id > ?');
      args.push(q.after);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const order = q.after !== undefined ? 'ASC' : 'DESC';
    const rows = this.db.query<Row, (string | number)[]>(`SELECT id, ts, type, actor, service, grp, data FROM timeline ${clause} ORDER BY id ${order} LIMIT ?`).all(...args, clampLimit(q.limit));
    return rows.map((r) => ({ id: r.id, timestamp: new Date(r.ts).toISOString(), type: r.type, actor: r.actor, service: r.service, group: r.grp, data: parseData(r.data) }));
  }

  prune(olderThanMs: number, batchSize = 1000): Promise<number> {
    return pruneOlderThan(this.db, 'timeline', olderThanMs, batchSize);
  }
}

/**
 * Feeds the timeline from the bus: every event but the high-volume ones and those carrying a
 * secret meant for the proxy (a live login link). Who caused an entry is the event's actor,
 * made precise where the bus only knows "the controller": a start within 10 s of its group's
 * SCALE_UP and a stop within 10 s of the service's SCALE_DOWN are the autoscaler's (with its
 * reason); the controller's start of a service whose last step was a crash is the crash
 * handler's. The service is the event's `service`, else what a module's resolver names; the
 * group is the event's `group`, else that service's.
 */
export function recordTimeline(bus: EventBus, timeline: Timeline, lookup: (service: string) => ServiceRecord | undefined): () => void {
  const scaledUp = new Map<string, { at: number; reason: string }>();
  const scaledDown = new Map<string, { at: number; reason: string }>();
  const crashed = new Set<string>();

  return bus.subscribe((event) => {
    if (NOT_ON_TIMELINE.has(event.type) || specOf(event.type)?.audience === 'proxy') return;
    const data = event.data as Record<string, string | undefined>;
    const at = Date.parse(event.timestamp);
    let service = data.service ?? null;
    let actor: string = event.actor;
    const extra: Record<string, string> = {};
    if (service === null) {
      for (const resolve of timeline.resolvers) {
        const said = resolve(event);
        if (!said) continue;
        service = said.service;
        if (said.actor) actor = said.actor;
        break;
      }
    }
    const record = service === null ? undefined : lookup(service);
    const group = data.group ?? record?.group ?? null;

    switch (event.type) {
      case 'SCALE_UP':
        if (data.group) scaledUp.set(data.group, { at, reason: data.reason ?? '' });
        actor = 'autoscaler';
        break;
      case 'SCALE_DOWN':
        if (service) scaledDown.set(service, { at, reason: data.reason ?? '' });
        actor = 'autoscaler';
        break;
      case 'SERVICE_STARTING': {
        if (record) extra.node = record.nodeId;
        const up = group ? scaledUp.get(group) : undefined;
        if (event.actor === 'system' && service && crashed.has(service)) actor = 'crash-handler';
        else if (event.actor === 'system' && up && at - up.at <= SCALE_UP_WINDOW_MS) {
          actor = 'autoscaler';
          extra.reason = up.reason;
        }
        if (service) crashed.delete(service);
        break;
      }
      case 'SERVICE_CRASHED':
        if (service) crashed.add(service);
        break;
      case 'SERVICE_DRAINING':
      case 'SERVICE_STOPPING': {
        const down = service ? scaledDown.get(service) : undefined;
        if (event.actor === 'system' && down && at - down.at <= SCALE_DOWN_WINDOW_MS) {
          actor = 'autoscaler';
          extra.reason = down.reason;
        }
        break;
      }
      case 'SERVICE_STOPPED':
        if (service) {
          scaledDown.delete(service);
          crashed.delete(service);
        }
        break;
    }
    timeline.record({ timestamp: event.timestamp, type: event.type, actor, data: { ...(event.data as Record<string, string>), ...extra } }, { service, group });
  });
}

function clampLimit(limit: number): number {
  return Math.min(TIMELINE_MAX_STEPS, Math.max(1, Math.trunc(limit)));
}

function parseData(text: string): Record<string, string> {
  return JSON.parse(text) as Record<string, string>;
}
