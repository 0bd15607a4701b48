import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ApiError } from '../../errors';
import type { Group } from '../groups/model';
import { SOFTWARE } from '../software/kinds';
import { memoryMaxMb } from '../software/memory';
import { machineUsage, placementProblem } from '../scaling/placement';
import type { Instance, InstanceTable } from './instances';
import type { ManagerDeps, RemoteNodes, StartOptions } from './manager-deps';
import { nextInstanceName } from './names';
import { LOCAL_NODE, newRecord } from './registry';

/**
 * Where a new group instance goes and what it is called: a node, a name, a port and a work
 * dir, registered in PREPARING. Runs under the group's lock; the caller has checked the
 * group's instance limit, this checks the machine's.
 */
export class SlotClaims {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'bus' | 'registry' | 'ports' | 'servicesDir' | 'limits'>,
    private readonly table: InstanceTable,
    private readonly remote: () => RemoteNodes | null,
  ) {}

  /**
   * `[controller] max_services` and `max_memory`: a start that does not fit is refused with
   * PLACEMENT_BLOCKED (counted in svc_placement_blocked_total) and a message naming the limit.
   */
  checkPlacement(owner: string, memoryMb: number): void {
    if (!this.deps.limits) return;
    const problem = placementProblem(this.deps.limits(), machineUsage(this.table.localRecords()), memoryMb);
    if (!problem) return;
    this.deps.bus.publish('PLACEMENT_BLOCKED', { group: owner, reason: problem });
    throw new ApiError('SERVICE_START_FAILED', `cannot start ${owner}: ${problem}`);
  }

  /** Under the group lock: a name, a port, and the record in PREPARING (limits checked by the caller). */
  async claim(group: Group, restartCount: number, pooled: boolean, options: StartOptions = {}): Promise<Instance> {
    const { registry, ports } = this.deps;
    const nodes = this.remote();
    // Warm instances stay on this machine: taking one must be instant, never a network hop.
    const nodeId = nodes && !pooled ? nodes.place(group, options) : LOCAL_NODE;
    if (nodeId === LOCAL_NODE) this.checkPlacement(group.name, memoryMaxMb(group.memory));
    const kind = SOFTWARE[group.software];
    const { name, reuses } = options.name && !registry.get(options.name) ? { name: options.name, reuses: null } : nextInstanceName(group.name, registry.ofGroup(group.name));
    if (reuses) void this.table.forget(reuses, { removeWorkDir: true }); // the new instance gets a fresh dir: no need to wait
    const isStatic = group.type === 'STATIC';
    const remote = nodeId !== LOCAL_NODE;
    // A remote instance's port and folder are the agent's to choose; they arrive with its launch report.
    const port = remote ? 0 : await ports.lease(kind.isProxy ? 'proxy' : 'backend', name);
    const workDir = remote ? '' : isStatic ? join(this.deps.servicesDir, 'static', name) : join(this.deps.servicesDir, 'temp', `${name}_${randomBytes(4).toString('hex')}`);
    const record = newRecord({ name, group: group.name, port, workDir, isStatic, isProxy: kind.isProxy, memoryMaxMb: memoryMaxMb(group.memory), restartCount });
    record.pooled = pooled;
    if (remote) {
      record.nodeId = nodeId;
      record.host = this.remote()!.hostOf(nodeId);
    }
    return this.table.register(record, kind, pooled);
  }
}
