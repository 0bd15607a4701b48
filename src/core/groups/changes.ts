import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Group, GroupBody, GroupPatch } from './model';
import type { GroupStore } from './store';

export interface GroupChangesDeps {
  groups: GroupStore;
  bus: EventBus;
  /** A dedicated service's record carries its own name as its group: one name, one owner. */
  dedicated: { get(name: string): unknown };
  /** Deletion only: instances of the group that run (a delete is refused while any does). */
  runningInstances?: (group: string) => number;
  /** Deletion only: the group's warm pool is not "running": it goes with the group. */
  drainPool?: (group: string) => Promise<unknown>;
}

/**
 * The one way a group is created, changed or deleted, from the API, the console or a modpack
 * import: the file is written (atomically, GroupStore) and memory updated, then GROUP_CREATED,
 * GROUP_UPDATED or GROUP_DELETED is published with the actor, only once the change is
 * durable. Checks that depend on who asks (admin-only host fields) stay with the caller.
 * Two announce on their own, for a reason: a reload (reload.ts) announces what it found changed
 * on disk (it writes nothing), and a proxy update (core/proxy/updates) writes a group's version
 * inside its jar swap and announces GROUP_UPDATED only once the swap is committed.
 */
export class GroupChanges {
  constructor(private readonly deps: GroupChangesDeps) {}

  /** 409 GROUP_ALREADY_EXISTS for a name a group or a dedicated service has; 400 for a bad body. */
  create(body: GroupBody, actor: Actor): Group {
    const { groups, bus, dedicated } = this.deps;
    if (dedicated.get(body.name)) throw new ApiError('GROUP_ALREADY_EXISTS', `a dedicated service is named ${body.name}; pick another group name`);
    const group = groups.create(body);
    bus.publish('GROUP_CREATED', { group: group.name }, actor);
    return group;
  }

  /** What the patch carries replaces, the rest stays (GroupStore.update); 404 for an unknown group. */
  update(name: string, patch: GroupPatch, actor: Actor): Group {
    const group = this.deps.groups.update(name, patch);
    this.deps.bus.publish('GROUP_UPDATED', { group: group.name }, actor);
    return group;
  }

  /**
   * 404 for an unknown group, 409 GROUP_HAS_RUNNING_INSTANCES while instances run. The
   * definition goes before the warm pool is drained, so the pool cannot refill meanwhile.
   */
  async delete(name: string, actor: Actor): Promise<void> {
    const { groups, bus, runningInstances, drainPool } = this.deps;
    groups.require(name);
    const running = runningInstances?.(name) ?? 0;
    if (running > 0) throw new ApiError('GROUP_HAS_RUNNING_INSTANCES', `group ${name} has ${running} running instance(s): stop them first`);
    groups.delete(name);
    await drainPool?.(name);
    bus.publish('GROUP_DELETED', { group: name }, actor);
  }
}

/** What the controller's kernel holds for groups; routes and console commands pass the kernel. */
export interface GroupOwners {
  groups: GroupStore;
  bus: EventBus;
  dedicated: { get(name: string): unknown };
  services: { runningInstances(group: string): number };
  manager: { drainPool(group: string): Promise<unknown> };
}

/** GroupChanges over the controller's own stores, deletion included. */
export function groupChanges(owners: GroupOwners): GroupChanges {
  return new GroupChanges({
    groups: owners.groups,
    bus: owners.bus,
    dedicated: owners.dedicated,
    runningInstances: (group) => owners.services.runningInstances(group),
    drainPool: (group) => owners.manager.drainPool(group),
  });
}
