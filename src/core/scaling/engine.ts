import type { EventBus } from '../../events/bus';
import type { Logger } from '../../log';
import type { Group } from '../groups/model';
import type { GroupStore } from '../groups/store';
import type { PlayerTracker } from '../players/tracker';
import type { ServiceManager } from '../services/manager';
import type { ServiceRecord, ServiceRegistry } from '../services/registry';
import { memoryMaxMb } from '../software/memory';
import { monotonicNow, type Clock } from '../time/monotonic';
import { decideScaling, effectiveBounds, type ScalingDecision, type ScalingOverride, type ServiceReading } from './decide';
import { machineUsage, placementRoom, type MachineLimits } from './placement';

export interface ScalingTiming {
  /** `[controller] scaling_tick_interval`. */
  tickMs: number;
  upCooldownMs: number;
  downCooldownMs: number;
  /** An SDK report younger than this is a current count; older ones are pinged. */
  reportFreshMs: number;
  pingTimeoutMs: number;
}

export const DEFAULT_SCALING_TIMING: Omit<ScalingTiming, 'tickMs'> = {
  upCooldownMs: 30_000,
  downCooldownMs: 120_000,
  reportFreshMs: 30_000,
  pingTimeoutMs: 3_000,
};

export interface ScalingDeps {
  bus: EventBus;
  log: Logger;
  registry: ServiceRegistry;
  groups: GroupStore;
  manager: Pick<ServiceManager, 'start' | 'stop' | 'isQuarantined' | 'pendingRestartsOf'>;
  players: Pick<PlayerTracker, 'roster' | 'observe'>;
  limits: () => MachineLimits;
  /** Server List Ping: the number of players online at the port, or null when it does not answer. */
  ping: (host: string, port: number, timeoutMs: number) => Promise<number | null>;
  /** Scaling pauses while this says so (a stress test runs). */
  paused: () => boolean;
  timing: ScalingTiming;
  /** The wall clock schedules (smart scaling's rules) are read on; tests pass a fake. */
  now?: () => number;
  /**
   * The clock idle times, cooldowns, report freshness and start backoffs are measured on:
   * monotonic, so a wall-clock step scales nothing. A test that fakes `now` alone drives both.
   */
  monotonic?: Clock;
}

/**
 * Where a module raises groups' minimums (smart scaling). Asked once per group per tick, so it
 * must be cheap and must not throw; told when a tick starts instances that only the override
 * asked for.
 */
export interface ScalingOverrides {
  overrideFor(group: Group, now: number): ScalingOverride | null;
  onOverrideStart(group: Group, override: ScalingOverride, started: number, had: number): void;
}

/** The longest wait between scaling starts of a group whose starts keep failing. */
const MAX_START_BACKOFF_MS = 5 * 60_000;

/** What the engine remembers of a service between ticks (times on the engine's monotonic clock). */
interface Watch {
  /** The last tick had a current count for it. */
  fresh: boolean;
  zeroReadings: number;
  lastPlayerAt: number;
  hadPlayers: boolean;
}

/**
 * Decides, every tick, how many instances each group runs (see decide.ts for the rule) and
 * carries the decisions out: SCALE_UP and a start, SCALE_DOWN and a draining stop,
 * PLACEMENT_BLOCKED once when a due start does not fit (again only after it fitted once).
 * Player counts come from SDK reports, the proxy roster, and Server List Ping for services
 * that have neither.
 */
export class ScalingEngine {
  private readonly watches = new Map<string, Watch>();
  private readonly lastUp = new Map<string, number>();
  private readonly lastDown = new Map<string, number>();
  private readonly blocked = new Map<string, string>();
  /** Groups whose last scaling start failed (missing jar, bad template…): retried with a growing wait, not every tick. */
  private readonly startFailures = new Map<string, { count: number; until: number }>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private ticking: Promise<void> | null = null;
  private readonly now: () => number;
  private readonly mono: Clock;
  private readonly unsubscribe: () => void;
  private overrides: ScalingOverrides | null = null;

  constructor(private readonly deps: ScalingDeps) {
    this.now = deps.now ?? Date.now;
    this.mono = deps.monotonic ?? deps.now ?? monotonicNow;
    // Stop-on-empty reacts when the last player leaves, not at the next tick.
    this.unsubscribe = deps.bus.subscribe((event) => {
      if (event.type === 'PLAYER_DISCONNECTED' || event.type === 'PLAYER_SERVER_SWITCH') {
        const service = String(event.data.service ?? event.data.from ?? '');
        queueMicrotask(() => this.onPlayerLeft(service));
      }
    });
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.deps.timing.tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe();
  }

  /** The engine's clock (epoch ms): smart scaling samples and schedules by it too. */
  clock(): number {
    return this.now();
  }

  /** Installs (or with null removes) the module that raises group minimums; one at a time. */
  setOverrides(overrides: ScalingOverrides | null): void {
    this.overrides = overrides;
  }

  /** The override in force for a group now, if any (a throwing provider counts as none, logged). */
  overrideOf(group: Group, now = this.now()): ScalingOverride | null {
    if (!this.overrides) return null;
    try {
      return this.overrides.overrideFor(group, now);
    } catch (error) {
      this.deps.log.warn({ group: group.name, err: error }, 'scaling override failed; the group scales by its own bounds');
      return null;
    }
  }

  /** One scaling pass over every group; overlapping calls share the pass in progress. */
  tick(): Promise<void> {
    this.ticking ??= this.runTick().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  /**
   * The pure part of a tick, without pinging: readings from what is known now (`now` on the
   * engine's monotonic clock). A tick passes the group's members and the machine's usage it
   * read once for every group, and the override it asked for on the wall clock.
   */
  decide(group: Group, now = this.mono(), members = this.deps.registry.ofGroup(group.name), usage = machineUsage(this.deps.registry.all()), override = this.overrideOf(group)): ScalingDecision[] {
    const bounds = effectiveBounds(group, override);
    const raised = bounds.minInstances !== group.minInstances || bounds.maxInstances !== group.maxInstances;
    return decideScaling({
      group: raised ? { ...group, ...bounds } : group,
      ...(raised && override ? { minimumSource: override.source } : {}),
      services: members.map((s) => this.reading(s, now)),
      pendingRestarts: this.deps.manager.pendingRestartsOf(group.name),
      now,
      lastScaleUpAt: this.lastUp.get(group.name) ?? null,
      lastScaleDownAt: this.lastDown.get(group.name) ?? null,
      ...placementRoom(this.deps.limits(), usage, memoryMaxMb(group.memory), bounds.maxInstances),
      upCooldownMs: this.deps.timing.upCooldownMs,
      downCooldownMs: this.deps.timing.downCooldownMs,
    });
  }

  private async runTick(): Promise<void> {
    if (this.deps.paused()) {
      this.deps.log.debug('scaling paused: a stress test runs');
      return;
    }
    const wall = this.now();
    const now = this.mono();
    const fresh = await this.refreshCounts(now);
    this.forgetGone();
    // One pass over the registry for every group (a tick with 500 services must stay cheap).
    const all = this.deps.registry.all();
    const usage = machineUsage(all);
    const members = new Map<string, ServiceRecord[]>();
    for (const service of all) {
      const list = members.get(service.group);
      if (list) list.push(service);
      else members.set(service.group, [service]);
    }
    for (const group of this.deps.groups.list()) {
      if (this.deps.manager.isQuarantined(group.name)) continue;
      if ((this.startFailures.get(group.name)?.until ?? 0) > now) continue;
      const own = members.get(group.name) ?? [];
      for (const service of own) this.observe(service, fresh.has(service.name), now);
      const override = this.overrideOf(group, wall);
      const decisions = this.decide(group, now, own, usage, override);
      for (const decision of decisions) {
        this.carryOut(group, decision, now);
        if (decision.kind === 'up' && decision.cause === 'minimum' && override) {
          // Only what the group's own minimum would not have started is the override's doing.
          const overrideStarted = decision.count - Math.max(0, group.minInstances - decision.from);
          if (overrideStarted > 0) this.notifyOverrideStart(group, override, overrideStarted, decision.from);
        }
        // What this tick starts counts against the machine for the groups after it.
        if (decision.kind === 'up') {
          usage.services += decision.count;
          usage.memoryMb += decision.count * memoryMaxMb(group.memory);
        }
      }
    }
  }

  /**
   * Which READY services have a current player count: an SDK report within reportFreshMs, a
   * player the proxy roster places there (the bridge keeps those counts), or else a Server List
   * Ping answered this tick (its count replaces the estimate).
   */
  private async refreshCounts(now: number): Promise<Set<string>> {
    const fresh = new Set<string>();
    const onRoster = new Set(this.deps.players.roster.all().map((p) => p.service));
    const pings: Promise<void>[] = [];
    for (const service of this.deps.registry.all()) {
      if (service.state !== 'READY' || service.pooled || service.isDedicated) continue;
      if (service.playersReportedMono !== null && now - service.playersReportedMono < this.deps.timing.reportFreshMs) {
        fresh.add(service.name);
      } else if (onRoster.has(service.name)) {
        fresh.add(service.name);
      } else {
        pings.push(
          this.deps.ping(service.host, service.port, this.deps.timing.pingTimeoutMs).then((online) => {
            if (online === null) return;
            this.deps.players.observe(service.name, online);
            fresh.add(service.name);
          }),
        );
      }
    }
    await Promise.all(pings);
    return fresh;
  }

  private observe(service: ServiceRecord, fresh: boolean, now: number): void {
    const watch = this.watchOf(service, now);
    watch.fresh = fresh;
    if (service.state !== 'READY') return;
    if (service.playerCount > 0) {
      watch.zeroReadings = 0;
      watch.lastPlayerAt = now;
      watch.hadPlayers = true;
    } else if (fresh) {
      watch.zeroReadings++;
    }
  }

  private reading(service: ServiceRecord, now: number): ServiceReading {
    const watch = this.watchOf(service, now);
    return {
      name: service.name,
      state: service.state,
      customState: service.customState,
      pooled: service.pooled,
      playerCount: service.playerCount,
      fresh: watch.fresh,
      zeroReadings: watch.zeroReadings,
      idleMs: service.playerCount > 0 ? 0 : now - watch.lastPlayerAt,
      emptied: watch.hadPlayers && service.playerCount === 0 && watch.zeroReadings > 0,
    };
  }

  private watchOf(service: ServiceRecord, now: number): Watch {
    let watch = this.watches.get(service.name);
    // Idle time counts from READY (on the monotonic clock); a reused name starts over.
    const since = service.readyMono ?? now;
    if (!watch || watch.lastPlayerAt < since) {
      watch = { fresh: false, zeroReadings: 0, lastPlayerAt: since, hadPlayers: false };
      this.watches.set(service.name, watch);
    }
    return watch;
  }

  private forgetGone(): void {
    for (const name of this.watches.keys()) if (!this.deps.registry.get(name)) this.watches.delete(name);
  }

  private carryOut(group: Group, decision: ScalingDecision, now: number): void {
    const { log, bus } = this.deps;
    if (decision.kind === 'hold') {
      log.debug({ group: group.name }, `scaling: hold (${decision.reason})`);
      return;
    }
    if (decision.kind === 'blocked') {
      if (this.blocked.get(group.name) === decision.reason) return;
      this.blocked.set(group.name, decision.reason);
      log.warn({ group: group.name }, `scaling: a start is due but blocked: ${decision.reason}`);
      bus.publish('PLACEMENT_BLOCKED', { group: group.name, reason: decision.reason });
      return;
    }
    this.blocked.delete(group.name);
    if (decision.kind === 'up') {
      this.lastUp.set(group.name, now);
      log.info({ group: group.name, from: decision.from, to: decision.to }, `scaling up: ${decision.reason}`);
      bus.publish('SCALE_UP', { group: group.name, from: decision.from, to: decision.to, reason: decision.reason });
      for (let i = 0; i < decision.count; i++) {
        this.deps.manager.start(group.name, 'system').then(
          () => this.startFailures.delete(group.name),
          (error: unknown) => this.startFailed(group.name, (error as Error).message),
        );
      }
      return;
    }
    this.lastDown.set(group.name, now);
    this.scaleDown(group.name, decision.service, decision.reason);
  }

  private notifyOverrideStart(group: Group, override: ScalingOverride, started: number, had: number): void {
    try {
      this.overrides?.onOverrideStart(group, override, started, had);
    } catch (error) {
      this.deps.log.warn({ group: group.name, err: error }, 'scaling override listener failed');
    }
  }

  private startFailed(group: string, reason: string): void {
    const count = (this.startFailures.get(group)?.count ?? 0) + 1;
    const waitMs = Math.min(MAX_START_BACKOFF_MS, this.deps.timing.tickMs * 2 ** (count - 1));
    this.startFailures.set(group, { count, until: this.mono() + waitMs });
    this.deps.log.warn({ group, failures: count }, `scaling start failed (${reason}); next try in ${Math.round(waitMs / 1000)} s`);
  }

  private scaleDown(group: string, service: string, reason: string): void {
    this.deps.log.info({ group, service }, `scaling down: ${reason}`);
    this.deps.bus.publish('SCALE_DOWN', { group, service, reason });
    this.watches.delete(service);
    this.deps.manager.stop(service, 'system', { drain: true }).catch((error: unknown) => this.deps.log.warn({ service, err: error }, 'scale-down stop failed'));
  }

  /**
   * A player left: idle time counts from now (not from the last tick that saw players), and a
   * stop-on-empty instance whose last player it was stops at once.
   */
  private onPlayerLeft(name: string): void {
    const service = this.deps.registry.get(name);
    const watch = this.watches.get(name);
    if (watch) {
      watch.lastPlayerAt = this.mono();
      watch.hadPlayers = true;
    }
    if (!service || service.state !== 'READY' || service.pooled || service.playerCount > 0 || this.deps.paused()) return;
    const group = this.deps.groups.get(service.group);
    if (!group?.stopOnEmpty || service.isDedicated) return;
    this.scaleDown(group.name, name, 'stop-on-empty: its last player left');
  }
}
