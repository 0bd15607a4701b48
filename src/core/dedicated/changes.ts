import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import { ACTIVE_STATES, type ServiceState } from '../services/lifecycle';
import type { Dedicated, DedicatedBody, DedicatedPatch } from './model';
import type { DedicatedStore } from './store';

/** What deletion needs to know of a dedicated service's registry record (running, crashed, stopping). */
export interface DedicatedRecordState {
  state: ServiceState;
}

export interface DedicatedChangesDeps {
  dedicated: DedicatedStore;
  bus: EventBus;
  /** Deletion only: the service's registry record, when it has one (a delete is refused while it is active). */
  recordOf?: (name: string) => DedicatedRecordState | undefined;
  /** Deletion only: clears the record a deleted config leaves (a crashed record would otherwise outlive its config). */
  stop?: (name: string, actor: Actor) => Promise<unknown>;
}

/**
 * The one way a dedicated service's config is created, changed or deleted, from the API or a
 * modpack import: the file is written (atomically, DedicatedStore) and memory updated, then
 * DEDICATED_CREATED or DEDICATED_DELETED is published with the actor, only once the change is
 * durable. The catalogue has no event for an update (a change applies at the service's next
 * start), so update writes and publishes nothing, as before. Checks that depend on who asks
 * (admin-only host fields) stay with the caller.
 * One writes on its own, for a reason: a proxy update (core/proxy/updates/apply.ts) writes a
 * dedicated proxy's version inside its jar swap, through the store, so that a failed write
 * puts the previous jar back; it announces no dedicated event.
 */
export class DedicatedChanges {
  constructor(private readonly deps: DedicatedChangesDeps) {}

  /**
   * Provisions the directory, writes the file (DedicatedStore.create), then publishes
   * DEDICATED_CREATED. 409 DEDICATED_ALREADY_EXISTS / DEDICATED_PORT_IN_USE, 400 for a bad body
   * or a group's name: nothing written, nothing published.
   */
  create(body: DedicatedBody, actor: Actor): Dedicated {
    const config = this.deps.dedicated.create(body);
    this.deps.bus.publish('DEDICATED_CREATED', { name: config.name }, actor);
    return config;
  }

  /** What the patch carries replaces, the rest stays (DedicatedStore.update); 404 for an unknown service. No event. */
  update(name: string, patch: DedicatedPatch): Dedicated {
    return this.deps.dedicated.update(name, patch);
  }

  /**
   * 404 for an unknown service, 409 DEDICATED_ALREADY_RUNNING while it is active. The file goes
   * (the directory, its world, stays), then a leftover record is cleared (a failure to clear it
   * is ignored: the config is gone either way), then DEDICATED_DELETED is published.
   */
  async delete(name: string, actor: Actor): Promise<void> {
    const { dedicated, bus, recordOf, stop } = this.deps;
    dedicated.require(name);
    const record = recordOf?.(name);
    if (record && ACTIVE_STATES.has(record.state)) throw new ApiError('DEDICATED_ALREADY_RUNNING', `dedicated service ${name} is ${record.state}: stop it first`);
    dedicated.delete(name);
    if (record) await stop?.(name, actor).catch(() => undefined);
    bus.publish('DEDICATED_DELETED', { name }, actor);
  }
}

/** What the controller's kernel holds for dedicated services; routes pass the kernel. */
export interface DedicatedOwners {
  dedicated: DedicatedStore;
  bus: EventBus;
  services: { get(name: string): (DedicatedRecordState & { isDedicated: boolean }) | undefined };
  manager: { stop(name: string, actor: Actor): Promise<unknown> };
}

/** DedicatedChanges over the controller's own stores, deletion included (only a dedicated record counts). */
export function dedicatedChanges(owners: DedicatedOwners): DedicatedChanges {
  return new DedicatedChanges({
    dedicated: owners.dedicated,
    bus: owners.bus,
    recordOf: (name) => {
      const record = owners.services.get(name);
      return record?.isDedicated ? record : undefined;
    },
    stop: (name, actor) => owners.manager.stop(name, actor),
  });
}
