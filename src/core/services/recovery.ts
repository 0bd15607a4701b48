import { monotonicNow } from '../time/monotonic';
import { SOFTWARE } from '../software/kinds';
import { memoryMaxMb } from '../software/memory';
import type { InstanceTable } from './instances';
import type { ServiceState } from './lifecycle';
import type { ManagerDeps, ProcessLauncher, RemoteNodes } from './manager-deps';
import type { ProcessWatch, UnexpectedExit } from './process-watch';
import { LOCAL_NODE, newRecord } from './registry';
import type { PersistedService } from './state-file';

/** After a controller restart: the services the last controller left, adopted again from the state file. */
export class Recovery {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'bus' | 'log' | 'groups' | 'ports' | 'launcher' | 'stateFile' | 'dedicated'>,
    private readonly table: InstanceTable,
    private readonly watcher: ProcessWatch,
    private readonly onUnexpectedExit: UnexpectedExit,
    private readonly remote: () => RemoteNodes | null,
  ) {}

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
        record.host = this.remote()!.hostOf(entry.nodeId);
      }
      const instance = this.table.register(record, kind, record.pooled && record.state === 'PREPARING');
      if (outcome.kind === 'ended') {
        this.deps.log.warn({ service: record.name, exitCode: outcome.exit.code }, 'ended while the controller was away');
        this.onUnexpectedExit(instance, group, outcome.exit.code);
        continue;
      }
      instance.handle = outcome.handle;
      if (record.nodeId === LOCAL_NODE) this.deps.ports.adopt(record.port, record.name);
      record.pid = outcome.handle.pid;
      record.startedAt = outcome.handle.startedAt;
      if (record.state === 'READY') {
        record.readyAt = new Date();
        record.readyMono = monotonicNow();
      }
      this.watcher.watch(instance, group);
      // It may have become READY while no controller watched: its earlier lines say so.
      const pattern = new RegExp(group.readyPattern || kind.readyPattern);
      if ((record.state === 'STARTING' || record.state === 'PREPARING') && outcome.handle.lastLines(1000).some((line) => pattern.test(line))) this.watcher.bootFinished(instance);
      this.deps.bus.publish('SERVICE_RECOVERED', { service: record.name, group: record.group, pid: record.pid, port: record.port });
      this.deps.log.info({ service: record.name, pid: record.pid, port: record.port }, 'recovered a running service');
    }
    this.table.persistNow();
  }

  /** A local service's process found again from its state dir; a remote one handed to the cluster, which binds it when its node reports it. */
  private async reattachEntry(entry: PersistedService): ReturnType<ProcessLauncher['reattach']> {
    if (!entry.nodeId || entry.nodeId === LOCAL_NODE) {
      return this.deps.launcher.reattach(entry.stateDir).catch((error: unknown) => ({ kind: 'unknown' as const, reason: String(error) }));
    }
    const nodes = this.remote();
    if (!nodes) return { kind: 'unknown', reason: `it ran on node ${entry.nodeId} and the cluster is not enabled` };
    return { kind: 'attached', handle: nodes.recover({ name: entry.name, nodeId: entry.nodeId, pid: entry.pid ?? 0, startedAt: new Date(entry.startedAt ?? Date.now()) }) };
  }
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
