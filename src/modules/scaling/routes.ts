import { t } from '../../http/t';
import { clamp } from '../../http/clamp';
import { defineRoute, type AnyRoute } from '../../http/route';
import { ErrorBodySchema } from '../../http/schemas';
import { DECISIONS_LIMIT, DecisionsSchema, GroupParams, HISTORY_HOURS, HistorySchema, PredictionsSchema, ScheduleBodySchema, ScheduleSchema, StatusSchema } from './model';
import { renderScalingFile } from './config';
import type { ScalingRuntime } from './runtime';
import { configOf, decisionsView, historyView, predictionsView, scalableGroup, scheduleView, statusView } from './views';

const PREFIX = '/api/scaling';
const TAG = 'scaling';
/** The reference's dashboard node for the scaling page, with the svc prefix. */
const VIEW = 'svc.dashboard.scaling.view';
/** Saving a schedule raises a group's minimum and maximum: the operator's, or a session's holding this node. */
const MANAGE = 'svc.dashboard.scaling.manage';
const Err = ErrorBodySchema;
const Refusals = { 400: Err, 401: Err, 403: Err } as const;

export function scalingRoutes(runtime: ScalingRuntime): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/status`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'Every DYNAMIC and LOBBY group: its schedule, the rule in force or warming up, the minimum the engine works with now and why; the 10 latest decisions',
      response: { 200: StatusSchema, ...Refusals },
      handler: () => statusView(runtime),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/schedules`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: "Every group's smart scaling configuration (groups whose file cannot be used are left out: see /status)",
      response: { 200: t.Object({ schedules: t.Array(ScheduleSchema) }), ...Refusals },
      handler: () => ({ schedules: runtime.configs.all().map(scheduleView) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/schedules/:group`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: "One group's configuration; 404 SCALING_CONFIG_NOT_FOUND for an unknown or STATIC group, or a file that cannot be used (the message says why)",
      params: GroupParams,
      response: { 200: ScheduleSchema, ...Refusals, 404: Err },
      handler: ({ params }) => scheduleView(configOf(runtime, params.group).config),
    }),
    defineRoute({
      method: 'PUT',
      path: `${PREFIX}/schedules/:group`,
      auth: 'admin',
      permission: MANAGE,
      tag: TAG,
      summary: "Saves one group's smart scaling (its file, config/modules/scaling/<Group>.toml, rewritten with its comments) and puts it in force at once; a value the file reader refuses is 400 in its words, naming the key. 404 SCALING_CONFIG_NOT_FOUND for an unknown or STATIC group",
      params: GroupParams,
      body: ScheduleBodySchema,
      response: { 200: ScheduleSchema, ...Refusals, 404: Err },
      handler: ({ params, body, actor }) => {
        const group = scalableGroup(runtime, params.group);
        const text = renderScalingFile(group, {
          schedule: {
            enabled: body.enabled,
            timezone: body.timezone,
            rules: body.rules.map((r) => ({ name: r.name, days: [...r.days], from: r.from, to: r.to, min_instances: r.minInstances, ...(r.maxInstances === null ? {} : { max_instances: r.maxInstances }) })),
          },
          warmup: { enabled: body.warmup.enabled, lead_time_minutes: body.warmup.leadTimeMinutes },
          prediction: { enabled: body.prediction.enabled, percentile: body.prediction.percentile },
        });
        const saved = runtime.configs.save(group, text);
        runtime.kernel.bus.publish('SMART_SCHEDULE_SAVED', { group, enabled: String(saved.enabled), rules: String(saved.rules.length) }, actor);
        return scheduleView(saved);
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/history/:group`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: `Hourly aggregates of the per-minute samples (players, READY services), oldest first; hours clamped to ${HISTORY_HOURS.min}..${HISTORY_HOURS.max}, default ${HISTORY_HOURS.default}. A group without samples (or unknown) has none`,
      params: GroupParams,
      query: t.Object({ hours: t.Optional(t.Integer({ description: `clamped to ${HISTORY_HOURS.min}..${HISTORY_HOURS.max}` })) }),
      response: { 200: HistorySchema, ...Refusals },
      handler: ({ params, query }) => historyView(runtime, params.group, clamp(query.hours ?? HISTORY_HOURS.default, HISTORY_HOURS.min, HISTORY_HOURS.max)),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/predictions/:group`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'The next 6 local hours: the players predicted from the same weekday and hour over the last 4 weeks (the configured percentile), the instances they need and the samples behind it',
      params: GroupParams,
      response: { 200: PredictionsSchema, ...Refusals, 404: Err },
      handler: ({ params }) => predictionsView(runtime, params.group),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/decisions`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: `Scaling decisions of the core engine (scale_up, scale_down) and of smart scaling, newest first; limit clamped to ${DECISIONS_LIMIT.min}..${DECISIONS_LIMIT.max}, default ${DECISIONS_LIMIT.default}`,
      query: t.Object({
        limit: t.Optional(t.Integer({ description: `clamped to ${DECISIONS_LIMIT.min}..${DECISIONS_LIMIT.max}` })),
        group: t.Optional(t.String({ description: 'only this group (any case)' })),
      }),
      response: { 200: DecisionsSchema, ...Refusals },
      handler: ({ query }) => decisionsView(runtime, query.limit ?? DECISIONS_LIMIT.default, query.group || undefined),
    }),
  ];
}
