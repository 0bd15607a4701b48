import { t } from '../t';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';
import { clamp } from '../clamp';
import { TIMELINE_MAX_STEPS } from '../../core/metrics/timeline';
import { ApiError } from '../../errors';

/** The largest id sqlite binds as an integer: a cursor past it is simply the end. */
const MAX_ID = 2 ** 53 - 1;

const Name = t.String({ minLength: 1, maxLength: 128 });
const TimelineQuery = t.Object({
  limit: t.Optional(t.Integer({ description: `clamped to 1..${TIMELINE_MAX_STEPS}, default 100` })),
  before: t.Optional(t.Integer({ minimum: 0, description: 'entries older than this id (the next page back); newest first' })),
  after: t.Optional(t.Integer({ minimum: 0, description: 'entries newer than this id (the live tail); oldest first; not with before' })),
  service: t.Optional(Name),
  group: t.Optional(Name),
  actor: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'exact: api:admin, dashboard:<name>, console, system, autoscaler, crash-handler, scheduler, …' })),
  type: t.Optional(t.String({ minLength: 1, maxLength: 1000, pattern: '^[A-Z0-9_]+(,[A-Z0-9_]+)*$', description: 'event types, comma-separated; any of them' })),
});

const Entry = t.Object({
  id: t.Integer(),
  timestamp: t.String(),
  type: t.String(),
  actor: t.String(),
  service: t.Union([t.String(), t.Null()]),
  group: t.Union([t.String(), t.Null()]),
  data: t.Record(t.String(), t.String()),
});

export function timelineRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/timeline',
      auth: 'admin',
      permission: 'svc.dashboard.audit.view',
      scopes: ['audit:read'],
      tag: 'audit',
      summary: 'The network’s history, newest first: every lifecycle step, scaling decision, change and module event, with who or what caused it; filtered by service, group, actor and type; paged back with before, followed with after',
      query: TimelineQuery,
      response: { 200: t.Object({ entries: t.Array(Entry), next: t.Union([t.Integer(), t.Null()]) }) },
      handler: ({ query }) => {
        if (query.before !== undefined && query.after !== undefined) throw new ApiError('VALIDATION_FAILED', 'give before (to page back) or after (to follow the tail), not both');
        const limit = clamp(query.limit ?? 100, 1, TIMELINE_MAX_STEPS);
        const entries = kernel.dashboardMetrics.timeline.query({
          limit,
          before: query.before === undefined ? undefined : Math.min(query.before, MAX_ID),
          after: query.after === undefined ? undefined : Math.min(query.after, MAX_ID),
          service: query.service,
          group: query.group,
          actor: query.actor,
          types: query.type?.split(','),
        });
        // Paging back: the id to ask `before` for the next page, while a full page came back.
        const next = query.after === undefined && entries.length === limit ? entries[entries.length - 1]!.id : null;
        return { entries, next };
      },
    }),
  ];
}
