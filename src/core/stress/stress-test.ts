import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import type { GroupStore } from '../groups/store';
import type { ServiceRegistry } from '../services/registry';
import { SOFTWARE } from '../software/kinds';
import { distribute, perServiceText, type Distribution } from './distribute';
import type { StressStatus } from './model';

export interface StressTiming {
  /** Tick period while the count still moves towards the goal. */
  ramping: number;
  /** Tick period once the goal is reached (services may still come and go). */
  holding: number;
}

export const STRESS_TICK_MS: StressTiming = { ramping: 1000, holding: 2000 };

export interface StressTestDeps {
  registry: ServiceRegistry;
  groups: GroupStore;
  bus: EventBus;
  log: Logger;
  tickMs?: Partial<StressTiming>;
  /** Clock in ms (tests move it by hand). */
  now?: () => number;
}

/** One running test. `from → goal` over `rampMs` starting at `rampStartedAt`. */
interface Run {
  group: string;
  /** The group's maxPlayers when last seen (kept if the group file disappears mid-test). */
  maxPlayers: number;
  startedAt: number;
  from: number;
  goal: number;
  rampStartedAt: number;
  rampMs: number;
  current: Distribution;
  /** What the last STRESS_TEST_UPDATED said, to publish only on change. */
  published: string;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * A simulated player load on one backend group, for watching how the network (dashboards,
 * proxies, the load balancer) behaves under it. Nothing reaches the game servers: simulated
 * players live only here, never in a service's real playerCount. The scaling engine is
 * expected to pause while `active` is true, so the simulated load does not start services.
 *
 *   start ──► ramping (tick 1 s) ──goal reached──► holding (tick 2 s) ──stop/close──► idle
 *                  ▲                                    │
 *                  └───────────── ramp(players, s) ─────┘
 *
 * Each tick: target = from + (goal − from) × min(1, elapsed / ramp), rounded, spread over the
 * READY backends of the group as they are at that tick (see distribute()).
 */
export class StressTest {
  private run: Run | undefined;
  private readonly tickMs: StressTiming;
  private readonly now: () => number;

  constructor(private readonly deps: StressTestDeps) {
    this.tickMs = { ...STRESS_TICK_MS, ...deps.tickMs };
    this.now = deps.now ?? Date.now;
  }

  get active(): boolean {
    return this.run !== undefined;
  }

  start(request: { players: number; group: string; rampSeconds: number }, actor: Actor): StressStatus {
    if (this.run) throw new ApiError('STRESS_ALREADY_RUNNING', `a stress test on group ${this.run.group} is already running; stop it first`);
    const group = this.deps.groups.require(request.group);
    if (SOFTWARE[group.software].isProxy) {
      throw new ApiError('VALIDATION_FAILED', `group ${group.name} is a proxy group (${group.software}); stress tests target backend groups`);
    }
    const now = this.now();
    this.run = {
      group: group.name,
      maxPlayers: group.maxPlayers,
      startedAt: now,
      from: 0,
      goal: request.players,
      rampStartedAt: now,
      rampMs: request.rampSeconds * 1000,
      current: distribute(0, [], group.maxPlayers),
      published: '',
      timer: undefined,
    };
    this.deps.log.info({ group: group.name, players: request.players, rampSeconds: request.rampSeconds, actor }, 'stress test started');
    this.tick(actor, true);
    return this.status();
  }

  /** Moves the goal: from the players simulated now to `players` over `durationSeconds`. */
  ramp(request: { players: number; durationSeconds: number }, actor: Actor): StressStatus {
    const run = this.require();
    run.from = run.current.simulated;
    run.goal = request.players;
    run.rampStartedAt = this.now();
    run.rampMs = request.durationSeconds * 1000;
    this.deps.log.info({ group: run.group, players: request.players, durationSeconds: request.durationSeconds, actor }, 'stress test ramp changed');
    this.tick(actor);
    return this.status();
  }

  stop(actor: Actor): StressStatus {
    const run = this.require();
    this.end(run);
    const zeros = run.current.perService.map((s) => ({ name: s.name, players: 0 }));
    this.deps.bus.publish('STRESS_TEST_UPDATED', { simulatedPlayers: 0, targetPlayers: 0, targetGroup: run.group, perService: perServiceText(zeros) }, actor);
    this.deps.log.info({ group: run.group, actor, seconds: this.elapsedSeconds(run) }, 'stress test stopped');
    return this.status();
  }

  status(): StressStatus {
    const run = this.run;
    if (!run) {
      return { active: false, group: null, currentPlayers: 0, targetPlayers: 0, totalCapacity: 0, overflow: 0, elapsedSeconds: 0, services: [], proxyServices: [] };
    }
    const { current } = run;
    return {
      active: true,
      group: run.group,
      currentPlayers: current.simulated,
      targetPlayers: run.goal,
      totalCapacity: current.capacity,
      overflow: current.overflow,
      elapsedSeconds: this.elapsedSeconds(run),
      services: current.perService.map((s) => ({ name: s.name, players: s.players, capacity: run.maxPlayers })),
      // Every player on a backend came through a proxy: each proxy shows the backend total.
      proxyServices: this.deps.registry
        .all()
        .filter((s) => s.isProxy && s.state === 'READY')
        .map((s) => ({ name: s.name, players: current.simulated })),
    };
  }

  /** Ends a running test without an event (the controller is stopping). */
  close(): void {
    if (this.run) this.end(this.run);
  }

  private require(): Run {
    if (!this.run) throw new ApiError('STRESS_NOT_RUNNING', 'no stress test is running; start one with POST /api/stress/start');
    return this.run;
  }

  private end(run: Run): void {
    if (run.timer) clearTimeout(run.timer);
    run.timer = undefined;
    if (this.run === run) this.run = undefined;
  }

  private elapsedSeconds(run: Run): number {
    return Math.max(0, Math.floor((this.now() - run.startedAt) / 1000));
  }

  /**
   * One step: the ramp's target spread over the group's READY backends as they are now.
   * The event goes out only when the simulated total, the split or the goal changed (the
   * reference publishes on change too, though the catalogue says "every tick"); `force`
   * publishes regardless (start).
   */
  private tick(actor: Actor = 'system', force = false): void {
    const run = this.run;
    if (!run) return;
    if (run.timer) clearTimeout(run.timer);
    run.timer = undefined;
    let done = false;
    try {
      const elapsed = this.now() - run.rampStartedAt;
      const progress = run.rampMs <= 0 ? 1 : Math.min(1, Math.max(0, elapsed / run.rampMs));
      done = progress >= 1;
      const target = Math.round(run.from + (run.goal - run.from) * progress);
      run.maxPlayers = this.deps.groups.get(run.group)?.maxPlayers ?? run.maxPlayers;
      const backends = this.deps.registry
        .ofGroup(run.group)
        .filter((s) => s.state === 'READY' && !s.isProxy)
        .map((s) => s.name);
      run.current = distribute(target, backends, run.maxPlayers);
      const perService = perServiceText(run.current.perService);
      const fingerprint = `${run.current.simulated}|${run.goal}|${perService}`;
      if (force || fingerprint !== run.published) {
        run.published = fingerprint;
        this.deps.bus.publish('STRESS_TEST_UPDATED', { simulatedPlayers: run.current.simulated, targetPlayers: run.goal, targetGroup: run.group, perService }, actor);
      }
    } catch (error) {
      this.deps.log.error({ err: error, group: run.group }, 'stress test tick failed');
    }
    if (this.run !== run) return; // stopped by a listener of the event
    const timer = setTimeout(() => this.tick(), done ? this.tickMs.holding : this.tickMs.ramping);
    timer.unref?.();
    run.timer = timer;
  }
}
