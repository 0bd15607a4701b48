import type { Config } from '../../../config/schema';
import type { EventBus } from '../../../events/bus';
import type { Actor } from '../../../events/catalogue';
import type { Logger } from '../../../log';
import type { Upstreams } from '../../software/upstream/upstreams';
import { applyUpdate, type VersionStores } from './apply';
import { sha256OfFile } from './jar-swap';
import { planUpdate, standing, type ProxyTarget, type ProxyUpdatePlan } from './plan';
import { latestProxyRelease, type ProxyRelease, type UpdatableProxy } from './releases';
import { proxyTargets, type TargetSources } from './targets';

export interface ProxyUpdatesDeps {
  /** `[proxy]`, read at start (timer) and at each check (auto_update). */
  config: () => Config['proxy'];
  upstreams: Upstreams;
  /** The group and dedicated stores: read for the targets, written for their versions. */
  stores: { groups: VersionStores['groups'] & TargetSources['groups']; dedicated: VersionStores['dedicated'] & TargetSources['dedicated'] };
  templatesRoot: string;
  bus: EventBus;
  log: Logger;
  /** `[software] download_timeout`, seconds, read at each download. */
  downloadTimeoutSeconds: () => number;
  /** Tests shorten these: the first background check after start (default 1 min), and the interval (default `update_interval_hours`). */
  timing?: { firstCheckMs?: number; intervalMs?: number };
  progressEveryMs?: number;
}

export type ProxyUpdateOutcome = 'current' | 'available' | 'applied' | 'failed' | 'skipped';

/** What one check found for one proxy group or dedicated proxy. */
export interface ProxyUpdateResult {
  kind: 'group' | 'dedicated';
  name: string;
  outcome: ProxyUpdateOutcome;
  currentVersion: string;
  /** Set when a newer build exists (available, applied, or failed to apply). */
  newVersion?: string;
  /** One sentence for the log and the console. */
  message: string;
}

const FIRST_CHECK_MS = 60_000;
const HOUR_MS = 3_600_000;

/**
 * Keeps the proxy software current: a background check every `[proxy] update_interval_hours`
 * (none when `update_check` is off; the first a minute after start, never in the start's way)
 * and `checkNow` for `proxy update`.
 *
 * A check asks the upstream for the latest stable build once per kind, plans each proxy group
 * and dedicated proxy (plan.ts), publishes PROXY_UPDATE_AVAILABLE once per target and new
 * version, and, when applying (`auto_update`, or the operator asked), makes the update
 * (apply.ts), then publishes GROUP_UPDATED for a group whose version changed and
 * PROXY_UPDATE_APPLIED. Checks never overlap: they run one after another. A failure is logged
 * and reported, never thrown out of the timer.
 */
export class ProxyUpdates {
  private readonly announced = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private stopped = false;
  private timers: ReturnType<typeof setTimeout>[] = [];

  constructor(private readonly deps: ProxyUpdatesDeps) {}

  /** Starts the background checks unless `[proxy] update_check` is off; true when they run. */
  start(): boolean {
    const config = this.deps.config();
    if (!config.update_check || this.stopped) return false;
    const tick = () => {
      // A check still running (a long download) is not queued behind: the next tick asks again.
      if (this.pending > 0 || this.stopped) return;
      this.checkNow({ apply: this.deps.config().auto_update }).catch((error: unknown) => this.deps.log.error({ err: error }, 'proxy update check failed'));
    };
    const first = setTimeout(tick, this.deps.timing?.firstCheckMs ?? FIRST_CHECK_MS);
    const every = setInterval(tick, this.deps.timing?.intervalMs ?? config.update_interval_hours * HOUR_MS);
    first.unref();
    every.unref();
    this.timers.push(first, every);
    return true;
  }

  /** No further checks; a download in flight is abandoned before it replaces anything. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
  }

  /** True while a check runs or waits for the one before it. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /**
   * Checks every proxy now, after any check already running. `apply`: make the updates found
   * (the console's `proxy update`, or a background check with `auto_update`).
   */
  checkNow(options: { apply: boolean; actor?: Actor }): Promise<ProxyUpdateResult[]> {
    this.pending++;
    const run = this.queue.then(() => this.check(options.apply, options.actor ?? 'system')).finally(() => this.pending--);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async check(apply: boolean, actor: Actor): Promise<ProxyUpdateResult[]> {
    const { log } = this.deps;
    const { targets, skipped } = proxyTargets({ groups: this.deps.stores.groups, dedicated: this.deps.stores.dedicated, templatesRoot: this.deps.templatesRoot });
    const results: ProxyUpdateResult[] = skipped.map((s) => ({ kind: s.kind, name: s.name, outcome: 'skipped', currentVersion: s.version, message: `${s.kind} ${s.name} is left alone: ${s.reason}` }));
    const releases = new Map<UpdatableProxy, Promise<ProxyRelease | null>>();
    const unreachable = new Set<UpdatableProxy>();
    for (const target of targets) {
      if (this.stopped) break;
      let release: ProxyRelease | null;
      try {
        if (!releases.has(target.software)) releases.set(target.software, latestProxyRelease(this.deps.upstreams, target.software));
        release = await releases.get(target.software)!;
      } catch (error) {
        if (!unreachable.has(target.software)) log.warn({ err: error }, `proxy update check: could not ask for the latest ${target.software} build`);
        unreachable.add(target.software);
        results.push(this.result(target, 'failed', `could not ask for the latest ${target.software} build: ${(error as Error).message}`));
        continue;
      }
      if (!release) {
        results.push(this.result(target, 'skipped', `the upstream lists no stable ${target.software} build`));
        continue;
      }
      const sha = standing(target.version, release.version) === 'same' ? await sha256OfFile(target.jarPath, target.within) : null;
      const plan = planUpdate(target, release, sha);
      if (!plan) {
        results.push(this.result(target, 'current', `${target.software} ${target.version} is current (latest stable: ${release.version} build ${release.build})`));
        continue;
      }
      const key = `${target.kind}:${target.name}@${plan.newVersion}`;
      if (!this.announced.has(key)) {
        this.announced.add(key);
        log.info({ [target.kind]: target.name, currentVersion: plan.currentVersion, newVersion: plan.newVersion }, `${target.kind} ${target.name}: ${target.software} ${plan.newVersion} is available (runs ${plan.currentVersion})`);
        this.deps.bus.publish('PROXY_UPDATE_AVAILABLE', { currentVersion: plan.currentVersion, newVersion: plan.newVersion }, actor);
      }
      if (!apply) {
        results.push({ ...this.result(target, 'available', `${target.software} ${plan.newVersion} is available (runs ${plan.currentVersion})`), newVersion: plan.newVersion });
        continue;
      }
      results.push({ ...(await this.apply(target, plan, actor)), newVersion: plan.newVersion });
    }
    return results;
  }

  private async apply(target: ProxyTarget, plan: ProxyUpdatePlan, actor: Actor): Promise<ProxyUpdateResult> {
    const { log, bus } = this.deps;
    try {
      const { versionWritten } = await applyUpdate(plan, this.deps.stores, {
        timeoutMs: this.deps.downloadTimeoutSeconds() * 1000,
        log,
        userAgent: this.deps.upstreams.http.userAgent(),
        progressEveryMs: this.deps.progressEveryMs,
        proceed: () => !this.stopped,
      });
      if (versionWritten && target.kind === 'group') bus.publish('GROUP_UPDATED', { group: target.name }, actor);
      bus.publish('PROXY_UPDATE_APPLIED', { oldVersion: plan.currentVersion, newVersion: plan.newVersion }, actor);
      const next =
        target.kind === 'dedicated'
          ? 'it runs the new jar from its next start'
          : target.isStatic
            ? 'new instances run it; a STATIC instance keeps the jar its work dir already holds'
            : 'instances started from now on run it; running ones keep theirs until they restart';
      log.info({ [target.kind]: target.name, jar: target.jarPath, oldVersion: plan.currentVersion, newVersion: plan.newVersion }, `${target.kind} ${target.name}: ${target.software} ${plan.currentVersion} → ${plan.newVersion} applied; ${next}`);
      return this.result(target, 'applied', `${target.software} ${plan.currentVersion} → ${plan.newVersion} applied; ${next}`);
    } catch (error) {
      log.error({ [target.kind]: target.name, err: error }, `${target.kind} ${target.name}: ${target.software} ${plan.newVersion} not applied; the old jar and version stay`);
      return this.result(target, 'failed', `${target.software} ${plan.newVersion} not applied, the old jar and version stay: ${(error as Error).message}`);
    }
  }

  private result(target: ProxyTarget, outcome: ProxyUpdateOutcome, message: string): ProxyUpdateResult {
    return { kind: target.kind, name: target.name, outcome, currentVersion: target.version, message: `${target.kind} ${target.name}: ${message}` };
  }
}
