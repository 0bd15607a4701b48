import { ApiError } from '../../errors';
import type { Actor } from '../../events/catalogue';
import type { Instance, InstanceTable } from './instances';
import type { InstanceLauncher } from './launch';
import type { ManagerDeps } from './manager-deps';
import type { ProcessWatch } from './process-watch';
import type { ServiceRecord } from './registry';
import type { SlotClaims } from './slots';
import type { StartGate } from './start-gate';

/** A forced stop, as the manager runs it (queued behind the instance's other actions). */
export type ForcedStop = (name: string, actor: Actor, options: { force: boolean }) => Promise<void>;

/**
 * A group's warm pool: instances booted ahead of need and kept out of routing, taken by a
 * start instead of booting a new one, drained when the group changes.
 */
export class WarmClaims {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'bus' | 'log' | 'registry' | 'groups' | 'preparer'>,
    private readonly table: InstanceTable,
    private readonly gate: StartGate,
    private readonly slots: SlotClaims,
    private readonly launcher: InstanceLauncher,
    private readonly watcher: ProcessWatch,
    private readonly stop: ForcedStop,
  ) {}

  /**
   * Boots one warm-pool instance of a group: files, process and boot as for a start, but it
   * stays out of routing (PREPARING, then PREPARED with SERVICE_PREPARED once its ready line
   * came) until a start takes it. Resolves once it is PREPARED or taken; rejects when it
   * dies or does not boot in time. The pool never makes running + pooled exceed maxInstances.
   */
  async prepareWarm(groupName: string): Promise<ServiceRecord> {
    const { instance, group } = await this.gate.lockOf(groupName).run(async () => {
      // Read under the lock: a group deleted (or changed) while this waited gets no new instance.
      const group = this.deps.groups.require(groupName);
      this.gate.refuseWhenClosedOrQuarantined(group.name);
      const { registry } = this.deps;
      if (registry.runningInstances(group.name) + registry.poolOf(group.name).length >= group.maxInstances) {
        throw new ApiError('SERVICE_START_FAILED', `group ${group.name} has no room for a warm instance below its maximum of ${group.maxInstances}`);
      }
      return { instance: await this.slots.claim(group, 0, true), group };
    });
    await instance.queue.run(() => this.launcher.launch(instance, group, 'system', () => this.deps.preparer.prepare(group, instance.record)));
    await instance.warming?.promise;
    return instance.record;
  }

  /** Stops the group's warm pool (group deleted or changed: its booted instances are stale). */
  async drainPool(groupName: string): Promise<number> {
    // Taken under the group's lock, so a warm claim in flight is in the list rather than missed.
    const pool = await this.gate.lockOf(groupName).run(async () => this.deps.registry.poolOf(groupName));
    await Promise.all(pool.map((record) => this.stop(record.name, 'system', { force: true }).catch((error: unknown) => this.deps.log.warn({ service: record.name, err: error }, 'could not stop a warm instance'))));
    return pool.length;
  }

  /**
   * Under the group lock: the pool instance a start takes, booted ones first; it leaves the pool
   * at once so no other start takes it too.
   */
  take(group: string): Instance | null {
    const candidates = this.deps.registry
      .poolOf(group)
      .map((record) => this.table.get(record.name))
      .filter((instance): instance is Instance => Boolean(instance?.handle?.isAlive()));
    const taken = candidates.find((i) => i.record.state === 'PREPARED') ?? candidates[0];
    if (!taken) return null;
    taken.record.pooled = false;
    return taken;
  }

  /** A start served from the pool: a booted instance is READY at once, a booting one STARTING. */
  async activate(instance: Instance, actor: Actor): Promise<ServiceRecord> {
    const { record } = instance;
    if (!instance.handle?.isAlive() || (record.state !== 'PREPARED' && record.state !== 'PREPARING')) {
      throw new ApiError('SERVICE_START_FAILED', `${record.name} ended before it could be started (${record.diagnosis ?? record.state})`);
    }
    const booted = record.state === 'PREPARED';
    this.table.move(instance, 'STARTING');
    instance.warming?.resolve();
    this.deps.bus.publish('SERVICE_STARTING', { service: record.name, group: record.group, port: record.port }, actor);
    this.deps.log.info({ service: record.name }, booted ? 'started from the warm pool (already booted)' : 'started from the warm pool (still booting)');
    if (booted) this.watcher.markReady(instance);
    return record;
  }
}
