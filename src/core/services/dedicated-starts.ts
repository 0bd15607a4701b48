import { stat } from 'node:fs/promises';
import { ApiError } from '../../errors';
import type { Actor } from '../../events/catalogue';
import { SOFTWARE } from '../software/kinds';
import { memoryMaxMb } from '../software/memory';
import type { Instance, InstanceTable } from './instances';
import type { InstanceLauncher } from './launch';
import { ACTIVE_STATES } from './lifecycle';
import type { DedicatedLaunch, ManagerDeps } from './manager-deps';
import { newRecord, type ServiceRecord } from './registry';
import type { SlotClaims } from './slots';
import type { StartGate } from './start-gate';

/** Starts of dedicated services: one instance at most, in its own directory, on its fixed port. */
export class DedicatedStarts {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'registry' | 'ports' | 'dedicated'>,
    private readonly table: InstanceTable,
    private readonly gate: StartGate,
    private readonly slots: SlotClaims,
    private readonly launcher: InstanceLauncher,
  ) {}

  /**
   * Starts a dedicated service: its own directory, its fixed port (a bind probe first), one
   * instance at most. Crashes restart it under its own restart policy.
   */
  async start(name: string, actor: Actor, restartCount = 0): Promise<ServiceRecord> {
    const launch = this.deps.dedicated?.launchOf(name);
    if (!launch) throw new ApiError('DEDICATED_NOT_FOUND', `dedicated service "${name}" does not exist`);
    const instance = await this.gate.lockOf(name).run(() => this.claim(name, launch, restartCount));
    return instance.queue.run(() => this.launcher.launch(instance, launch.policy, actor, () => launch.prepare(instance.record)));
  }

  /** Under the dedicated service's lock: one instance, its directory, its fixed port. */
  private async claim(name: string, launch: DedicatedLaunch, restartCount: number): Promise<Instance> {
    this.gate.refuseWhenClosedOrQuarantined(name);
    const existing = this.table.get(name);
    if (existing && ACTIVE_STATES.has(existing.record.state)) throw new ApiError('DEDICATED_ALREADY_RUNNING', `${name} is already ${existing.record.state}`);
    if (existing) await this.table.forget(name);
    if (this.deps.registry.get(name)) throw new ApiError('SERVICE_START_FAILED', `a service named ${name} already runs; rename the dedicated service`);
    if (!(await isDirectory(launch.workDir))) {
      throw new ApiError('DEDICATED_DIRECTORY_NOT_FOUND', `the directory of ${name} (${launch.workDir}) is gone; recreate it or delete and re-create the dedicated service`);
    }
    this.slots.checkPlacement(name, memoryMaxMb(launch.policy.memory));
    const port = await this.deps.ports.leaseFixed(launch.port, name);
    const kind = SOFTWARE[launch.policy.software];
    const record = newRecord({ name, group: name, port, workDir: launch.workDir, isStatic: true, isProxy: kind.isProxy, memoryMaxMb: memoryMaxMb(launch.policy.memory), restartCount });
    record.isDedicated = true;
    record.proxyEnabled = launch.proxyEnabled;
    return this.table.register(record, kind, false);
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}
