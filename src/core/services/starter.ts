import { ApiError } from '../../errors';
import type { Actor } from '../../events/catalogue';
import type { InstanceLauncher } from './launch';
import type { ManagerDeps, StartOptions } from './manager-deps';
import type { ServiceRecord } from './registry';
import type { SlotClaims } from './slots';
import type { StartGate } from './start-gate';
import type { WarmClaims } from './warm-claims';

/** Starts of group instances: a warm one taken from the pool when there is one, else a new one. */
export class GroupStarter {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'registry' | 'groups' | 'preparer'>,
    private readonly gate: StartGate,
    private readonly slots: SlotClaims,
    private readonly warm: WarmClaims,
    private readonly launcher: InstanceLauncher,
  ) {}

  /**
   * Starts one new instance of a group; resolves once its process runs (STARTING). The group
   * lock covers only the choices that must not race (limit, name, port); the files and the
   * spawn run outside it, in the new service's own queue, so starts of one group overlap.
   */
  async start(groupName: string, actor: Actor, restartCount = 0, options: StartOptions = {}): Promise<ServiceRecord> {
    const group = this.deps.groups.require(groupName);
    const claim = await this.gate.lockOf(groupName).run(async () => {
      this.gate.refuseWhenClosedOrQuarantined(group.name);
      const running = this.deps.registry.runningInstances(group.name);
      if (running >= group.maxInstances) {
        throw new ApiError('SERVICE_START_FAILED', `group ${group.name} is at its maximum of ${group.maxInstances} instance(s)`);
      }
      const warm = options.target || options.exclude || options.name ? null : this.warm.take(group.name);
      return warm ? { instance: warm, warm: true } : { instance: await this.slots.claim(group, restartCount, false, options), warm: false };
    });
    const { instance } = claim;
    if (claim.warm) return instance.queue.run(() => this.warm.activate(instance, actor));
    return instance.queue.run(() => this.launcher.launch(instance, group, actor, () => this.deps.preparer.prepare(group, instance.record)));
  }
}
