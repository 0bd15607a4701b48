import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import type { GroupStore } from '../groups/store';
import type { ServiceRegistry } from '../services/registry';
import { SOFTWARE } from '../software/kinds';
import { distribute, perServiceText, type Distribution } from './distribute';
import type { StressStatus } from './model';
import { monotonicNow } from '../time/monotonic';

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
  /** The backend group under test; null spans every backend group. */
  group: string | null;
  /** Each group's maxPlayers when last seen (kept if a group file disappears mid-test). */
  maxPlayers: Map<string, number>;
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
 * A simulated player load on one backend group (or all of them), for watching how the network (dashboards,
 * proxies, the load balancer) behaves under it. Nothing reaches the game servers: simulated
 * players live only here, never in a service's real playerCount. The scaling engine is
 * expected to pause while `active` is true, so the simulated load does not start services.
 *
 *   start ──► ramping (tick 1 s) ──goal reached──► holding (tick 2 s) ──stop/close──► idle
 *                  ▲                                    │
 *                  └───────────── ramp(players, s) ─────┘
 *
 * Each tick: target = from + (goal − from) × min(1, elapsed / ramp), rounded, spread over the
 * READY backends under test as they are at that tick (see distribute()), each capped at its
 * own group's maxPlayers.
 */
export class StressTest {
  private run: Run | undefined;
  private readonly tickMs: StressTiming;
  private readonly now: () => number;

  constructor(private readonly deps: StressTestDeps) {
    this.tickMs = { ...STRESS_TICK_MS, ...deps.tickMs };
    // Elapsed time and the ramp are measured on the monotonic clock.
    this.now = deps.now ?? monotonicNow;
  }

  get active(): boolean {
    return this.run !== undefined;
  }

  /** `group` null (or absent) spans every backend group. */
  start(request: { players: number; group?: string | null; rampSeconds: number }, actor: Actor): StressStatus {
    if (this.run) throw new ApiError('STRESS_ALREADY_RUNNING', `a stress test on ${targetText(this.run.group)} is already running; stop it first`);
    const group = request.group == null ? null : this.deps.groups.require(request.group);
    if (group && SOFTWARE[group.software].isProxy) {
      throw new ApiError('VALIDATION_FAILED', `group ${group.name} is a proxy group (${group.software}); stress tests target backend groups`);
    }
    const now = this.now();
    this.run = {
      group: group?.name ?? null,
      maxPlayers: new Map(),
      startedAt: now,
      from: 0,
      goal: request.players,
      rampStartedAt: now,
      rampMs: request.rampSeconds * 1000,
      current: distribute(0, [], 0),
      published: '',
      timer: undefined,
    };
    this.deps.log.info({ group: this.run.group ?? '*', players: request.players, rampSeconds: request.rampSeconds, actor }, 'stress test started');
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
    this.deps.log.info({ group: run.group ?? '*', players: request.players, durationSeconds: request.durationSeconds, actor }, 'stress test ramp changed');
    this.tick(actor);
    return this.status();
  }

  stop(actor: Actor): StressStatus {
    const run = this.require();
    this.end(run);
    const zeros = run.current.perService.map((s) => ({ name: s.name, players: 0 }));
    this.deps.bus.publish('STRESS_TEST_UPDATED', { simulatedPlayers: 0, targetPlayers: 0, targetGroup: run.group ?? undefined, perService: perServiceText(zeros) }, actor);
    this.deps.log.info({ group: run.group ?? '*', actor, seconds: this.elapsedSeconds(run) }, 'stress test stopped');
    return this.status();
  }

  status(): StressStatus {
    const run = this.run;
    if (!run) {
      return { active: false, group: null, currentPlayers: 0, targetPlayers: 0, totalCapacity: 0, overflow: 0, elapsedSeconds: 0, services: {}, proxyServices: {} };
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
      services: Object.fromEntries(current.perService.map((s) => [s.name, s.players])),
      // Every player on a backend came through a proxy: each proxy shows the backend total.
      proxyServices: Object.fromEntries(
        this.deps.registry
          .all()
          .filter((s) => s.isProxy && s.state === 'READY')
          .map((s) => [s.name, current.simulated]),
      ),
    };
  }

  /** The READY backends under test, by name, each with its group's maxPlayers as its cap. */
  private backendsOf(run: Run): { names: string[]; caps: Map<string, number> } {
    const candidates = run.group === null ? this.deps.registry.all() : this.deps.registry.ofGroup(run.group);
    const names: string[] = [];
    const caps = new Map<string, number>();
    for (const service of candidates) {
      if (service.state !== 'READY' || service.isProxy || service.isDedicated) continue;
      const group = this.deps.groups.get(service.group);
      if (group) run.maxPlayers.set(group.name, group.maxPlayers);
      const cap = run.maxPlayers.get(service.group);
      // A service of a group this test never saw (its file gone before the first tick) has no known cap.
      if (cap === undefined) continue;
      names.push(service.name);
      caps.set(service.name, cap);
    }
    names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    return { names, caps };
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
      const backends = this.backendsOf(run);
      run.current = distribute(target, backends.names, 0, backends.caps);
      const perService = perServiceText(run.current.perService);
      const fingerprint = `${run.current.simulated}|${run.goal}|${perService}`;
      if (force || fingerprint !== run.published) {
        run.published = fingerprint;
        this.deps.bus.publish('STRESS_TEST_UPDATED', { simulatedPlayers: run.current.simulated, targetPlayers: run.goal, targetGroup: run.group ?? undefined, perService }, actor);
      }
    } catch (error) {
      this.deps.log.error({ err: error, group: run.group ?? '*' }, 'stress test tick failed');
    }
    if (this.run !== run) return; // stopped by a listener of the event
    const timer = setTimeout(() => this.tick(), done ? this.tickMs.holding : this.tickMs.ramping);
    timer.unref?.();
    run.timer = timer;
  }
}

/** How messages name what a test targets. */
export function targetText(group: string | null): string {
  return group === null ? 'all backend groups' : `group ${group}`;
}
