import { monotonicNow, type Clock } from '../time/monotonic';
import type { Actor } from '../../events/catalogue';
import type { Group } from '../groups/model';
import { diagnose } from '../supervisor/diagnosis';
import { crashesInWindow, decideRestart, type RestartPolicy } from '../supervisor/restart-policy';
import type { Instance, InstanceTable } from './instances';
import { quarantineRefusal } from './quarantine';
import type { ManagerDeps } from './manager-deps';
import type { ManagerTiming } from './manager-timing';
import type { ServiceRecord } from './registry';
import type { StartGate } from './start-gate';
import type { StopHooks } from './stop-hooks';

/** How a replacement is started: through the same entry points as any start. */
export interface Relaunch {
  start(groupName: string, actor: Actor, restartCount: number): Promise<ServiceRecord>;
  startDedicated(name: string, actor: Actor, restartCount: number): Promise<ServiceRecord>;
}

/**
 * Exits nobody asked for, and what follows under the restart policy: a clean exit while READY
 * is a stop; anything else is a crash, restarted after a backoff, or, when a group crashes in
 * a loop, quarantined. Replacements waiting out their backoff are tracked so a shutdown or a
 * hand stop can call them off.
 */
export class CrashRestarts {
  /** Crash times of each group (or dedicated service) inside the breaker's window, on the monotonic clock. */
  private readonly crashTimes = new Map<string, number[]>();
  /** Restarts waiting out their backoff, with the group (or dedicated service) they will start. */
  private readonly pendingRestarts = new Map<ReturnType<typeof setTimeout>, string>();
  /** The crashed service each pending restart replaces: a stop of that service calls it off. */
  private readonly replacing = new Map<ReturnType<typeof setTimeout>, string>();

  constructor(
    private readonly deps: Pick<ManagerDeps, 'bus' | 'log' | 'ports'>,
    private readonly table: InstanceTable,
    private readonly gate: StartGate,
    private readonly hooks: StopHooks,
    private readonly timing: ManagerTiming,
    private readonly relaunch: Relaunch,
    /** Monotonic ms for the breaker's window (injectable for tests); wall time only goes into the quarantine record. */
    private readonly now: Clock = monotonicNow,
  ) {}

  /** Replacements of crashed instances of this group waiting out their backoff. */
  pendingRestartsOf(group: string): number {
    let n = 0;
    for (const owner of this.pendingRestarts.values()) if (owner === group) n++;
    return n;
  }

  cancelPendingRestarts(owner: string): void {
    for (const [timer, of] of this.pendingRestarts) {
      if (of !== owner) continue;
      clearTimeout(timer);
      this.pendingRestarts.delete(timer);
      this.replacing.delete(timer);
    }
  }

  /**
   * A stop of a crashed service whose replacement still waits out its backoff: the replacement
   * is called off, so the service stays stopped. True when there was one.
   */
  cancelPendingRestartOf(service: string): boolean {
    for (const [timer, of] of this.replacing) {
      if (of !== service) continue;
      clearTimeout(timer);
      this.replacing.delete(timer);
      this.pendingRestarts.delete(timer);
      return true;
    }
    return false;
  }

  /** Shutdown: no replacement starts any more. */
  cancelAll(): void {
    for (const timer of this.pendingRestarts.keys()) clearTimeout(timer);
    this.pendingRestarts.clear();
    this.replacing.clear();
  }

  onUnexpectedExit(instance: Instance, group: Group, code: number | null): void {
    const { record } = instance;
    const { bus, ports, log } = this.deps;
    ports.release(record.name);
    record.pid = null;
    if (record.pooled) return this.warmInstanceEnded(instance, code);
    if (record.state === 'READY' && code === 0) {
      // A clean exit while READY (someone typed `stop` in its console) is a stop, not a crash.
      void this.hooks.deployIfAsked(instance).then(() => this.hooks.pushStateIfSynced(instance)).then(() => {
        this.table.move(instance, 'STOPPED');
        bus.publish('SERVICE_STOPPED', { service: record.name });
        return this.table.cleanUp(instance);
      });
      return;
    }
    const readyForMs = record.readyMono !== null ? monotonicNow() - record.readyMono : 0;
    const lines = instance.handle?.lastLines(50) ?? [];
    record.diagnosis = record.diagnosis ?? diagnose(code, lines).hint;
    this.table.move(instance, 'CRASHED');
    instance.handle?.close(); // the last lines stay readable; the work dir stays until the slot is reused
    bus.publish('SERVICE_CRASHED', { service: record.name, exitCode: code ?? -1, restartAttempt: record.restartCount });
    log.warn({ service: record.name, exitCode: code, diagnosis: record.diagnosis, lastLines: lines.slice(-10) }, 'service crashed');

    const now = this.now();
    const times = crashesInWindow([...(this.crashTimes.get(group.name) ?? []), now], now, this.timing.restart.loopWindowMs);
    this.crashTimes.set(group.name, times);
    const policy: RestartPolicy = { restartOnCrash: group.restartOnCrash, maxRestarts: group.maxRestarts, ...this.timing.restart };
    const decision = decideRestart(policy, { restartCount: record.restartCount, readyForMs, groupCrashTimes: times, now, quarantined: this.gate.isQuarantined(group.name) });
    if (decision.kind === 'no-restart') {
      log.info({ service: record.name }, `not restarted: ${decision.reason}`);
      return;
    }
    if (decision.kind === 'quarantine') {
      this.quarantine(record, group, decision.reason, decision.crashes, code);
      return;
    }
    const cannot = cannotRun(record, code, lines);
    if (cannot) {
      log.warn({ service: record.name, exitCode: code }, `not restarted: ${cannot}`);
      return;
    }
    log.info({ service: record.name, attempt: decision.attempt, delayMs: decision.delayMs }, 'restarting after a crash');
    const timer = setTimeout(() => {
      this.pendingRestarts.delete(timer);
      this.replacing.delete(timer);
      const replacement = record.isDedicated ? this.relaunch.startDedicated(record.name, 'system', decision.attempt) : this.relaunch.start(group.name, 'system', decision.attempt);
      replacement.catch((error: unknown) => log.error({ group: group.name, err: error }, 'restart failed'));
    }, decision.delayMs);
    this.pendingRestarts.set(timer, group.name);
    this.replacing.set(timer, record.name);
  }

  /**
   * The breaker tripped: the group (or dedicated service) is quarantined, durably, until an
   * operator lifts it; its replacements waiting out a backoff are called off. Every start path
   * refuses it from now on (the warm pool drains on GROUP_QUARANTINED).
   */
  private quarantine(record: ServiceRecord, group: Group, reason: string, crashes: number, code: number | null): void {
    const { bus, log } = this.deps;
    const kind = record.isDedicated ? ('dedicated' as const) : ('group' as const);
    const entry = { name: group.name, kind, reason, crashes, since: new Date().toISOString(), lastService: record.name, lastExitCode: code, diagnosis: record.diagnosis };
    try {
      this.gate.quarantines.add(entry);
    } catch (error) {
      // Held in memory all the same: a full disk must not let the loop run on.
      log.error({ group: group.name, err: error }, `the quarantine of ${group.name} could not be written (${(error as Error).message}); it holds until the controller restarts`);
    }
    this.cancelPendingRestarts(group.name);
    log.error({ group: group.name, crashes, lastService: record.name, exitCode: code, diagnosis: record.diagnosis }, quarantineRefusal(entry));
    bus.publish('GROUP_QUARANTINED', { group: group.name, kind, reason, crashes, service: record.name });
    bus.publish('API_WARNING', { message: `group ${group.name}: ${reason}; quarantined until an operator lifts it` });
  }

  /** A lifted quarantine starts from a clean history: the crashes that tripped it do not count again. */
  forgetCrashes(group: string): void {
    this.crashTimes.delete(group);
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
      this.table.move(instance, 'STOPPED');
      this.deps.bus.publish('SERVICE_STOPPED', { service: record.name });
      void this.table.cleanUp(instance);
      return;
    }
    this.table.move(instance, 'CRASHED');
    instance.handle?.close();
    this.deps.bus.publish('SERVICE_CRASHED', { service: record.name, exitCode: code ?? -1, restartAttempt: 0 });
  }
}

/**
 * A start command that cannot run at all (exit 126/127 before the server was ever READY: the
 * program is missing or not executable) fails the same way however often it is started: the
 * reason, or undefined for a crash worth a restart.
 */
function cannotRun(record: ServiceRecord, code: number | null, lines: readonly string[]): string | undefined {
  if (record.readyMono !== null) return undefined;
  const found = diagnose(code, lines);
  return found.cause === 'program-not-found' ? found.hint : undefined;
}
