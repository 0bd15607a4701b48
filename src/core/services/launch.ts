import { ApiError } from '../../errors';
import type { Actor } from '../../events/catalogue';
import type { Group } from '../groups/model';
import type { Instance, InstanceTable } from './instances';
import type { CommandPlan, ManagerDeps, RemoteNodes } from './manager-deps';
import type { ProcessWatch } from './process-watch';
import { LOCAL_NODE, type ServiceRecord } from './registry';
import type { StartGate } from './start-gate';

/**
 * The second half of every start (group, warm, dedicated): the files and the process of a
 * claimed instance, on this machine or on its node, then watched. A failure leaves it CRASHED
 * with the reason as its diagnosis.
 */
export class InstanceLauncher {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'bus' | 'log' | 'ports' | 'launcher' | 'stateSync'>,
    private readonly table: InstanceTable,
    private readonly gate: StartGate,
    private readonly watcher: ProcessWatch,
    private readonly remote: () => RemoteNodes | null,
  ) {}

  /** In the service's queue: templates and patches into the work dir, then the process. */
  async launch(instance: Instance, group: Group, actor: Actor, prepare: () => Promise<CommandPlan>): Promise<ServiceRecord> {
    const { record } = instance;
    const { name, port, workDir } = record;
    const { ports, bus } = this.deps;
    try {
      if (this.gate.closed) throw new ApiError('SERVICE_START_FAILED', 'the controller is shutting down');
      if (record.nodeId !== LOCAL_NODE) {
        const launched = await this.remote()!.launch(record.nodeId, group, { name, isStatic: record.isStatic });
        instance.handle = launched.handle;
        record.port = launched.port;
      } else {
        // Nothing a previous run left may write into the folder while it is prepared again.
        await this.deps.launcher.vacate?.(name);
        if (record.isStatic && !record.isDedicated && group.syncEnabled && this.deps.stateSync) await this.deps.stateSync.pull(name, workDir, group.syncExcludes);
        const plan = await prepare();
        const notice = (message: string) => this.deps.log.warn({ service: name }, message);
        instance.handle = await this.deps.launcher.launch({ name, workDir, argv: plan.argv, env: plan.env, notice });
      }
    } catch (error) {
      const reason = error instanceof ApiError ? error.message : `could not start: ${(error as Error).message}`;
      record.diagnosis = reason;
      this.table.move(instance, 'CRASHED');
      ports.release(name);
      instance.warming?.reject(new Error(reason));
      this.deps.log.error({ service: name, err: error }, 'start failed');
      throw new ApiError('SERVICE_START_FAILED', `${name}: ${reason}`);
    }
    record.pid = instance.handle.pid;
    record.startedAt = instance.handle.startedAt;
    if (record.pooled) {
      this.table.persistNow(); // a new process is on disk before anything else happens
    } else {
      this.table.move(instance, 'STARTING');
      bus.publish('SERVICE_STARTING', { service: name, group: group.name, port: record.port }, actor);
    }
    this.watcher.watch(instance, group);
    return record;
  }
}
