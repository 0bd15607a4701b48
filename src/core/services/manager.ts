import { randomBytes } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import type { Group } from '../groups/model';
import type { GroupStore } from '../groups/store';
import type { PortLeases } from '../ports';
import { SOFTWARE, type SoftwareKind } from '../software/kinds';
import { memoryMaxMb } from '../software/memory';
import { diagnose } from '../supervisor/diagnosis';
import type { LaunchSpec, ProcessHandle } from '../supervisor/process';
import { decideRestart, DEFAULT_RESTART_TIMING, type RestartPolicy } from '../supervisor/restart-policy';
import { machineUsage, placementProblem, type MachineLimits } from '../scaling/placement';
import { ACTIVE_STATES, transition, type ServiceState } from './lifecycle';
import { nextInstanceName } from './names';
import { LOCAL_NODE, newRecord, type ServiceRecord, type ServiceRegistry } from './registry';
import { SerialQueue } from './serial';
import type { PersistedService, ServiceStateFile } from './state-file';

/** Turns a prepared work dir into the argv to run (software builder, or the group's startCommand). */
export interface CommandPlan {
  argv: string[];
  env: Record<string, string>;
}

/** The steps of a start that touch files: templates into the work dir, then the command. */
export interface ServicePreparer {
  prepare(group: Group, service: { name: string; port: number; workDir: string; isStatic: boolean }): Promise<CommandPlan>;
}

/**
 * A dedicated service as the manager runs it: its config seen as a one-instance static group
 * (software, memory, ready pattern, restart policy), its fixed port and its own directory.
 */
export interface DedicatedLaunch {
  policy: Group;
  port: number;
  workDir: string;
  proxyEnabled: boolean;
  prepare(service: { name: string; port: number; workDir: string }): Promise<CommandPlan>;
}

/** The dedicated configs (config/dedicated/), read when a dedicated service starts or restarts. */
export interface DedicatedSource {
  launchOf(name: string): DedicatedLaunch | undefined;
  names(): string[];
}

export interface ProcessLauncher {
  launch(spec: LaunchSpec): Promise<ProcessHandle>;
  reattach(stateDir: string): Promise<{ kind: 'attached'; handle: ProcessHandle } | { kind: 'ended'; exit: { code: number | null } } | { kind: 'unknown'; reason: string }>;
}

/**
 * Agents on other machines (`[cluster] enabled`). The manager stays the one supervisor: a
 * remote service has a ProcessHandle like a local one, so READY detection, stops, kills and
 * the restart policy are the same code; only placement and the launch differ.
 */
export interface RemoteNodes {
  /** The node a new instance runs on (LOCAL_NODE for this machine); throws ApiError when none fits. */
  place(group: Group, options: { exclude?: string; target?: string }): string;
  hostOf(nodeId: string): string;
  /** Provisions and launches on the node; resolves once the agent reports the process running. */
  launch(nodeId: string, group: Group, service: { name: string; isStatic: boolean }): Promise<{ handle: ProcessHandle; port: number }>;
  /** After a controller restart: a handle bound when the node reports the process again. */
  recover(service: { name: string; nodeId: string; pid: number; startedAt: Date }): ProcessHandle;
}

export interface ManagerTiming {
  /** `stop` on stdin, then this long before a kill (spec: 30 s). */
  stopTimeoutMs: number;
  /** Replaces each kind's ready timeout (180 s, 240 s modded) when set (tests). */
  readyTimeoutMs?: number;
  /** How often a draining service's player count is checked. */
  drainPollMs: number;
  restart: Omit<RestartPolicy, 'restartOnCrash' | 'maxRestarts'>;
  /**
   * A READY service whose SDK reported a player count once and then fell silent this long is
   * hung: it is killed and counts as crashed (`service_stale_timeout`; 0 = never).
   */
  staleTimeoutMs: number;
  /** How often the stale check runs. */
  staleCheckMs: number;
  /** After a SIGKILL (or a remote node's kill), how long the exit may take before the stop counts as failed. */
  killTimeoutMs: number;
}

export const DEFAULT_MANAGER_TIMING: ManagerTiming = {
  stopTimeoutMs: 30_000,
  drainPollMs: 1_000,
  restart: DEFAULT_RESTART_TIMING,
  staleTimeoutMs: 300_000,
  staleCheckMs: 10_000,
  killTimeoutMs: 10_000,
};

interface Instance {
  record: ServiceRecord;
  kind: SoftwareKind;
  queue: SerialQueue;
  handle: ProcessHandle | null;
  /** Set while a stop we asked for is in progress: the exit is then not a crash. */
  stopping: boolean;
  readyTimer: ReturnType<typeof setTimeout> | null;
  /** A warm-pool instance still booting: settled once it is PREPARED, taken, or gone. */
  warming: Deferred | null;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
}

export interface ManagerDeps {
  bus: EventBus;
  log: Logger;
  registry: ServiceRegistry;
  groups: GroupStore;
  ports: PortLeases;
  servicesDir: string;
  preparer: ServicePreparer;
  launcher: ProcessLauncher;
  /** Where the services are remembered across controller restarts. */
  stateFile: ServiceStateFile;
  timing?: Partial<ManagerTiming>;
  /** Dedicated services; without it, only groups run. */
  dedicated?: DedicatedSource;
  /** `[controller] max_services` / `max_memory`, read at each start; absent = no machine limit. */
  limits?: () => MachineLimits;
  /**
   * Deploy-on-stop: copies a stopped instance's new and changed files back into its group's
   * first template and resolves to how many; a failure must leave the template untouched.
   */
  deployBack?: (group: Group, workDir: string) => Promise<number>;
  stateSync?: LocalStateSync;
}

/**
 * State sync of static instances that run on this machine: the canonical copy (which agents
 * push to and pull from) is pulled into the work dir before a start and pushed after a stop,
 * so an instance moves between this machine and the agents with its files.
 */
export interface LocalStateSync {
  pull(service: string, workDir: string, excludes: readonly string[]): Promise<void>;
  push(service: string, workDir: string, excludes: readonly string[]): Promise<void>;
}

/** Where a start should run: a chosen node (migration target), or anywhere but one node. */
export interface StartOptions {
  target?: string;
  exclude?: string;
  /** Keep this instance name (a migration moves the service, it does not make a new one). */
  name?: string;
}

/**
 * Runs the services of groups on this machine: names, ports, work dirs, the process, READY
 * detection, graceful stop with a kill that always gets through, and restarts after crashes
 * under the restart policy. Actions on one service are serialised; groups are locked while a
 * start picks a name and checks the instance limit.
 */
export class ServiceManager {
  private readonly instances = new Map<string, Instance>();
  private readonly groupLocks = new Map<string, SerialQueue>();
  private readonly crashTimes = new Map<string, number[]>();
  private readonly quarantined = new Map<string, string>();
  /** Restarts waiting out their backoff, with the group (or dedicated service) they will start. */
  private readonly pendingRestarts = new Map<ReturnType<typeof setTimeout>, string>();
  private readonly timing: ManagerTiming;
  private readonly staleWatch: ReturnType<typeof setInterval> | null;
  private persistTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private remote: RemoteNodes | null = null;

  constructor(private readonly deps: ManagerDeps) {
    this.timing = { ...DEFAULT_MANAGER_TIMING, ...deps.timing };
    this.staleWatch = this.timing.staleTimeoutMs > 0 ? setInterval(() => this.killStale(Date.now()), this.timing.staleCheckMs) : null;
    this.staleWatch?.unref();
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
  async start(groupName: string, actor: Actor, restartCount = 0, options: StartOptions = {}): Promise<ServiceRecord> {
    const group = this.deps.groups.require(groupName);
    if (actor !== 'system') this.quarantined.delete(groupName); // an operator's start clears a quarantine
    const claim = await this.lockOf(groupName).run(async () => {
      this.refuseWhenClosedOrQuarantined(group.name);
      const running = this.deps.registry.runningInstances(group.name);
      if (running >= group.maxInstances) {
        throw new ApiError('SERVICE_START_FAILED', `group ${group.name} is at its maximum of ${group.maxInstances} instance(s)`);
      }
      const warm = options.target || options.exclude || options.name ? null : this.takeFromPool(group.name);
      return warm ? { instance: warm, warm: true } : { instance: await this.claimSlot(group, restartCount, false, options), warm: false };
    });
    const { instance } = claim;
    if (claim.warm) return instance.queue.run(() => this.activate(instance, actor));
    return instance.queue.run(() => this.launchInstance(instance, group, actor, () => this.deps.preparer.prepare(group, instance.record)));
  }

  /**
   * Boots one warm-pool instance of a group: files, process and boot as for a start, but it
   * stays out of routing (PREPARING, then PREPARED with SERVICE_PREPARED once its ready line
   * came) until a start takes it. Resolves once it is PREPARED or taken; rejects when it
   * dies or does not boot in time. The pool never makes running + pooled exceed maxInstances.
   */
  async prepareWarm(groupName: string): Promise<ServiceRecord> {
    const { instance, group } = await this.lockOf(groupName).run(async () => {
      // Read under the lock: a group deleted (or changed) while this waited gets no new instance.
      const group = this.deps.groups.require(groupName);
      this.refuseWhenClosedOrQuarantined(group.name);
      const { registry } = this.deps;
      if (registry.runningInstances(group.name) + registry.poolOf(group.name).length >= group.maxInstances) {
        throw new ApiError('SERVICE_START_FAILED', `group ${group.name} has no room for a warm instance below its maximum of ${group.maxInstances}`);
      }
      return { instance: await this.claimSlot(group, 0, true), group };
    });
    await instance.queue.run(() => this.launchInstance(instance, group, 'system', () => this.deps.preparer.prepare(group, instance.record)));
    await instance.warming?.promise;
    return instance.record;
  }

  /** Stops the group's warm pool (group deleted or changed: its booted instances are stale). */
  async drainPool(groupName: string): Promise<number> {
    // Taken under the group's lock, so a warm claim in flight is in the list rather than missed.
    const pool = await this.lockOf(groupName).run(async () => this.deps.registry.poolOf(groupName));
    await Promise.all(pool.map((record) => this.stop(record.name, 'system', { force: true }).catch((error: unknown) => this.deps.log.warn({ service: record.name, err: error }, 'could not stop a warm instance'))));
    return pool.length;
  }

  /**
   * Starts a dedicated service: its own directory, its fixed port (a bind probe first), one
   * instance at most. Crashes restart it under its own restart policy.
   */
  async startDedicated(name: string, actor: Actor, restartCount = 0): Promise<ServiceRecord> {
    const launch = this.deps.dedicated?.launchOf(name);
    if (!launch) throw new ApiError('DEDICATED_NOT_FOUND', `dedicated service "${name}" does not exist`);
    if (actor !== 'system') this.quarantined.delete(name);
    const instance = await this.lockOf(name).run(() => this.claimDedicated(name, launch, restartCount));
    return instance.queue.run(() => this.launchInstance(instance, launch.policy, actor, () => launch.prepare(instance.record)));
  }

  /** Whether a start of this group (or dedicated service) would be refused for a crash loop. */
  isQuarantined(name: string): boolean {
    return this.quarantined.has(name);
  }

  /** Replacements of crashed instances of this group waiting out their backoff. */
  pendingRestartsOf(group: string): number {
    let n = 0;
    for (const owner of this.pendingRestarts.values()) if (owner === group) n++;
    return n;
  }

  private cancelPendingRestarts(owner: string): void {
    for (const [timer, of] of this.pendingRestarts) {
      if (of !== owner) continue;
      clearTimeout(timer);
      this.pendingRestarts.delete(timer);
    }
  }

  private lockOf(name: string): SerialQueue {
    const lock = this.groupLocks.get(name) ?? new SerialQueue();
    this.groupLocks.set(name, lock);
    return lock;
  }

  private refuseWhenClosedOrQuarantined(name: string): void {
    if (this.closed) throw new ApiError('SERVICE_START_FAILED', 'the controller is shutting down');
    const quarantine = this.quarantined.get(name);
    if (quarantine) throw new ApiError('SERVICE_START_FAILED', `${name} is quarantined (${quarantine}); start it by hand to clear`);
  }

  /**
   * `[controller] max_services` and `max_memory`: a start that does not fit is refused with
   * PLACEMENT_BLOCKED (counted in svc_placement_blocked_total) and a message naming the limit.
   */
  private checkPlacement(owner: string, memoryMb: number): void {
    if (!this.deps.limits) return;
    const problem = placementProblem(this.deps.limits(), machineUsage(this.instancesRecords()), memoryMb);
    if (!problem) return;
    this.deps.bus.publish('PLACEMENT_BLOCKED', { group: owner, reason: problem });
    throw new ApiError('SERVICE_START_FAILED', `cannot start ${owner}: ${problem}`);
  }

  /** The services on this machine: what `[controller]` limits count (agents have their own). */
  private *instancesRecords(): Iterable<ServiceRecord> {
    for (const instance of this.instances.values()) if (instance.record.nodeId === LOCAL_NODE) yield instance.record;
  }

  /** Under the group lock: a name, a port, and the record in PREPARING (limits checked by the caller). */
  private async claimSlot(group: Group, restartCount: number, pooled: boolean, options: StartOptions = {}): Promise<Instance> {
    const { registry, ports } = this.deps;
    // Warm instances stay on this machine: taking one must be instant, never a network hop.
    const nodeId = this.remote && !pooled ? this.remote.place(group, options) : LOCAL_NODE;
    if (nodeId === LOCAL_NODE) this.checkPlacement(group.name, memoryMaxMb(group.memory));
    const kind = SOFTWARE[group.software];
    const { name, reuses } = options.name && !registry.get(options.name) ? { name: options.name, reuses: null } : nextInstanceName(group.name, registry.ofGroup(group.name));
    if (reuses) void this.forget(reuses, { removeWorkDir: true }); // the new instance gets a fresh dir: no need to wait
    const isStatic = group.type === 'STATIC';
    const remote = nodeId !== LOCAL_NODE;
    // A remote instance's port and folder are the agent's to choose; they arrive with its launch report.
    const port = remote ? 0 : await ports.lease(kind.isProxy ? 'proxy' : 'backend', name);
    const workDir = remote ? '' : isStatic ? join(this.deps.servicesDir, 'static', name) : join(this.deps.servicesDir, 'temp', `${name}_${randomBytes(4).toString('hex')}`);
    const record = newRecord({ name, group: group.name, port, workDir, isStatic, isProxy: kind.isProxy, memoryMaxMb: memoryMaxMb(group.memory), restartCount });
    record.pooled = pooled;
    if (remote) {
      record.nodeId = nodeId;
      record.host = this.remote!.hostOf(nodeId);
    }
    return this.register(record, kind, pooled);
  }

  /** Under the dedicated service's lock: one instance, its directory, its fixed port. */
  private async claimDedicated(name: string, launch: DedicatedLaunch, restartCount: number): Promise<Instance> {
    this.refuseWhenClosedOrQuarantined(name);
    const existing = this.instances.get(name);
    if (existing && ACTIVE_STATES.has(existing.record.state)) throw new ApiError('DEDICATED_ALREADY_RUNNING', `${name} is already ${existing.record.state}`);
    if (existing) await this.forget(name);
    if (this.deps.registry.get(name)) throw new ApiError('SERVICE_START_FAILED', `a service named ${name} already runs; rename the dedicated service`);
    if (!(await isDirectory(launch.workDir))) {
      throw new ApiError('DEDICATED_DIRECTORY_NOT_FOUND', `the directory of ${name} (${launch.workDir}) is gone; recreate it or delete and re-create the dedicated service`);
    }
    this.checkPlacement(name, memoryMaxMb(launch.policy.memory));
    const port = await this.deps.ports.leaseFixed(launch.port, name);
    const kind = SOFTWARE[launch.policy.software];
    const record = newRecord({ name, group: name, port, workDir: launch.workDir, isStatic: true, isProxy: kind.isProxy, memoryMaxMb: memoryMaxMb(launch.policy.memory), restartCount });
    record.isDedicated = true;
    record.proxyEnabled = launch.proxyEnabled;
    return this.register(record, kind, false);
  }

  private register(record: ServiceRecord, kind: SoftwareKind, pooled: boolean): Instance {
    this.deps.registry.add(record);
    const instance: Instance = { record, kind, queue: new SerialQueue(), handle: null, stopping: false, readyTimer: null, warming: pooled ? deferred() : null };
    // Nobody may be left waiting on a warm instance that is stopped or crashes before it is PREPARED.
    instance.warming?.promise.catch(() => undefined);
    this.instances.set(record.name, instance);
    return instance;
  }

  /**
   * Under the group lock: the pool instance a start takes, booted ones first; it leaves the pool
   * at once so no other start takes it too.
   */
  private takeFromPool(group: string): Instance | null {
    const candidates = this.deps.registry
      .poolOf(group)
      .map((record) => this.instances.get(record.name))
      .filter((instance): instance is Instance => Boolean(instance?.handle?.isAlive()));
    const taken = candidates.find((i) => i.record.state === 'PREPARED') ?? candidates[0];
    if (!taken) return null;
    taken.record.pooled = false;
    return taken;
  }

  /** A start served from the pool: a booted instance is READY at once, a booting one STARTING. */
  private async activate(instance: Instance, actor: Actor): Promise<ServiceRecord> {
    const { record } = instance;
    if (!instance.handle?.isAlive() || (record.state !== 'PREPARED' && record.state !== 'PREPARING')) {
      throw new ApiError('SERVICE_START_FAILED', `${record.name} ended before it could be started (${record.diagnosis ?? record.state})`);
    }
    const booted = record.state === 'PREPARED';
    this.move(instance, 'STARTING');
    instance.warming?.resolve();
    this.deps.bus.publish('SERVICE_STARTING', { service: record.name, group: record.group, port: record.port }, actor);
    this.deps.log.info({ service: record.name }, booted ? 'started from the warm pool (already booted)' : 'started from the warm pool (still booting)');
    if (booted) this.markReady(instance);
    return record;
  }

  /** In the service's queue: templates and patches into the work dir, then the process. */
  private async launchInstance(instance: Instance, group: Group, actor: Actor, prepare: () => Promise<CommandPlan>): Promise<ServiceRecord> {
    const { record } = instance;
    const { name, port, workDir } = record;
    const { ports, bus } = this.deps;
    try {
      if (this.closed) throw new ApiError('SERVICE_START_FAILED', 'the controller is shutting down');
      if (record.nodeId !== LOCAL_NODE) {
        const launched = await this.remote!.launch(record.nodeId, group, { name, isStatic: record.isStatic });
        instance.handle = launched.handle;
        record.port = launched.port;
      } else {
        if (record.isStatic && !record.isDedicated && group.syncEnabled && this.deps.stateSync) await this.deps.stateSync.pull(name, workDir, group.syncExcludes);
        const plan = await prepare();
        instance.handle = await this.deps.launcher.launch({ name, workDir, argv: plan.argv, env: plan.env });
      }
    } catch (error) {
      const reason = error instanceof ApiError ? error.message : `could not start: ${(error as Error).message}`;
      record.diagnosis = reason;
      this.move(instance, 'CRASHED');
      ports.release(name);
      instance.warming?.reject(new Error(reason));
      this.deps.log.error({ service: name, err: error }, 'start failed');
      throw new ApiError('SERVICE_START_FAILED', `${name}: ${reason}`);
    }
    record.pid = instance.handle.pid;
    record.startedAt = instance.handle.startedAt;
    if (record.pooled) {
      this.persistNow(); // a new process is on disk before anything else happens
    } else {
      this.move(instance, 'STARTING');
      bus.publish('SERVICE_STARTING', { service: name, group: group.name, port: record.port }, actor);
    }
    this.watch(instance, group);
    return record;
  }

  /** READY by pattern, ready timeout, and what an exit means. */
  private watch(instance: Instance, group: Group): void {
    const handle = instance.handle!;
    const { record, kind } = instance;
    const pattern = new RegExp(group.readyPattern || kind.readyPattern);
    const stopWatching = handle.onLine((line) => {
      if ((record.state !== 'STARTING' && record.state !== 'PREPARING') || !pattern.test(line)) return;
      this.bootFinished(instance);
    });
    instance.readyTimer = setTimeout(() => {
      if (record.state !== 'STARTING') return;
      record.diagnosis = `not READY within ${Math.round((this.timing.readyTimeoutMs ?? kind.readyTimeoutMs) / 1000)} s (no line matched ${pattern.source})`;
      this.deps.log.warn({ service: record.name }, record.diagnosis);
      handle.signal('SIGKILL');
    }, this.timing.readyTimeoutMs ?? kind.readyTimeoutMs);
    void handle.exited.then((exit) => {
      stopWatching();
      if (instance.readyTimer) clearTimeout(instance.readyTimer);
      if (!instance.stopping) this.onUnexpectedExit(instance, group, exit.code);
    });
  }

  /** The ready line came (or the SDK reported): READY, or PREPARED for a warm-pool instance. */
  private bootFinished(instance: Instance): void {
    const { record } = instance;
    if (record.state === 'STARTING') return this.markReady(instance);
    if (record.state !== 'PREPARING' || !record.pooled || !instance.handle) return;
    if (!this.move(instance, 'PREPARED')) return;
    if (instance.readyTimer) clearTimeout(instance.readyTimer);
    instance.warming?.resolve();
    this.deps.bus.publish('SERVICE_PREPARED', { service: record.name, group: record.group });
  }

  /** READY: the pattern matched or the SDK said so. */
  markReady(instance: Instance): void {
    if (!this.move(instance, 'READY')) return;
    instance.record.readyAt = new Date();
    if (instance.readyTimer) clearTimeout(instance.readyTimer);
    this.deps.bus.publish('SERVICE_READY', { service: instance.record.name, group: instance.record.group });
  }

  private onUnexpectedExit(instance: Instance, group: Group, code: number | null): void {
    const { record } = instance;
    const { bus, ports, log } = this.deps;
    ports.release(record.name);
    record.pid = null;
    if (record.pooled) return this.warmInstanceEnded(instance, code);
    if (record.state === 'READY' && code === 0) {
      // A clean exit while READY (someone typed `stop` in its console) is a stop, not a crash.
      void this.deployIfAsked(instance).then(() => this.pushStateIfSynced(instance)).then(() => {
        this.move(instance, 'STOPPED');
        bus.publish('SERVICE_STOPPED', { service: record.name });
        return this.cleanUp(instance);
      });
      return;
    }
    const readyForMs = record.readyAt ? Date.now() - record.readyAt.getTime() : 0;
    const lines = instance.handle?.lastLines(50) ?? [];
    record.diagnosis = record.diagnosis ?? diagnose(code, lines).hint;
    this.move(instance, 'CRASHED');
    instance.handle?.close(); // the last lines stay readable; the work dir stays until the slot is reused
    bus.publish('SERVICE_CRASHED', { service: record.name, exitCode: code ?? -1, restartAttempt: record.restartCount });
    log.warn({ service: record.name, exitCode: code, diagnosis: record.diagnosis, lastLines: lines.slice(-10) }, 'service crashed');

    const now = Date.now();
    const times = [...(this.crashTimes.get(group.name) ?? []), now].filter((t) => now - t <= this.timing.restart.loopWindowMs);
    this.crashTimes.set(group.name, times);
    const policy: RestartPolicy = { restartOnCrash: group.restartOnCrash, maxRestarts: group.maxRestarts, ...this.timing.restart };
    const decision = decideRestart(policy, { restartCount: record.restartCount, readyForMs, groupCrashTimes: times, now });
    if (decision.kind === 'no-restart') {
      log.info({ service: record.name }, `not restarted: ${decision.reason}`);
      return;
    }
    if (decision.kind === 'quarantine') {
      this.quarantined.set(group.name, decision.reason);
      log.error({ group: group.name }, decision.reason);
      bus.publish('API_WARNING', { message: `group ${group.name}: ${decision.reason}` });
      return;
    }
    log.info({ service: record.name, attempt: decision.attempt, delayMs: decision.delayMs }, 'restarting after a crash');
    const timer = setTimeout(() => {
      this.pendingRestarts.delete(timer);
      const replacement = record.isDedicated ? this.startDedicated(record.name, 'system', decision.attempt) : this.start(group.name, 'system', decision.attempt);
      replacement.catch((error: unknown) => log.error({ group: group.name, err: error }, 'restart failed'));
    }, decision.delayMs);
    this.pendingRestarts.set(timer, group.name);
  }

  /**
   * A warm-pool instance ended on its own: it never served anyone, so no restart policy; the
   * pool refills it (with its own backoff). Booting → CRASHED (its diagnosis kept); booted →
   * STOPPED (the lifecycle has no PREPARED → CRASHED) and gone.
   */
  private warmInstanceEnded(instance: Instance, code: number | null): void {
    const { record } = instance;
    const lines = instance.handle?.lastLines(50) ?? [];
    record.diagnosis = record.diagnosis ?? diagnose(code, lines).hint;
    const reason = `warm instance ${record.name} ended with exit code ${code ?? 'unknown'} while ${record.state}${record.diagnosis ? `: ${record.diagnosis}` : ''}`;
    instance.warming?.reject(new Error(reason));
    this.deps.log.warn({ service: record.name, exitCode: code, lastLines: lines.slice(-10) }, reason);
    if (record.state === 'PREPARED') {
      this.move(instance, 'STOPPED');
      this.deps.bus.publish('SERVICE_STOPPED', { service: record.name });
      void this.cleanUp(instance);
      return;
    }
    this.move(instance, 'CRASHED');
    instance.handle?.close();
    this.deps.bus.publish('SERVICE_CRASHED', { service: record.name, exitCode: code ?? -1, restartAttempt: 0 });
  }

  /**
   * Graceful stop: drain (unless forced; always with `drain`, as a scale-down does, so the
   * proxies stop routing to it first), `stop` on stdin, kill after the timeout, clean up.
   */
  stop(name: string, actor: Actor, options: { force?: boolean; drain?: boolean } = {}): Promise<void> {
    const instance = this.require(name);
    // A dedicated service stopped by hand stays stopped: a crash restart still waiting is called off.
    if (instance.record.isDedicated && actor !== 'system') this.cancelPendingRestarts(name);
    return instance.queue.run(async () => {
      const { record } = instance;
      if (record.state === 'STOPPED' || record.state === 'CRASHED' || !instance.handle?.isAlive()) {
        await this.forget(name, { removeWorkDir: true });
        return;
      }
      const policy = this.policyOf(record);
      const drain = options.drain || record.playerCount > 0;
      if (!options.force && record.state === 'READY' && drain) await this.drain(instance, policy?.drainTimeout ?? 30, actor);
      await this.halt(instance, actor);
    });
  }

  /** The group, or the dedicated service seen as one, whose settings a service runs under. */
  private policyOf(record: ServiceRecord): Group | undefined {
    return record.isDedicated ? this.deps.dedicated?.launchOf(record.name)?.policy : this.deps.groups.get(record.group);
  }

  /**
   * Deploy-on-stop: a group instance that served (not a warm one, not a dedicated service)
   * copies its new and changed files back into the group's first template. A failure is
   * reported and leaves the template as it was; the stop goes on either way.
   */
  private async deployIfAsked(instance: Instance): Promise<void> {
    const { record } = instance;
    if (record.isDedicated || record.pooled || record.nodeId !== LOCAL_NODE || !this.deps.deployBack) return;
    const group = this.deps.groups.get(record.group);
    if (!group?.deployOnStop) return;
    try {
      const filesChanged = await this.deps.deployBack(group, record.workDir);
      this.deps.log.info({ service: record.name, filesChanged }, 'deployed changed files back into the template');
      this.deps.bus.publish('SERVICE_DEPLOYED', { service: record.name, group: group.name, filesChanged });
    } catch (error) {
      const message = `deploy-on-stop of ${record.name} failed, the template is unchanged: ${(error as Error).message}`;
      this.deps.log.error({ service: record.name, err: error }, message);
      this.deps.bus.publish('API_WARNING', { message });
    }
  }

  /** A local static instance with state sync: its files become the canonical copy before it counts as stopped (a move may start it elsewhere next). */
  private async pushStateIfSynced(instance: Instance): Promise<void> {
    const { record } = instance;
    if (!record.isStatic || record.isDedicated || record.nodeId !== LOCAL_NODE || !this.deps.stateSync) return;
    const group = this.deps.groups.get(record.group);
    if (!group?.syncEnabled) return;
    try {
      await this.deps.stateSync.push(record.name, record.workDir, group.syncExcludes);
    } catch (error) {
      const message = `state push of ${record.name} failed; the canonical copy is the previous one: ${(error as Error).message}`;
      this.deps.log.error({ service: record.name, err: error }, message);
      this.deps.bus.publish('API_WARNING', { message });
    }
  }

  private async drain(instance: Instance, timeoutSeconds: number, actor: Actor): Promise<void> {
    const { record } = instance;
    this.move(instance, 'DRAINING');
    this.deps.bus.publish('SERVICE_DRAINING', { service: record.name, group: record.group }, actor);
    const deadline = Date.now() + timeoutSeconds * 1000;
    while (record.playerCount > 0 && Date.now() < deadline && instance.handle?.isAlive()) {
      await new Promise((resolve) => setTimeout(resolve, this.timing.drainPollMs));
    }
  }

  private async halt(instance: Instance, actor: Actor): Promise<void> {
    const { record, kind } = instance;
    const handle = instance.handle!;
    instance.stopping = true;
    this.move(instance, 'STOPPING');
    this.deps.bus.publish('SERVICE_STOPPING', { service: record.name }, actor);
    try {
      handle.write(kind.stopCommand);
    } catch (error) {
      this.deps.log.warn({ service: record.name, err: error }, 'could not write the stop command');
    }
    const exited = await Promise.race([handle.exited.then(() => true), delay(this.timing.stopTimeoutMs).then(() => false)]);
    if (!exited) {
      this.deps.log.warn({ service: record.name }, `did not stop within ${this.timing.stopTimeoutMs} ms: killing it`);
      handle.signal('SIGKILL');
      const killed = await Promise.race([handle.exited.then(() => true), delay(this.timing.killTimeoutMs).then(() => false)]);
      if (!killed) {
        // Still there after a kill (a process stuck in the kernel, a node that does not answer):
        // the stop failed; the record stays STOPPING and the rest of the stop runs if it ever ends.
        const where = record.nodeId === LOCAL_NODE ? `pid ${record.pid ?? '?'}` : `node ${record.nodeId} did not confirm`;
        const reason = `${record.name} did not end within ${Math.round(this.timing.killTimeoutMs / 1000)} s of SIGKILL (${where})`;
        this.deps.log.error({ service: record.name }, reason);
        void handle.exited.then(() => this.finishHalt(instance)).catch((error: unknown) => this.deps.log.error({ service: record.name, err: error }, 'finishing a late stop failed'));
        throw new ApiError('SERVICE_STOP_FAILED', `${reason}; it is still STOPPING and finishes when the process ends (check the machine${record.nodeId === LOCAL_NODE ? '' : ' and the agent'})`);
      }
    }
    await this.finishHalt(instance);
  }

  /** The stop's tail once the process has ended: ports, the stop hooks, STOPPED, clean-up. */
  private async finishHalt(instance: Instance): Promise<void> {
    const { record } = instance;
    this.deps.ports.release(record.name);
    record.pid = null;
    instance.warming?.reject(new Error(`${record.name} was stopped before it was prepared`));
    await this.deployIfAsked(instance);
    await this.pushStateIfSynced(instance);
    this.move(instance, 'STOPPED');
    this.deps.bus.publish('SERVICE_STOPPED', { service: record.name });
    await this.cleanUp(instance);
  }

  /** Kills at once, whatever the service is doing; the exit then takes its normal course. */
  kill(name: string): void {
    this.require(name).handle?.signal('SIGKILL');
  }

  /** Stop, then start again; a failure of either half is SERVICE_RESTART_FAILED saying which half and why. */
  async restart(name: string, actor: Actor): Promise<ServiceRecord> {
    const { group, isDedicated } = this.require(name).record;
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
   * Moves a group instance to another node: the target (or the strategy's choice, never the
   * node it is on) is checked first, so a move that cannot happen leaves the service running;
   * then a graceful stop, and a start there under the same name.
   */
  async migrate(name: string, actor: Actor, target?: string): Promise<ServiceRecord> {
    const { record } = this.require(name);
    if (!this.remote) throw new ApiError('CLUSTER_NOT_ENABLED', 'migration needs the cluster: set [cluster] enabled = true and connect an agent');
    if (record.isDedicated) throw new ApiError('SERVICE_START_FAILED', `${name} is a dedicated service: it lives in its own directory on the controller's machine and cannot move`);
    if (record.pooled || !ACTIVE_STATES.has(record.state)) throw new ApiError('SERVICE_NOT_READY', `${name} is ${record.state}; only a running instance can be migrated`);
    if (target === record.nodeId) throw new ApiError('SERVICE_START_FAILED', `${name} already runs on node ${target}`);
    const group = this.deps.groups.require(record.group);
    // Throws (NODE_NOT_FOUND, or why nothing fits) before anything is stopped.
    const destination = this.remote.place(group, target ? { target } : { exclude: record.nodeId });
    await this.stop(name, actor, { drain: record.playerCount > 0 });
    return this.start(group.name, actor, 0, { target: destination, name });
  }

  exec(name: string, command: string): void {
    const instance = this.require(name);
    if (!instance.handle?.isAlive()) throw new ApiError('SERVICE_NOT_READY', `${name} has no running process`);
    instance.handle.write(command);
  }

  handleOf(name: string): ProcessHandle | null {
    return this.instances.get(name)?.handle ?? null;
  }

  /** Sets the SDK's free-text state, or clears it with null or ''. READY only, either way (the spec's rule for the PUT). */
  setCustomState(name: string, customState: string | null, actor: Actor): void {
    const { record } = this.require(name);
    if (record.state !== 'READY') throw new ApiError('SERVICE_NOT_READY', `${name} is ${record.state}; the custom state can only be set while READY`);
    const oldState = record.customState;
    const newState = customState ?? '';
    record.customState = newState;
    if (oldState !== newState) {
      this.persistSoon();
      this.deps.bus.publish('SERVICE_CUSTOM_STATE_CHANGED', { service: name, group: record.group, oldState: oldState || undefined, newState: newState || undefined }, actor);
    }
  }

  /**
   * The SDK's player count. A report while STARTING means the server is ticking: READY, even
   * when no line matched. From the first report on, silence is watched (see findStale).
   */
  reportPlayers(name: string, playerCount: number): void {
    const instance = this.require(name);
    instance.record.playerCount = playerCount;
    instance.record.playersReportedAt = Date.now();
    this.bootFinished(instance);
  }

  /** The SDK's TPS; like a player count, a report while STARTING makes the service READY. */
  reportTps(name: string, tps: number): void {
    const instance = this.require(name);
    instance.record.tps = tps;
    this.bootFinished(instance);
  }

  /**
   * The READY services whose SDK has reported a player count before but not within the stale
   * timeout at `now`: their server is hung (a frozen main thread still holds the process).
   */
  findStale(now: number): string[] {
    if (this.timing.staleTimeoutMs <= 0) return [];
    const stale: string[] = [];
    for (const { record, handle } of this.instances.values()) {
      if (record.state !== 'READY' || record.playersReportedAt === null || !handle?.isAlive()) continue;
      if (now - record.playersReportedAt >= this.timing.staleTimeoutMs) stale.push(record.name);
    }
    return stale;
  }

  /** Kills every stale service; the exit counts as a crash with this diagnosis, and the restart policy decides what follows. */
  private killStale(now: number): void {
    for (const name of this.findStale(now)) {
      const { record, handle } = this.instances.get(name)!;
      record.diagnosis = `stale: no player-count report for ${Math.round((now - record.playersReportedAt!) / 1000)} s (service_stale_timeout is ${Math.round(this.timing.staleTimeoutMs / 1000)} s); the server looks hung`;
      this.deps.log.warn({ service: name }, record.diagnosis);
      handle!.signal('SIGKILL');
    }
  }

  /**
   * Stops every service in the shutdown order (dedicated → stop-on-empty groups → other
   * backends → proxies, so players are never left on a proxy with nowhere to go), each class in
   * parallel; no orphans left.
   */
  async stopAll(reason: string): Promise<void> {
    this.closed = true;
    if (this.staleWatch) clearInterval(this.staleWatch);
    for (const timer of this.pendingRestarts.keys()) clearTimeout(timer);
    this.pendingRestarts.clear();
    // A service still PREPARING is included: its stop queues behind the launch, so no process it spawns outlives us.
    const running = [...this.instances.values()].filter((i) => i.handle || i.record.state === 'PREPARING');
    this.deps.log.info({ reason, services: running.length }, 'stopping all services');
    const waves = new Map<number, Instance[]>();
    for (const instance of running) {
      const wave = shutdownWave(instance.record, this.policyOf(instance.record));
      waves.set(wave, [...(waves.get(wave) ?? []), instance]);
    }
    for (const wave of [...waves.keys()].sort((a, b) => a - b)) {
      await Promise.all(waves.get(wave)!.map((i) => this.stop(i.record.name, 'system', { force: true }).catch(() => i.handle?.signal('SIGKILL'))));
    }
    this.persistNow();
  }

  private require(name: string): Instance {
    const instance = this.instances.get(name);
    if (!instance) throw new ApiError('SERVICE_NOT_FOUND', `service "${name}" does not exist`);
    return instance;
  }

  /** Moves a service through the lifecycle table; refused moves are logged, not thrown. */
  private move(instance: Instance, to: ServiceState): boolean {
    const result = transition(instance.record.state, to);
    if (!result.ok) {
      this.deps.log.warn({ service: instance.record.name }, `refused: ${result.reason}`);
      return false;
    }
    instance.record.state = to;
    // A new process must be on disk before anyone hears of it; any other change may wait a moment.
    if (result.changed) {
      if (to === 'STARTING') this.persistNow();
      else this.persistSoon();
    }
    return result.changed;
  }

  /**
   * Soon (coalesced, PERSIST_DELAY_MS) for changes whose loss a restarted controller survives:
   * a READY it re-reads from the service's log, a removal it reports as "not recovered", a
   * custom state the SDK sets again. One write for a burst of changes instead of one each.
   */
  private persistSoon(): void {
    if (this.persistTimer) return;
    this.persistTimer = setTimeout(() => this.persistNow(), PERSIST_DELAY_MS);
    this.persistTimer.unref();
  }

  /**
   * Writes what a restarted controller needs to find every live process again. Synchronous for
   * a newly spawned process: a kill -9 right after a start must not lose it.
   */
  private persistNow(): void {
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = null;
    const services: PersistedService[] = [];
    for (const { record, handle } of this.instances.values()) {
      if (!handle) continue;
      services.push({
        name: record.name,
        group: record.group,
        state: record.state,
        port: record.port,
        workDir: record.workDir,
        stateDir: handle.stateDir,
        isStatic: record.isStatic,
        restartCount: record.restartCount,
        customState: record.customState,
        isDedicated: record.isDedicated,
        pooled: record.pooled,
        proxyEnabled: record.proxyEnabled,
        ...(record.nodeId !== LOCAL_NODE ? { nodeId: record.nodeId, pid: record.pid ?? 0, startedAt: record.startedAt?.getTime() ?? Date.now() } : {}),
      });
    }
    try {
      this.deps.stateFile.save(services);
    } catch (error) {
      this.deps.log.error({ err: error }, 'could not save the service state file');
    }
  }

  /**
   * After a controller restart: finds every service the last controller left. A live process
   * is adopted (SERVICE_RECOVERED; console, stdin, stop and its exit code work again); one that
   * ended meanwhile is handled like any exit (crash and restart policy, or a clean stop).
   */
  async recover(): Promise<void> {
    const { services, problem } = this.deps.stateFile.load();
    if (problem) this.deps.log.warn(problem);
    for (const entry of services) {
      const group = entry.isDedicated ? this.deps.dedicated?.launchOf(entry.name)?.policy : this.deps.groups.get(entry.group);
      const outcome = await this.reattachEntry(entry);
      if (outcome.kind === 'unknown' || !group) {
        const gone = entry.isDedicated ? `dedicated service ${entry.name} no longer exists` : `group ${entry.group} no longer exists`;
        this.deps.log.warn({ service: entry.name }, `not recovered: ${outcome.kind === 'unknown' ? outcome.reason : gone}`);
        continue;
      }
      const kind = SOFTWARE[group.software];
      const record = newRecord({ name: entry.name, group: entry.group, port: entry.port, workDir: entry.workDir, isStatic: entry.isStatic, isProxy: kind.isProxy, memoryMaxMb: memoryMaxMb(group.memory), restartCount: entry.restartCount });
      record.pooled = entry.pooled ?? false;
      record.isDedicated = entry.isDedicated ?? false;
      record.proxyEnabled = entry.proxyEnabled ?? true;
      record.state = recoveredState(entry.state, record.pooled);
      record.customState = entry.customState;
      if (entry.nodeId && entry.nodeId !== LOCAL_NODE) {
        record.nodeId = entry.nodeId;
        record.host = this.remote!.hostOf(entry.nodeId);
      }
      const instance = this.register(record, kind, record.pooled && record.state === 'PREPARING');
      if (outcome.kind === 'ended') {
        this.deps.log.warn({ service: record.name, exitCode: outcome.exit.code }, 'ended while the controller was away');
        this.onUnexpectedExit(instance, group, outcome.exit.code);
        continue;
      }
      instance.handle = outcome.handle;
      if (record.nodeId === LOCAL_NODE) this.deps.ports.adopt(record.port, record.name);
      record.pid = outcome.handle.pid;
      record.startedAt = outcome.handle.startedAt;
      if (record.state === 'READY') record.readyAt = new Date();
      this.watch(instance, group);
      // It may have become READY while no controller watched: its earlier lines say so.
      const pattern = new RegExp(group.readyPattern || kind.readyPattern);
      if ((record.state === 'STARTING' || record.state === 'PREPARING') && outcome.handle.lastLines(1000).some((line) => pattern.test(line))) this.bootFinished(instance);
      this.deps.bus.publish('SERVICE_RECOVERED', { service: record.name, group: record.group, pid: record.pid, port: record.port });
      this.deps.log.info({ service: record.name, pid: record.pid, port: record.port }, 'recovered a running service');
    }
    this.persistNow();
  }

  /** A local service's process found again from its state dir; a remote one handed to the cluster, which binds it when its node reports it. */
  private async reattachEntry(entry: PersistedService): ReturnType<ProcessLauncher['reattach']> {
    if (!entry.nodeId || entry.nodeId === LOCAL_NODE) {
      return this.deps.launcher.reattach(entry.stateDir).catch((error: unknown) => ({ kind: 'unknown' as const, reason: String(error) }));
    }
    if (!this.remote) return { kind: 'unknown', reason: `it ran on node ${entry.nodeId} and the cluster is not enabled` };
    return { kind: 'attached', handle: this.remote.recover({ name: entry.name, nodeId: entry.nodeId, pid: entry.pid ?? 0, startedAt: new Date(entry.startedAt ?? Date.now()) }) };
  }

  /**
   * Brings every group up to its minInstances: proxies first, waiting (bounded) for them to be
   * READY, then backends. Failures are logged; they never stop the controller.
   */
  async bootGroups(proxyReadyTimeoutMs = 120_000): Promise<void> {
    const groups = this.deps.groups.list();
    const proxies = groups.filter((g) => SOFTWARE[g.software].isProxy);
    const backends = groups.filter((g) => !SOFTWARE[g.software].isProxy);
    const started = await this.fillToMinimum(proxies);
    await this.settled(started, proxyReadyTimeoutMs);
    await this.fillToMinimum(backends);
    for (const name of this.deps.dedicated?.names() ?? []) {
      if (this.closed) break;
      await this.startDedicated(name, 'system').catch((error: unknown) => this.deps.log.error({ service: name, err: error }, 'boot start of a dedicated service failed'));
    }
  }

  /** Resolves once none of `records` is still on its way up (READY, crashed, stopped), or after `timeoutMs`. */
  private settled(records: readonly ServiceRecord[], timeoutMs: number): Promise<void> {
    const pending = () => !this.closed && records.some((r) => r.state === 'STARTING' || r.state === 'PREPARING');
    if (!pending()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        unsubscribe();
        clearTimeout(timer);
        resolve();
      };
      // Every way out of STARTING publishes an event (READY, CRASHED, STOPPING/STOPPED).
      const unsubscribe = this.deps.bus.subscribe(() => {
        if (!pending()) done();
      });
      const timer = setTimeout(done, timeoutMs);
    });
  }

  private async fillToMinimum(groups: Group[]): Promise<ServiceRecord[]> {
    const started: ServiceRecord[] = [];
    for (const group of groups) {
      const missing = group.minInstances - this.deps.registry.runningInstances(group.name);
      for (let i = 0; i < missing && !this.closed; i++) {
        try {
          started.push(await this.start(group.name, 'system'));
        } catch (error) {
          this.deps.log.error({ group: group.name, err: error }, 'boot start failed');
          break;
        }
      }
    }
    return started;
  }

  /** After a stop: unregistered, and a dynamic service's work dir deleted (settles once it is). */
  private cleanUp(instance: Instance): Promise<void> {
    instance.handle?.close();
    return this.forget(instance.record.name, { removeWorkDir: true });
  }

  /**
   * Drops a service from the controller; a dynamic service's work dir goes with it. The
   * deletion runs off the event loop (a world can be thousands of files) and settles the
   * returned promise; a failure is logged, never thrown: the service is gone either way.
   */
  private forget(name: string, options: { removeWorkDir?: boolean } = {}): Promise<void> {
    const instance = this.instances.get(name);
    instance?.handle?.close();
    instance?.warming?.reject(new Error(`${name} was removed before it was prepared`));
    this.instances.delete(name);
    this.deps.registry.remove(name);
    this.persistSoon();
    if (!options.removeWorkDir || !instance || instance.record.isStatic || instance.record.nodeId !== LOCAL_NODE) return Promise.resolve();
    const { workDir } = instance.record;
    return rm(workDir, { recursive: true, force: true }).catch((error: unknown) => this.deps.log.warn({ service: name, err: error }, `could not delete the work dir ${workDir}`));
  }
}

/** How long changes that may wait are collected before the state file is written. */
const PERSIST_DELAY_MS = 50;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}

/**
 * The state a recovered process resumes in: READY/DRAINING as READY (players come back through
 * the proxies), a warm instance as it was, anything else as STARTING (its ready line is
 * looked for again).
 */
function recoveredState(state: ServiceState, pooled: boolean): ServiceState {
  if (pooled) return state === 'PREPARED' ? 'PREPARED' : 'PREPARING';
  return state === 'READY' || state === 'DRAINING' ? 'READY' : 'STARTING';
}

/** The shutdown order: lower waves stop first (dedicated 0, stop-on-empty 1, other backends 2, proxies 3). */
export function shutdownWave(record: Pick<ServiceRecord, 'isDedicated' | 'isProxy'>, group: Pick<Group, 'stopOnEmpty'> | undefined): number {
  if (record.isProxy) return 3;
  if (record.isDedicated) return 0;
  if (group?.stopOnEmpty) return 1;
  return 2;
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
