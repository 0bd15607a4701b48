import type { Group } from '../../core/groups/model';
import type { ScalingOverride } from '../../core/scaling/decide';
import type { ScalingOverrides } from '../../core/scaling/engine';
import type { SvcEvent } from '../../events/catalogue';
import type { ScalingKernel } from './uses';
import type { Logger } from '../../log';
import type { GroupScalingConfig } from './config';
import { isScalable, ScalingConfigs } from './configs';
import { hourSlots, instancesFor, percentile, sameHourWindows, type HourSlot } from './prediction';
import { effectiveRule, type ScheduleRule } from './schedule';
import { HOUR_MS, MINUTE_MS, ScalingStore } from './store';

/** Samples and decisions older than this go (hourly). */
export const RETENTION_MS = 90 * 24 * HOUR_MS;
/** Weeks of history a prediction looks at. */
export const PREDICTION_WEEKS = 4;
/** Below this many samples in the matching hours a prediction is shown but not acted on (half an hour of one week). */
export const MIN_PREDICTION_SAMPLES = 30;
const PRUNE_EVERY_MS = HOUR_MS;

/** A prediction for one local hour of one group. */
export interface Prediction {
  slot: HourSlot;
  /** The configured percentile of the player counts in the same weekday × hour of the last weeks; 0 without samples. */
  predictedPlayers: number;
  samples: number;
  /** Instances those players need (playersPerInstance × scaleThreshold each, rounded up). */
  instances: number;
}

/** The override with what the module needs to say about it when it starts services. */
export interface SmartOverride extends ScalingOverride {
  kind: 'schedule' | 'warmup' | 'prediction';
  rule?: ScheduleRule;
  prediction?: Prediction;
}

const DECISION_ACTIONS = { schedule: 'smart_schedule', warmup: 'smart_warmup', prediction: 'smart_prediction' } as const;

/**
 * One controller's smart scaling: the per-group files, a sample of every scalable group each
 * minute, and the override the core scaling engine asks for every tick: the minimum of the
 * schedule rule in force (or warming up), or of the prediction for the hour ahead, whichever
 * is higher. The engine then refills up to it and never scales idle instances below it, so
 * the schedule and the autoscaler are one loop. Every decision (the engine's too) is stored.
 */
export class ScalingRuntime implements ScalingOverrides {
  readonly store: ScalingStore;
  readonly configs: ScalingConfigs;
  private readonly predictions = new Map<string, { slotStart: number; value: Prediction }>();
  private sampleTimer: ReturnType<typeof setTimeout> | null = null;
  private pruneTimer: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    readonly kernel: ScalingKernel,
    private readonly log: Logger,
    dir: string,
  ) {
    this.store = new ScalingStore(kernel.db);
    this.configs = new ScalingConfigs(kernel, log, dir);
  }

  now(): number {
    return this.kernel.scaling.clock();
  }

  start(): void {
    this.configs.start();
    this.unsubscribe = this.kernel.bus.subscribe((event) => this.onEvent(event));
    this.kernel.scaling.setOverrides(this);
    this.scheduleSample();
    this.pruneTimer = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  stop(): void {
    this.kernel.scaling.setOverrides(null);
    this.unsubscribe?.();
    this.configs.stop();
    if (this.sampleTimer) clearTimeout(this.sampleTimer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.sampleTimer = null;
    this.pruneTimer = null;
  }

  /** Re-reads every group's file (console `scaling reload`); cached predictions are dropped with it. */
  reload(): ReturnType<ScalingConfigs['reload']> {
    this.predictions.clear();
    return this.configs.reload();
  }

  // -------------------------------------------------------------------------------------------
  // Samples

  /** The next sample a few seconds into the next minute, so each lands in its own minute. */
  private scheduleSample(): void {
    const wait = MINUTE_MS - (Date.now() % MINUTE_MS) + 1_000;
    this.sampleTimer = setTimeout(() => {
      try {
        this.sample();
      } catch (error) {
        this.log.warn({ err: error }, 'smart scaling sample failed');
      }
      this.scheduleSample();
    }, wait);
    this.sampleTimer.unref();
  }

  /** One sample per scalable group for the minute of `at`: players on its READY instances and how many are READY. */
  sample(at = this.now()): number {
    const rows = new Map<string, { group: string; players: number; services: number }>();
    for (const group of this.kernel.groups.list()) if (isScalable(group)) rows.set(group.name, { group: group.name, players: 0, services: 0 });
    for (const service of this.kernel.services.all()) {
      const row = rows.get(service.group);
      if (!row || service.state !== 'READY' || service.pooled) continue;
      row.services++;
      row.players += service.playerCount;
    }
    return this.store.addSamples(at, [...rows.values()]);
  }

  prune(now = this.now()): number {
    return this.store.prune(now - RETENTION_MS);
  }

  // -------------------------------------------------------------------------------------------
  // What the engine asks

  overrideFor(group: Group, now: number): SmartOverride | null {
    if (!isScalable(group)) return null;
    const config = this.configs.get(group.name);
    if (!config) return null;
    const candidates: SmartOverride[] = [];
    const lead = config.warmup.enabled ? config.warmup.leadTimeMinutes : 0;
    if (config.enabled) {
      const effective = effectiveRule(config.rules, now, config.timezone, lead);
      if (effective) {
        const { rule, warmup } = effective;
        candidates.push({
          kind: warmup ? 'warmup' : 'schedule',
          rule,
          minInstances: rule.minInstances,
          maxInstances: rule.maxInstances,
          source: warmup ? `schedule rule "${rule.name}" (warming up, it opens within ${lead} min)` : `schedule rule "${rule.name}"`,
        });
      }
    }
    if (config.prediction.enabled) {
      const prediction = this.predictionAt(group, config, now + lead * MINUTE_MS);
      if (prediction.samples >= MIN_PREDICTION_SAMPLES && prediction.instances > 0) {
        candidates.push({
          kind: 'prediction',
          prediction,
          minInstances: prediction.instances,
          maxInstances: null,
          source: `the prediction for ${prediction.slot.dayOfWeek} ${String(prediction.slot.hour).padStart(2, '0')}:00 (${prediction.predictedPlayers} players, p${config.prediction.percentile} of ${prediction.samples} samples)`,
        });
      }
    }
    // The highest minimum; on a tie the schedule before its warm-up before a prediction.
    let best: SmartOverride | null = null;
    for (const candidate of candidates) if (!best || candidate.minInstances > best.minInstances) best = candidate;
    return best;
  }

  onOverrideStart(group: Group, override: ScalingOverride, started: number, had: number): void {
    const smart = override as SmartOverride;
    const at = this.now();
    if (smart.kind === 'prediction' && smart.prediction) {
      const { predictedPlayers, samples } = smart.prediction;
      this.kernel.bus.publish('SMART_PREDICTION', { group: group.name, predicted: String(predictedPlayers), started: String(started), samples: String(samples) });
      this.store.addDecision({ at, group: group.name, action: DECISION_ACTIONS.prediction, source: 'prediction', servicesStarted: started, reason: `predicted ${predictedPlayers} players: ${smart.minInstances} instance(s) needed, had ${had} (${smart.source})` });
      return;
    }
    const rule = smart.rule?.name ?? '';
    const warmup = smart.kind === 'warmup';
    this.kernel.bus.publish(warmup ? 'SMART_WARMUP' : 'SMART_SCHEDULE', { group: group.name, rule, started: String(started), min: String(smart.minInstances) });
    this.store.addDecision({
      at,
      group: group.name,
      action: warmup ? DECISION_ACTIONS.warmup : DECISION_ACTIONS.schedule,
      source: warmup ? 'warmup' : 'schedule',
      servicesStarted: started,
      reason: warmup ? `pre-warming for schedule "${rule}" (need ${smart.minInstances}, had ${had})` : `schedule "${rule}" active (min=${smart.minInstances}, had ${had})`,
    });
  }

  // -------------------------------------------------------------------------------------------
  // Predictions

  /** The prediction for the local hour containing `at`; cached per group and hour (history of past weeks does not change within it). */
  predictionAt(group: Pick<Group, 'name' | 'playersPerInstance' | 'scaleThreshold'>, config: GroupScalingConfig, at: number): Prediction {
    const slot = hourSlots(at, config.timezone, 1)[0]!;
    const key = `${group.name}\u0000${config.timezone}\u0000${config.prediction.percentile}\u0000${group.playersPerInstance}\u0000${group.scaleThreshold}`;
    const cached = this.predictions.get(key);
    if (cached && cached.slotStart === slot.startMs) return cached.value;
    const value = this.predict(group, config, slot);
    this.predictions.set(key, { slotStart: slot.startMs, value });
    return value;
  }

  /** The next `hours` local hours from now, each with its prediction (the predictions route). */
  predictionsAhead(group: Pick<Group, 'name' | 'playersPerInstance' | 'scaleThreshold'>, config: GroupScalingConfig, now: number, hours: number): Prediction[] {
    return hourSlots(now, config.timezone, hours).map((slot) => this.predict(group, config, slot));
  }

  private predict(group: Pick<Group, 'name' | 'playersPerInstance' | 'scaleThreshold'>, config: GroupScalingConfig, slot: HourSlot): Prediction {
    const players: number[] = [];
    for (const window of sameHourWindows(slot.startMs, config.timezone, PREDICTION_WEEKS)) players.push(...this.store.playersBetween(group.name, window.fromMs, window.toMs));
    const predictedPlayers = percentile(players, config.prediction.percentile);
    return { slot, predictedPlayers, samples: players.length, instances: instancesFor(predictedPlayers, group.playersPerInstance, group.scaleThreshold) };
  }

  // -------------------------------------------------------------------------------------------
  // The engine's own decisions

  private onEvent(event: SvcEvent): void {
    if (event.type === 'SCALE_UP') {
      const started = Number(event.data.to) - Number(event.data.from);
      this.store.addDecision({ at: this.now(), group: String(event.data.group), action: 'scale_up', source: 'engine', reason: String(event.data.reason), servicesStarted: Number.isFinite(started) ? started : 0 });
    } else if (event.type === 'SCALE_DOWN') {
      this.store.addDecision({ at: this.now(), group: String(event.data.group), action: 'scale_down', source: 'engine', reason: `${String(event.data.service)}: ${String(event.data.reason)}`, servicesStarted: 0 });
    }
  }
}
