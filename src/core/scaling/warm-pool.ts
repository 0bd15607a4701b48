import type { EventBus } from '../../events/bus';
import type { Logger } from '../../log';
import type { Group } from '../groups/model';
import type { GroupStore } from '../groups/store';
import type { ServiceManager } from '../services/manager';
import { LOCAL_NODE, type ServiceRegistry } from '../services/registry';
import { memoryMaxMb } from '../software/memory';
import { machineUsage, placementProblem, type MachineLimits } from './placement';
import { monotonicNow } from '../time/monotonic';

export interface WarmPoolTiming {
  /** How often every pool is topped up (reference: 15 s); a start that takes from a pool refills it at once. */
  intervalMs: number;
  /** First wait after a warm instance failed to boot; doubles per failure up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_WARM_POOL_TIMING: WarmPoolTiming = { intervalMs: 15_000, backoffMs: 15_000, maxBackoffMs: 600_000 };

export interface WarmPoolDeps {
  bus: EventBus;
  log: Logger;
  registry: ServiceRegistry;
  groups: GroupStore;
  manager: Pick<ServiceManager, 'prepareWarm' | 'drainPool' | 'stop' | 'isQuarantined'>;
  limits: () => MachineLimits;
  timing?: Partial<WarmPoolTiming>;
}

/** Fields whose change makes a booted instance stale: it would not be what a start now launches. */
const LAUNCH_FIELDS = ['type', 'template', 'templates', 'software', 'version', 'modloaderVersion', 'jarName', 'readyPattern', 'javaPath', 'startCommand', 'memory', 'jvmArgs', 'jvmOptimize'] as const;

/**
 * Keeps `scaling.warm_pool_size` instances of each non-static group booted ahead of need, so a
 * start (the scaling engine's or an operator's) is served by a server that is already up. The
 * pool never pushes running + pooled past maxInstances, counts toward the machine limits like
 * any service, is drained when its group is deleted or its launch settings change, and backs
 * off when its instances fail to boot instead of looping.
 */
export class WarmPool {
  private readonly timing: WarmPoolTiming;
  private readonly filling = new Set<string>();
  private readonly failures = new Map<string, { count: number; until: number }>();
  private readonly launchKeys = new Map<string, string>();
  private readonly quietBlocked = new Map<string, string>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private soonTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(private readonly deps: WarmPoolDeps) {
    this.timing = { ...DEFAULT_WARM_POOL_TIMING, ...deps.timing };
    for (const group of deps.groups.list()) this.launchKeys.set(group.name, launchKey(group));
    this.unsubscribe = deps.bus.subscribe((event) => {
      const group = String(event.data.group ?? '');
      if (event.type === 'GROUP_DELETED') void this.drain(group, 'its group was deleted');
      // A quarantined group's booted instances could never be taken (every start is refused).
      else if (event.type === 'GROUP_QUARANTINED') void this.drain(group, 'its group is quarantined for a crash loop');
      else if (event.type === 'GROUP_QUARANTINE_LIFTED') this.soon();
      else if (event.type === 'GROUP_UPDATED' || event.type === 'GROUP_CREATED') this.groupChanged(group);
      else if (event.type === 'SERVICE_STARTING' || event.type === 'SERVICE_CRASHED' || event.type === 'SERVICE_STOPPED') this.soon();
    });
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.replenish(), this.timing.intervalMs);
    this.timer.unref();
    this.soon();
  }

  stop(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.soonTimer) clearTimeout(this.soonTimer);
    this.unsubscribe();
  }

  /** How many instances the group's pool should hold now. */
  targetOf(group: Group): number {
    if (group.type === 'STATIC' || group.warmPoolSize <= 0) return 0;
    return Math.max(0, Math.min(group.warmPoolSize, group.maxInstances - this.deps.registry.runningInstances(group.name)));
  }

  /** One pass: every pool topped up to its target, extras beyond it stopped. */
  async replenish(): Promise<void> {
    if (this.closed) return;
    await Promise.all(this.deps.groups.list().map((group) => this.replenishGroup(group)));
  }

  private async replenishGroup(group: Group): Promise<void> {
    const { registry, manager, log } = this.deps;
    if (this.filling.has(group.name) || manager.isQuarantined(group.name)) return;
    const pool = registry.poolOf(group.name);
    const target = this.targetOf(group);
    if (pool.length > target) {
      // Booting ones go first (they cost the least to give up), the highest-numbered first.
      const extras = [...pool].sort((a, b) => Number(a.state === 'PREPARED') - Number(b.state === 'PREPARED')).slice(0, pool.length - target);
      for (const extra of extras) void manager.stop(extra.name, 'system', { force: true }).catch(() => undefined);
      return;
    }
    const missing = target - pool.length;
    if (missing <= 0) return;
    const failure = this.failures.get(group.name);
    if (failure && monotonicNow() < failure.until) return;
    const problem = placementProblem(this.deps.limits(), machineUsage(registry.all().filter((s) => s.nodeId === LOCAL_NODE)), memoryMaxMb(group.memory));
    if (problem) {
      // A full machine is not an error for a pool: said once, then quiet until it changes.
      if (this.quietBlocked.get(group.name) !== problem) log.info({ group: group.name }, `warm pool not filled: ${problem}`);
      this.quietBlocked.set(group.name, problem);
      return;
    }
    this.quietBlocked.delete(group.name);
    this.filling.add(group.name);
    try {
      const results = await Promise.allSettled(Array.from({ length: missing }, () => manager.prepareWarm(group.name)));
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed.length > 0) this.backOff(group.name, (failed[0]!.reason as Error).message);
      else this.failures.delete(group.name);
      if (failed.length < results.length && !this.closed) {
        const poolSize = registry.poolOf(group.name).filter((s) => s.state === 'PREPARED').length;
        this.deps.bus.publish('WARM_POOL_REPLENISHED', { group: group.name, poolSize });
      }
    } finally {
      this.filling.delete(group.name);
    }
  }

  private backOff(group: string, reason: string): void {
    const count = (this.failures.get(group)?.count ?? 0) + 1;
    const waitMs = Math.min(this.timing.maxBackoffMs, this.timing.backoffMs * 2 ** (count - 1));
    this.failures.set(group, { count, until: monotonicNow() + waitMs });
    this.deps.log.warn({ group, failures: count }, `warm pool: an instance did not boot (${reason}); next try in ${Math.round(waitMs / 1000)} s`);
  }

  private groupChanged(name: string): void {
    const group = this.deps.groups.get(name);
    if (!group) return;
    const key = launchKey(group);
    const before = this.launchKeys.get(name);
    this.launchKeys.set(name, key);
    this.failures.delete(name); // a changed group deserves a fresh try
    if (before !== undefined && before !== key) void this.drain(name, 'its launch settings changed').then(() => this.soon());
    else this.soon();
  }

  private async drain(group: string, why: string): Promise<void> {
    const drained = await this.deps.manager.drainPool(group);
    if (drained > 0) this.deps.log.info({ group, drained }, `warm pool drained: ${why}`);
  }

  /** A pass shortly (coalesced), after something that may have changed a pool's target. */
  private soon(): void {
    if (this.closed || this.soonTimer) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = null;
      void this.replenish();
    }, 50);
    this.soonTimer.unref();
  }
}

function launchKey(group: Group): string {
  return JSON.stringify(LAUNCH_FIELDS.map((field) => group[field]));
}
