import type { Static } from '@sinclair/typebox';
import { ApiError } from '../../errors';
import { effectiveBounds } from '../../core/scaling/decide';
import type { Group } from '../../core/groups/model';
import type { GroupScalingConfig } from './config';
import { isScalable } from './configs';
import { DECISIONS_LIMIT, PREDICTION_HOURS, STATUS_DECISIONS, type DecisionSchema, type HistorySchema, type PredictionsSchema, type ScheduleSchema, type StatusSchema } from './model';
import type { ScalingRuntime } from './runtime';
import { effectiveRule } from './schedule';
import type { DecisionRow } from './store';
import { HOUR_MS } from './store';

const iso = (ms: number): string => new Date(ms).toISOString();

export const decisionView = (d: DecisionRow): Static<typeof DecisionSchema> => ({ timestamp: iso(d.at), group: d.group, action: d.action, reason: d.reason, source: d.source, servicesStarted: d.servicesStarted });

export function scheduleView(config: GroupScalingConfig): Static<typeof ScheduleSchema> {
  return {
    group: config.group,
    enabled: config.enabled,
    timezone: config.timezone,
    warmup: { ...config.warmup },
    prediction: { ...config.prediction },
    rules: config.rules.map((r) => ({ name: r.name, days: [...r.days], from: r.from, to: r.to, minInstances: r.minInstances, maxInstances: r.maxInstances })),
  };
}

/** The name of the scalable group `name` names (any case), as the group spells it; 404 otherwise. */
export function scalableGroup(runtime: ScalingRuntime, name: string): string {
  return groupOf(runtime, name).name;
}

/** The scalable group by name in any case; 404 SCALING_CONFIG_NOT_FOUND with the reason otherwise. */
function groupOf(runtime: ScalingRuntime, name: string): Group {
  const group = runtime.kernel.groups.list().find((g) => g.name.toLowerCase() === name.toLowerCase());
  if (!group) throw new ApiError('SCALING_CONFIG_NOT_FOUND', `no smart scaling configuration for "${name}": there is no such group`);
  if (!isScalable(group)) throw new ApiError('SCALING_CONFIG_NOT_FOUND', `group "${group.name}" is STATIC: smart scaling applies to DYNAMIC and LOBBY groups only`);
  return group;
}

/** The group's usable config; 404 naming the file and its problem when it is broken. */
export function configOf(runtime: ScalingRuntime, name: string): { group: Group; config: GroupScalingConfig } {
  const group = groupOf(runtime, name);
  const config = runtime.configs.get(group.name);
  if (config) return { group, config };
  const broken = runtime.configs.problemOf(group.name);
  throw new ApiError('SCALING_CONFIG_NOT_FOUND', broken ? `${broken.file} cannot be used: ${broken.problem}` : `no smart scaling configuration for "${group.name}" yet`);
}

export function statusView(runtime: ScalingRuntime): Static<typeof StatusSchema> {
  const now = runtime.now();
  const groups = runtime.kernel.groups
    .list()
    .filter(isScalable)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((group) => {
      const config = runtime.configs.get(group.name);
      const problem = runtime.configs.problemOf(group.name)?.problem ?? null;
      const effective = config?.enabled ? effectiveRule(config.rules, now, config.timezone, config.warmup.enabled ? config.warmup.leadTimeMinutes : 0) : null;
      const override = runtime.kernel.scaling.overrideOf(group, now);
      return {
        group: group.name,
        enabled: config?.enabled ?? false,
        ruleCount: config?.rules.length ?? 0,
        timezone: config?.timezone ?? runtime.configs.zone,
        activeRule: effective ? { name: effective.rule.name, minInstances: effective.rule.minInstances, maxInstances: effective.rule.maxInstances, isWarmup: effective.warmup } : null,
        predictionEnabled: config?.prediction.enabled ?? false,
        minInstances: group.minInstances,
        effectiveMinInstances: effectiveBounds(group, override).minInstances,
        effectiveSource: override && effectiveBounds(group, override).minInstances > group.minInstances ? override.source : null,
        problem,
      };
    });
  return { groups, recentDecisions: runtime.store.decisions(STATUS_DECISIONS).decisions.map(decisionView) };
}

export function historyView(runtime: ScalingRuntime, name: string, hours: number): Static<typeof HistorySchema> {
  const group = runtime.kernel.groups.list().find((g) => g.name.toLowerCase() === name.toLowerCase());
  // A group deleted since keeps its history under its own spelling.
  const spelled = group?.name ?? name;
  const now = runtime.now();
  const from = (Math.floor(now / HOUR_MS) - hours + 1) * HOUR_MS;
  const snapshots = runtime.store.hoursBetween(spelled, from, now + 1).map((h) => ({
    timestamp: iso(h.hourMs),
    playerCount: Math.round(h.playersSum / h.samples),
    serviceCount: Math.round(h.servicesSum / h.samples),
    peakPlayerCount: h.playersMax,
    samples: h.samples,
  }));
  return { group: spelled, hours, snapshots };
}

export function predictionsView(runtime: ScalingRuntime, name: string): Static<typeof PredictionsSchema> {
  const { group, config } = configOf(runtime, name);
  const predictions = runtime.predictionsAhead(group, config, runtime.now(), PREDICTION_HOURS).map((p) => ({
    hour: p.slot.hour,
    dayOfWeek: p.slot.dayOfWeek,
    timestamp: iso(p.slot.startMs),
    predictedPlayers: p.predictedPlayers,
    predictedInstances: p.instances,
    dataPoints: p.samples,
  }));
  return { group: group.name, timezone: config.timezone, percentile: config.prediction.percentile, predictions };
}

export function decisionsView(runtime: ScalingRuntime, limit: number, group?: string): { decisions: Static<typeof DecisionSchema>[]; total: number } {
  const { decisions, total } = runtime.store.decisions(Math.min(DECISIONS_LIMIT.max, Math.max(DECISIONS_LIMIT.min, limit)), group);
  return { decisions: decisions.map(decisionView), total };
}
