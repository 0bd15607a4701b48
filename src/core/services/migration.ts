import { ApiError } from '../../errors';
import type { Actor } from '../../events/catalogue';
import type { InstanceTable } from './instances';
import { ACTIVE_STATES } from './lifecycle';
import type { ManagerDeps, RemoteNodes, StartOptions } from './manager-deps';
import type { ServiceRecord } from './registry';

/** The stop and the start a move is made of, through the manager's own entry points. */
export interface MigrationSteps {
  stop(name: string, actor: Actor, options: { drain: boolean }): Promise<void>;
  start(groupName: string, actor: Actor, restartCount: number, options: StartOptions): Promise<ServiceRecord>;
}

/** Moves of group instances between cluster nodes. */
export class Migration {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'groups'>,
    private readonly table: InstanceTable,
    private readonly remote: () => RemoteNodes | null,
    private readonly steps: MigrationSteps,
  ) {}

  /**
   * Moves a group instance to another node: the target (or the strategy's choice, never the
   * node it is on) is checked first, so a move that cannot happen leaves the service running;
   * then a graceful stop, and a start there under the same name.
   */
  async migrate(name: string, actor: Actor, target?: string): Promise<ServiceRecord> {
    const { record } = this.table.require(name);
    const nodes = this.remote();
    if (!nodes) throw new ApiError('CLUSTER_NOT_ENABLED', 'migration needs the cluster: set [cluster] enabled = true and connect an agent');
    if (record.isDedicated) throw new ApiError('SERVICE_START_FAILED', `${name} is a dedicated service: it lives in its own directory on the controller's machine and cannot move`);
    if (record.pooled || !ACTIVE_STATES.has(record.state)) throw new ApiError('SERVICE_NOT_READY', `${name} is ${record.state}; only a running instance can be migrated`);
    if (target === record.nodeId) throw new ApiError('SERVICE_START_FAILED', `${name} already runs on node ${target}`);
    const group = this.deps.groups.require(record.group);
    // Throws (NODE_NOT_FOUND, or why nothing fits) before anything is stopped.
    const destination = nodes.place(group, target ? { target } : { exclude: record.nodeId });
    await this.steps.stop(name, actor, { drain: record.playerCount > 0 });
    return this.steps.start(group.name, actor, 0, { target: destination, name });
  }
}
