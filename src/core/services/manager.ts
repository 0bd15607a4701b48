import { ApiError } from '../../errors';
import { monotonicNow } from '../time/monotonic';
import type { Actor } from '../../events/catalogue';
import type { ProcessHandle } from '../supervisor/process';
import { GroupBoot } from './boot';
import { DedicatedStarts } from './dedicated-starts';
import { InstanceTable, type Instance } from './instances';
import { InstanceLauncher } from './launch';
import type { ManagerDeps, RemoteNodes, StartOptions } from './manager-deps';
import { DEFAULT_MANAGER_TIMING, type ManagerTiming } from './manager-timing';
import { Migration } from './migration';
import { ProcessWatch } from './process-watch';
import { Quarantines, type QuarantineRecord } from './quarantine';
import { Recovery } from './recovery';
import type { ServiceRecord } from './registry';
import { CrashRestarts } from './restarts';
import { Shutdown } from './shutdown';
import { SlotClaims } from './slots';
import { StaleWatch } from './stale-watch';
import { StartGate } from './start-gate';
import { GroupStarter } from './starter';
import { StopHooks } from './stop-hooks';
import { Stopper } from './stopper';
import { WarmClaims } from './warm-claims';

export { shutdownWave } from './shutdown';

/**
 * Runs the services of groups on this machine: names, ports, work dirs, the process, READY
 * detection, graceful stop with a kill that always gets through, and restarts after crashes
 * under the restart policy. Actions on one service are serialised; groups are locked while a
 * start picks a name and checks the instance limit.
 *
 * The facade the rest of the controller talks to; each job is its own unit (see the files
 * next to this one), wired here over one instance table.
 */
export class ServiceManager {
  private readonly table: InstanceTable;
  private readonly gate: StartGate;
  private readonly watcher: ProcessWatch;
  private readonly restarts: CrashRestarts;
  private readonly staleWatch: StaleWatch;
  private readonly groupStarter: GroupStarter;
  private readonly warm: WarmClaims;
  private readonly dedicatedStarts: DedicatedStarts;
  private readonly stopper: Stopper;
  private readonly shutdown: Shutdown;
  private readonly recovery: Recovery;
  private readonly boot: GroupBoot;
  private readonly migration: Migration;
  private remote: RemoteNodes | null = null;

  constructor(private readonly deps: ManagerDeps) {
    const timing: ManagerTiming = { ...DEFAULT_MANAGER_TIMING, ...deps.timing };
    // Quarantines the last controller left hold before anything starts.
    const quarantines = new Quarantines(deps.quarantineFile ?? null);
    const problem = quarantines.load();
    if (problem) deps.log.error(problem);
    for (const q of quarantines.list()) deps.log.warn({ group: q.name, since: q.since }, `${q.kind} ${q.name} is quarantined since ${q.since} (${q.reason}); nothing starts it until an operator lifts it`);
    this.gate = new StartGate(quarantines);
    // Read at each use: the cluster joins after the manager exists (useRemoteNodes).
    const remote = () => this.remote;
    const table = new InstanceTable(deps);
    const hooks = new StopHooks(deps);
    this.table = table;
    // Crash replacements, boot starts and a migration's two halves go through this facade's own
    // start and stop: the same checks, locks and queues as an operator's.
    this.restarts = new CrashRestarts(deps, table, this.gate, hooks, timing, this);
    const onUnexpectedExit = this.restarts.onUnexpectedExit.bind(this.restarts);
    this.watcher = new ProcessWatch(deps, table, timing, onUnexpectedExit);
    this.staleWatch = new StaleWatch(deps, table, timing);
    const slots = new SlotClaims(deps, table, remote);
    const launcher = new InstanceLauncher(deps, table, this.gate, this.watcher, remote);
    this.warm = new WarmClaims(deps, table, this.gate, slots, launcher, this.watcher, (name, actor, options) => this.stop(name, actor, options));
    this.groupStarter = new GroupStarter(deps, this.gate, slots, this.warm, launcher);
    this.dedicatedStarts = new DedicatedStarts(deps, table, this.gate, slots, launcher);
    this.stopper = new Stopper(deps, table, this.restarts, hooks, timing);
    this.shutdown = new Shutdown(deps, table, this.gate, this.staleWatch, this.restarts, this.stopper);
    this.recovery = new Recovery(deps, table, this.watcher, onUnexpectedExit, remote);
    this.boot = new GroupBoot(deps, this.gate, this);
    this.migration = new Migration(deps, table, remote, this);
  }

  /** Agents join the placement (the cluster starts after the manager exists). */
  useRemoteNodes(remote: RemoteNodes): void {
    this.remote = remote;
  }

  /**
   * Starts one new instance of a group; resolves once its process runs (STARTING). The group
   * lock covers only the choices that must not race (limit, name, port); the files and the
   * spawn run outside it, in the new service's own queue, so starts of one group overlap.
   */
  start(groupName: string, actor: Actor, restartCount = 0, options: StartOptions = {}): Promise<ServiceRecord> {
    return this.groupStarter.start(groupName, actor, restartCount, options);
  }

  /**
   * Boots one warm-pool instance of a group, kept out of routing until a start takes it.
   * Resolves once it is PREPARED or taken; rejects when it dies or does not boot in time.
   */
  prepareWarm(groupName: string): Promise<ServiceRecord> {
    return this.warm.prepareWarm(groupName);
  }

  /** Stops the group's warm pool (group deleted or changed: its booted instances are stale). */
  drainPool(groupName: string): Promise<number> {
    return this.warm.drainPool(groupName);
  }

  /**
   * Starts a dedicated service: its own directory, its fixed port (a bind probe first), one
   * instance at most. Crashes restart it under its own restart policy.
   */
  startDedicated(name: string, actor: Actor, restartCount = 0): Promise<ServiceRecord> {
    return this.dedicatedStarts.start(name, actor, restartCount);
  }

  /** Whether a start of this group (or dedicated service) would be refused for a crash loop. */
  isQuarantined(name: string): boolean {
    return this.gate.isQuarantined(name);
  }

  /** The quarantine of this group (or dedicated service), if it is quarantined. */
  quarantineOf(name: string): QuarantineRecord | undefined {
    return this.gate.quarantines.get(name);
  }

  /** Every quarantined group and dedicated service, by name. */
  quarantines(): QuarantineRecord[] {
    return this.gate.quarantines.list();
  }

  /** What was wrong with the quarantine file at start (it was moved aside), or null. */
  quarantineProblem(): string | null {
    return this.gate.quarantines.problem;
  }

  /**
   * An operator lifts a quarantine: written first (a failed write throws and it stays), then
   * the crash history of the group starts afresh and GROUP_QUARANTINE_LIFTED says who did it.
   * The refill, scaling and the warm pool start it again on their own; undefined when it was
   * not quarantined.
   */
  liftQuarantine(name: string, actor: Actor): QuarantineRecord | undefined {
    const lifted = this.gate.quarantines.lift(name);
    if (!lifted) return undefined;
    this.restarts.forgetCrashes(name);
    this.deps.log.info({ group: name, actor }, `the quarantine of ${lifted.kind} ${name} (since ${lifted.since}) was lifted by ${actor}`);
    this.deps.bus.publish('GROUP_QUARANTINE_LIFTED', { group: name, kind: lifted.kind, since: lifted.since }, actor);
    return lifted;
  }

  /** Replacements of crashed instances of this group waiting out their backoff. */
  pendingRestartsOf(group: string): number {
    return this.restarts.pendingRestartsOf(group);
  }

  /** READY: the pattern matched or the SDK said so. */
  markReady(instance: Instance): void {
    this.watcher.markReady(instance);
  }

  /**
   * Graceful stop: drain (unless forced; always with `drain`, as a scale-down does, so the
   * proxies stop routing to it first), `stop` on stdin, kill after the timeout, clean up.
   */
  stop(name: string, actor: Actor, options: { force?: boolean; drain?: boolean } = {}): Promise<void> {
    return this.stopper.stop(name, actor, options);
  }

  /** Kills at once, whatever the service is doing; the exit then takes its normal course. */
  kill(name: string): void {
    this.table.require(name).handle?.signal('SIGKILL');
  }

  /** Stop, then start again; a failure of either half is SERVICE_RESTART_FAILED saying which half and why. */
  async restart(name: string, actor: Actor): Promise<ServiceRecord> {
    const { group, isDedicated } = this.table.require(name).record;
    // Refused before the stop: a quarantined group would be left with one instance fewer.
    this.gate.refuseWhenQuarantined(group);
    try {
      await this.stop(name, actor);
    } catch (error) {
      throw new ApiError('SERVICE_RESTART_FAILED', `restart of ${name}: the stop half failed, nothing was started: ${reasonOf(error)}`);
    }
    try {
      return await (isDedicated ? this.startDedicated(name, actor) : this.start(group, actor));
    } catch (error) {
      throw new ApiError('SERVICE_RESTART_FAILED', `restart of ${name}: it stopped, but the start half failed: ${reasonOf(error)}`);
    }
  }

  /**
   * Moves a group instance to another node, checked first so a move that cannot happen
   * leaves the service running; then a graceful stop, and a start there under the same name.
   */
  async migrate(name: string, actor: Actor, target?: string): Promise<ServiceRecord> {
    // Checked before the stop, as the target is: a quarantined group's second half would be refused.
    this.gate.refuseWhenQuarantined(this.table.require(name).record.group);
    return this.migration.migrate(name, actor, target);
  }

  exec(name: string, command: string): void {
    const instance = this.table.require(name);
    if (!instance.handle?.isAlive()) throw new ApiError('SERVICE_NOT_READY', `${name} has no running process`);
    instance.handle.write(command);
  }

  handleOf(name: string): ProcessHandle | null {
    return this.table.get(name)?.handle ?? null;
  }

  /** Sets the SDK's free-text state, or clears it with null or ''. READY only, either way (the spec's rule for the PUT). */
  setCustomState(name: string, customState: string | null, actor: Actor): void {
    const { record } = this.table.require(name);
    if (record.state !== 'READY') throw new ApiError('SERVICE_NOT_READY', `${name} is ${record.state}; the custom state can only be set while READY`);
    const oldState = record.customState;
    const newState = customState ?? '';
    record.customState = newState;
    if (oldState !== newState) {
      this.table.persistSoon();
      this.deps.bus.publish('SERVICE_CUSTOM_STATE_CHANGED', { service: name, group: record.group, oldState: oldState || undefined, newState: newState || undefined }, actor);
    }
  }

  /**
   * The SDK's player count. A report while STARTING means the server is ticking: READY, even
   * when no line matched. From the first report on, silence is watched (see findStale).
   */
  reportPlayers(name: string, playerCount: number): void {
    const instance = this.table.require(name);
    instance.record.playerCount = playerCount;
    instance.record.playersReportedAt = Date.now();
    instance.record.playersReportedMono = monotonicNow();
    this.watcher.bootFinished(instance);
  }

  /** The SDK's TPS; like a player count, a report while STARTING makes the service READY. */
  reportTps(name: string, tps: number): void {
    const instance = this.table.require(name);
    instance.record.tps = tps;
    this.watcher.bootFinished(instance);
  }

  /**
   * The READY services whose SDK has reported a player count before but not within the stale
   * timeout at `now` (monotonic ms): their server is hung (a frozen main thread still holds the process).
   */
  findStale(now: number): string[] {
    return this.staleWatch.findStale(now);
  }

  /**
   * Stops every service in the shutdown order (dedicated → stop-on-empty groups → other
   * backends → proxies), each class in parallel; no orphans left.
   */
  stopAll(reason: string): Promise<void> {
    return this.shutdown.stopAll(reason);
  }

  /**
   * After a controller restart: finds every service the last controller left. A live process
   * is adopted (SERVICE_RECOVERED); one that ended meanwhile is handled like any exit.
   */
  recover(): Promise<void> {
    return this.recovery.recover();
  }

  /**
   * Brings every group up to its minInstances: proxies first, waiting (bounded) for them to be
   * READY, then backends. Failures are logged; they never stop the controller.
   */
  bootGroups(proxyReadyTimeoutMs = 120_000): Promise<void> {
    return this.boot.bootGroups(proxyReadyTimeoutMs);
  }
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
