import { t } from '../../http/t';
import { WEEKDAYS } from './zoned';

/** `?hours=` of the history route: clamped, never refused. */
export const HISTORY_HOURS = { min: 1, max: 2160, default: 24 } as const;
/** `?limit=` of the decisions route. */
export const DECISIONS_LIMIT = { min: 1, max: 500, default: 50 } as const;
export const STATUS_DECISIONS = 10;
export const PREDICTION_HOURS = 6;

const Day = t.UnionEnum([...WEEKDAYS]);

export const DecisionSchema = t.Object({
  timestamp: t.String({ description: 'ISO-8601' }),
  group: t.String(),
  action: t.String({ description: 'scale_up, scale_down (the core engine); smart_schedule, smart_warmup, smart_prediction' }),
  reason: t.String(),
  source: t.String({ description: 'engine, schedule, warmup or prediction' }),
  servicesStarted: t.Integer(),
});

export const RuleSchema = t.Object({
  name: t.String(),
  days: t.Array(Day, { description: 'full upper-case day names' }),
  from: t.String({ description: 'HH:MM, local time in the schedule\'s zone' }),
  to: t.String({ description: 'HH:MM; not after `from`: the next day' }),
  minInstances: t.Integer(),
  maxInstances: t.Union([t.Integer(), t.Null()]),
});

export const ScheduleSchema = t.Object({
  group: t.String(),
  enabled: t.Boolean(),
  timezone: t.String(),
  warmup: t.Object({ enabled: t.Boolean(), leadTimeMinutes: t.Integer() }),
  prediction: t.Object({ enabled: t.Boolean(), percentile: t.Integer() }),
  rules: t.Array(RuleSchema),
});

/** What a save sends: the schedule as GET answers it, without the group (the path names it). */
export const ScheduleBodySchema = t.Object({
  enabled: t.Boolean(),
  timezone: t.String({ minLength: 1, maxLength: 64, description: 'an IANA zone' }),
  warmup: t.Object({ enabled: t.Boolean(), leadTimeMinutes: t.Integer({ minimum: 0, maximum: 1440 }) }),
  prediction: t.Object({ enabled: t.Boolean(), percentile: t.Integer({ minimum: 1, maximum: 100 }) }),
  rules: t.Array(
    t.Object({
      name: t.String({ minLength: 1, maxLength: 64 }),
      days: t.Array(Day, { minItems: 1, maxItems: 7 }),
      from: t.String({ pattern: '^\\d{2}:\\d{2}$', description: 'HH:MM' }),
      to: t.String({ pattern: '^\\d{2}:\\d{2}$', description: 'HH:MM' }),
      minInstances: t.Integer({ minimum: 0, maximum: 10000 }),
      maxInstances: t.Union([t.Integer({ minimum: 1, maximum: 10000 }), t.Null()]),
    }),
    { maxItems: 200 },
  ),
});

export const StatusSchema = t.Object({
  groups: t.Array(
    t.Object({
      group: t.String(),
      enabled: t.Boolean(),
      ruleCount: t.Integer(),
      timezone: t.String(),
      activeRule: t.Union([t.Object({ name: t.String(), minInstances: t.Integer(), maxInstances: t.Union([t.Integer(), t.Null()]), isWarmup: t.Boolean() }), t.Null()], {
        description: 'the rule in force or warming up (schedule enabled only)',
      }),
      predictionEnabled: t.Boolean(),
      minInstances: t.Integer({ description: "the group's own minimum" }),
      effectiveMinInstances: t.Integer({ description: 'the minimum the scaling engine works with now' }),
      effectiveSource: t.Union([t.String(), t.Null()], { description: 'what raised it (a rule, its warm-up, a prediction), or null' }),
      problem: t.Union([t.String(), t.Null()], { description: 'why the group\'s file cannot be used (smart scaling is off for it), or null' }),
    }),
  ),
  recentDecisions: t.Array(DecisionSchema),
});

export const HistorySchema = t.Object({
  group: t.String(),
  hours: t.Integer({ description: 'as clamped' }),
  snapshots: t.Array(
    t.Object({
      timestamp: t.String({ description: 'start of the hour, ISO-8601' }),
      playerCount: t.Integer({ description: 'mean of the hour\'s per-minute samples, rounded' }),
      serviceCount: t.Integer({ description: 'mean READY services, rounded' }),
      peakPlayerCount: t.Integer(),
      samples: t.Integer(),
    }),
    { description: 'hourly, oldest first' },
  ),
});

export const PredictionsSchema = t.Object({
  group: t.String(),
  timezone: t.String(),
  percentile: t.Integer(),
  predictions: t.Array(
    t.Object({
      hour: t.Integer({ description: '0-23, local' }),
      dayOfWeek: Day,
      timestamp: t.String({ description: 'start of the hour, ISO-8601' }),
      predictedPlayers: t.Integer(),
      predictedInstances: t.Integer(),
      dataPoints: t.Integer({ description: 'samples it rests on' }),
    }),
  ),
});

export const DecisionsSchema = t.Object({ decisions: t.Array(DecisionSchema), total: t.Integer({ description: 'decisions stored (of the group, when filtered)' }) });
export const GroupParams = t.Object({ group: t.String() });
