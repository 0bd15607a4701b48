/**
 * What the Scaling page reads and sends: the smart scaling module's answers (src/modules/scaling/
 * model.ts has their schemas), the query keys, and the permission nodes.
 *
 * Saving a schedule: the page sends the group's whole schedule (ScheduleBodySchema: the schedule
 * as GET answers it without `group`) to PUT /api/scaling/schedules/{group}, which writes the
 * group's file, puts it in force at once (SMART_SCHEDULE_SAVED) and answers the schedule saved:
 * the page takes that as the group's schedule (save.ts).
 */
import { api } from '../../api';

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface Rule {
  name: string;
  /** Full upper-case day names, as the API answers them. */
  days: Weekday[];
  /** "HH:MM", local wall time in the schedule's zone. */
  from: string;
  /** "HH:MM"; not after `from`: the next day. */
  to: string;
  minInstances: number;
  maxInstances: number | null;
}

export interface Schedule {
  group: string;
  enabled: boolean;
  timezone: string;
  warmup: { enabled: boolean; leadTimeMinutes: number };
  prediction: { enabled: boolean; percentile: number };
  rules: Rule[];
}

/** A schedule as sent to be saved: everything but the group, which the path names. */
export type ScheduleBody = Omit<Schedule, 'group'>;

export interface Decision {
  timestamp: string;
  group: string;
  /** scale_up, scale_down (the core engine); smart_schedule, smart_warmup, smart_prediction. */
  action: string;
  reason: string;
  /** engine, schedule, warmup or prediction. */
  source: string;
  servicesStarted: number;
}

export interface GroupStatus {
  group: string;
  enabled: boolean;
  ruleCount: number;
  timezone: string;
  activeRule: { name: string; minInstances: number; maxInstances: number | null; isWarmup: boolean } | null;
  predictionEnabled: boolean;
  /** The group's own minimum. */
  minInstances: number;
  /** The minimum the scaling engine works with now. */
  effectiveMinInstances: number;
  /** What raised it (a rule, its warm-up, a prediction), or null. */
  effectiveSource: string | null;
  /** Why the group's file cannot be used (smart scaling is off for it), or null. */
  problem: string | null;
}

export interface Status {
  groups: GroupStatus[];
  recentDecisions: Decision[];
}

export interface HistoryHour {
  /** Start of the hour. */
  timestamp: string;
  /** Mean of the hour's per-minute samples, rounded. */
  playerCount: number;
  serviceCount: number;
  peakPlayerCount: number;
  samples: number;
}

export interface History {
  group: string;
  hours: number;
  snapshots: HistoryHour[];
}

export interface PredictedHour {
  hour: number;
  dayOfWeek: Weekday;
  timestamp: string;
  predictedPlayers: number;
  predictedInstances: number;
  dataPoints: number;
}

export interface Predictions {
  group: string;
  timezone: string;
  percentile: number;
  predictions: PredictedHour[];
}

export interface Decisions {
  decisions: Decision[];
  /** Decisions stored (of the group, when filtered). */
  total: number;
}

/** What GET /api/groups says of a group that the page shows beside the module's figures. */
export interface GroupFacts {
  name: string;
  minInstances: number;
  maxInstances: number;
  activeInstances: number;
}

export const BASE = '/api/scaling';

export const NODE = {
  view: 'svc.dashboard.scaling.view',
  /** What a change of a schedule needs (the save route's node). */
  manage: 'svc.dashboard.scaling.manage',
  /** The groups' own bounds and running instances (GET /api/groups). */
  groups: 'svc.dashboard.groups.view',
  /** The live event stream (/api/events). */
  events: 'svc.dashboard.overview',
} as const;

/** Limits of a group's file (src/modules/scaling/config.ts): the form checks them before sending. */
export const LIMITS = { instances: 10_000, rules: 200, leadMinutes: 24 * 60, percentile: { min: 1, max: 100 } } as const;

export const HISTORY_HOURS = 24;
export const DECISIONS_STEP = 50;
export const DECISIONS_MAX = 500;

export const STATUS_KEY = ['scaling', 'status'] as const;
export const SCHEDULES_KEY = ['scaling', 'schedules'] as const;
export const scheduleKey = (group: string) => ['scaling', 'schedules', group] as const;
export const historyKey = (group: string) => ['scaling', 'history', group] as const;
export const predictionsKey = (group: string) => ['scaling', 'predictions', group] as const;
export const DECISIONS_KEY = ['scaling', 'decisions'] as const;
export const GROUPS_KEY = ['scaling', 'groups'] as const;

const path = (group: string) => encodeURIComponent(group);

export const getStatus = () => api<Status>(`${BASE}/status`);
export const getSchedules = () => api<{ schedules: Schedule[] }>(`${BASE}/schedules`);
export const getSchedule = (group: string) => api<Schedule>(`${BASE}/schedules/${path(group)}`);
export const getHistory = (group: string) => api<History>(`${BASE}/history/${path(group)}?hours=${HISTORY_HOURS}`);
export const getPredictions = (group: string) => api<Predictions>(`${BASE}/predictions/${path(group)}`);
export const getDecisions = (limit: number, group: string) => api<Decisions>(`${BASE}/decisions?limit=${limit}${group === '' ? '' : `&group=${path(group)}`}`);
export const getGroups = () => api<{ groups: GroupFacts[] }>('/api/groups');
export const saveSchedule = (group: string, body: ScheduleBody) => api<Schedule>(`${BASE}/schedules/${path(group)}`, { method: 'PUT', json: body });

/** The schedule as sent to be saved (a copy: the caller may change it). */
export function bodyOf(schedule: Schedule): ScheduleBody {
  return {
    enabled: schedule.enabled,
    timezone: schedule.timezone,
    warmup: { ...schedule.warmup },
    prediction: { ...schedule.prediction },
    rules: schedule.rules.map((r) => ({ ...r, days: [...r.days] })),
  };
}
