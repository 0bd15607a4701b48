import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
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
import { transition, type ServiceState } from './lifecycle';
import { nextInstanceName } from './names';
import { newRecord, type ServiceRecord, type ServiceRegistry } from './registry';
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

export interface ProcessLauncher {
  launch(spec: LaunchSpec): Promise<ProcessHandle>;
  reattach(stateDir: string): Promise<{ kind: 'attached'; handle: ProcessHandle } | { kind: 'ended'; exit: { code: number | null } } | { kind: 'unknown'; reason: string }>;
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
}

export const DEFAULT_MANAGER_TIMING: ManagerTiming = {
  stopTimeoutMs: 30_000,
  drainPollMs: 1_000,
  restart: DEFAULT_RESTART_TIMING,
  staleTimeoutMs: 300_000,
  staleCheckMs: 10_000,
};

interface Instance {
  record: ServiceRecord;
  kind: SoftwareKind;
  queue: SerialQueue;
  handle: ProcessHandle | null;
  /** Set while a stop we asked for is in progress: the exit is then not a crash. */
  stopping: boolean;
  readyTimer: ReturnType<typeof setTimeout> | null;
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
  private readonly pendingRestarts = new Set<ReturnType<typeof setTimeout>>();
  private readonly timing: ManagerTiming;
  private readonly staleWatch: ReturnType<typeof setInterval> | null;
  private persistTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(private readonly deps: ManagerDeps) {
    this.timing = { ...DEFAULT_MANAGER_TIMING, ...deps.timing };
    this.staleWatch = this.timing.staleTimeoutMs > 0 ? setInterval(() => this.killStale(Date.now()), this.timing.staleCheckMs) : null;
    this.staleWatch?.unref();
  }

  /**
   * Starts one new instance of a group; resolves once its process runs (STARTING). The group
   * lock covers only the choices that must not race (limit, name, port); the files and the
   * spawn run outside it, in the new service's own queue, so starts of one group overlap.
   */
  async start(groupName: string, actor: Actor, restartCount = 0): Promise<ServiceRecord> {
    const group = this.deps.groups.require(groupName);
    if (actor !== 'system') this.quarantined.delete(groupName); // an operator's start clears a quarantine
    const lock = this.groupLocks.get(groupName) ?? new SerialQueue();
    this.groupLocks.set(groupName, lock);
    const instance = await lock.run(() => this.claimSlot(group, restartCount));
    return instance.queue.run(() => this.launchInstance(instance, group, actor));
  }

  /** Under the group lock: the instance limit, a name, a port, and the record in PREPARING. */
  private async claimSlot(group: Group, restartCount: number): Promise<Instance> {
    if (this.closed) throw new ApiError('SERVICE_START_FAILED', 'the controller is shutting down');
    const quarantine = this.quarantined.get(group.name);
    if (quarantine) throw new ApiError('SERVICE_START_FAILED', `group ${group.name} is quarantined (${quarantine}); start it by hand to clear`);
    const { registry, ports } = this.deps;
    const active = registry.activeInstances(group.name);
    if (active >= group.maxInstances) {
      throw new ApiError('SERVICE_START_FAILED', `group ${group.name} is at its maximum of ${group.maxInstances} instance(s)`);
    }
    const kind = SOFTWARE[group.software];
    const { name, reuses } = nextInstanceName(group.name, registry.ofGroup(group.name));
    if (reuses) void this.forget(reuses, { removeWorkDir: true }); // the new instance gets a fresh dir: no need to wait
    const port = await ports.lease(kind.isProxy ? 'proxy' : 'backend', name);
    const isStatic = group.type === 'STATIC';
    const workDir = isStatic ? join(this.deps.servicesDir, 'static', name) : join(this.deps.servicesDir, 'temp', `${name}_${randomBytes(4).toString('hex')}`);
    const record = newRecord({ name, group: group.name, port, workDir, isStatic, isProxy: kind.isProxy, memoryMaxMb: memoryMaxMb(group.memory), restartCount });
    registry.add(record);
    const instance: Instance = { record, kind, queue: new SerialQueue(), handle: null, stopping: false, readyTimer: null };
    this.instances.set(name, instance);
    return instance;
  }

  /** In the service's queue: templates and patches into the work dir, then the process. */
  private async launchInstance(instance: Instance, group: Group, actor: Actor): Promise<ServiceRecord> {
    const { record } = instance;
    const { name, port, workDir, isStatic } = record;
    const { ports, bus } = this.deps;
    try {
      if (this.closed) throw new ApiError('SERVICE_START_FAILED', 'the controller is shutting down');
      const plan = await this.deps.preparer.prepare(group, { name, port, workDir, isStatic });
      instance.handle = await this.deps.launcher.launch({ name, workDir, argv: plan.argv, env: plan.env });
    } catch (error) {
      const reason = error instanceof ApiError ? error.message : `could not start: ${(error as Error).message}`;
      record.diagnosis = reason;
      this.move(instance, 'CRASHED');
      ports.release(name);
      this.deps.log.error({ service: name, err: error }, 'start failed');
      throw new ApiError('SERVICE_START_FAILED', `${name}: ${reason}`);
    }
    record.pid = instance.handle.pid;
    record.startedAt = instance.handle.startedAt;
    this.move(instance, 'STARTING');
    bus.publish('SERVICE_STARTING', { service: name, group: group.name, port }, actor);
    this.watch(instance, group);
    return record;
  }

  /** READY by pattern, ready timeout, and what an exit means. */
  private watch(instance: Instance, group: Group): void {
    const handle = instance.handle!;
    const { record, kind } = instance;
    const pattern = new RegExp(group.readyPattern || kind.readyPattern);
    const stopWatching = handle.onLine((line) => {
      if (record.state !== 'STARTING' || !pattern.test(line)) return;
      this.markReady(instance);
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
    if (record.state === 'READY' && code === 0) {
      // A clean exit while READY (someone typed `stop` in its console) is a stop, not a crash.
      this.move(instance, 'STOPPED');
      bus.publish('SERVICE_STOPPED', { service: record.name });
      void this.cleanUp(instance);
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
      this.start(group.name, 'system', decision.attempt).catch((error: unknown) => log.error({ group: group.name, err: error }, 'restart failed'));
    }, decision.delayMs);
    this.pendingRestarts.add(timer);
  }

  /** Graceful stop: drain (unless forced), `stop` on stdin, kill after the timeout, clean up. */
  stop(name: string, actor: Actor, options: { force?: boolean } = {}): Promise<void> {
    const instance = this.require(name);
    return instance.queue.run(async () => {
      const { record } = instance;
      if (record.state === 'STOPPED' || record.state === 'CRASHED' || !instance.handle?.isAlive()) {
        await this.forget(name, { removeWorkDir: true });
        return;
      }
      const group = this.deps.groups.get(record.group);
      if (!options.force && record.state === 'READY' && record.playerCount > 0) await this.drain(instance, group?.drainTimeout ?? 30, actor);
      await this.halt(instance, actor);
    });
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
      await handle.exited;
    }
    this.deps.ports.release(record.name);
    record.pid = null;
    this.move(instance, 'STOPPED');
    this.deps.bus.publish('SERVICE_STOPPED', { service: record.name });
    await this.cleanUp(instance);
  }

  /** Kills at once, whatever the service is doing; the exit then takes its normal course. */
  kill(name: string): void {
    this.require(name).handle?.signal('SIGKILL');
  }

  async restart(name: string, actor: Actor): Promise<ServiceRecord> {
    const group = this.require(name).record.group;
    await this.stop(name, actor);
    return this.start(group, actor);
  }

  exec(name: string, command: string): void {
    const instance = this.require(name);
    if (!instance.handle?.isAlive()) throw new ApiError('SERVICE_NOT_READY', `${name} has no running process`);
    instance.handle.write(command);
  }

  handleOf(name: string): ProcessHandle | null {
    return this.instances.get(name)?.handle ?? null;
  }

  setCustomState(name: string, customState: string, actor: Actor): void {
    const { record } = this.require(name);
    if (record.state !== 'READY') throw new ApiError('SERVICE_NOT_READY', `${name} is ${record.state}; the custom state can only be set while READY`);
    const oldState = record.customState;
    record.customState = customState;
    if (oldState !== customState) {
      this.persistSoon();
      this.deps.bus.publish('SERVICE_CUSTOM_STATE_CHANGED', { service: name, group: record.group, oldState: oldState || undefined, newState: customState || undefined }, actor);
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
    if (instance.record.state === 'STARTING') this.markReady(instance);
  }

  /** The SDK's TPS; like a player count, a report while STARTING makes the service READY. */
  reportTps(name: string, tps: number): void {
    const instance = this.require(name);
    instance.record.tps = tps;
    if (instance.record.state === 'STARTING') this.markReady(instance);
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
    for (const timer of this.pendingRestarts) clearTimeout(timer);
    this.pendingRestarts.clear();
    // A service still PREPARING is included: its stop queues behind the launch, so no process it spawns outlives us.
    const running = [...this.instances.values()].filter((i) => i.handle || i.record.state === 'PREPARING');
    this.deps.log.info({ reason, services: running.length }, 'stopping all services');
    const waves = new Map<number, Instance[]>();
    for (const instance of running) {
      const wave = shutdownWave(instance.record, this.deps.groups.get(instance.record.group));
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
      const group = this.deps.groups.get(entry.group);
      const outcome = await this.deps.launcher.reattach(entry.stateDir).catch((error: unknown) => ({ kind: 'unknown' as const, reason: String(error) }));
      if (outcome.kind === 'unknown' || !group) {
        this.deps.log.warn({ service: entry.name }, `not recovered: ${outcome.kind === 'unknown' ? outcome.reason : `group ${entry.group} no longer exists`}`);
        continue;
      }
      const kind = SOFTWARE[group.software];
      const record = newRecord({ name: entry.name, group: entry.group, port: entry.port, workDir: entry.workDir, isStatic: entry.isStatic, isProxy: kind.isProxy, memoryMaxMb: memoryMaxMb(group.memory), restartCount: entry.restartCount });
      record.state = entry.state === 'READY' || entry.state === 'DRAINING' ? 'READY' : 'STARTING';
      record.customState = entry.customState;
      const instance: Instance = { record, kind, queue: new SerialQueue(), handle: null, stopping: false, readyTimer: null };
      this.deps.registry.add(record);
      this.instances.set(record.name, instance);
      if (outcome.kind === 'ended') {
        this.deps.log.warn({ service: record.name, exitCode: outcome.exit.code }, 'ended while the controller was away');
        this.onUnexpectedExit(instance, group, outcome.exit.code);
        continue;
      }
      instance.handle = outcome.handle;
      this.deps.ports.adopt(record.port, record.name);
      record.pid = outcome.handle.pid;
      record.startedAt = outcome.handle.startedAt;
      if (record.state === 'READY') record.readyAt = new Date();
      this.watch(instance, group);
      // It may have become READY while no controller watched: its earlier lines say so.
      const pattern = new RegExp(group.readyPattern || kind.readyPattern);
      if (record.state === 'STARTING' && outcome.handle.lastLines(1000).some((line) => pattern.test(line))) this.markReady(instance);
      this.deps.bus.publish('SERVICE_RECOVERED', { service: record.name, group: record.group, pid: record.pid, port: record.port });
      this.deps.log.info({ service: record.name, pid: record.pid, port: record.port }, 'recovered a running service');
    }
    this.persistNow();
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
      const missing = group.minInstances - this.deps.registry.activeInstances(group.name);
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
    this.instances.delete(name);
    this.deps.registry.remove(name);
    this.persistSoon();
    if (!options.removeWorkDir || !instance || instance.record.isStatic) return Promise.resolve();
    const { workDir } = instance.record;
    return rm(workDir, { recursive: true, force: true }).catch((error: unknown) => this.deps.log.warn({ service: name, err: error }, `could not delete the work dir ${workDir}`));
  }
}

/** How long changes that may wait are collected before the state file is written. */
const PERSIST_DELAY_MS = 50;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The shutdown order: lower waves stop first (dedicated 0, stop-on-empty 1, other backends 2, proxies 3). */
export function shutdownWave(record: Pick<ServiceRecord, 'isDedicated' | 'isProxy'>, group: Pick<Group, 'stopOnEmpty'> | undefined): number {
  if (record.isProxy) return 3;
  if (record.isDedicated) return 0;
  if (group?.stopOnEmpty) return 1;
  return 2;
}
