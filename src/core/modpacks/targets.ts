import type { DedicatedTarget } from './install-dedicated';
import type { GroupTarget } from './install-group';

/**
 * Where an import puts a pack: a new group (templates/<group> and the group), a new dedicated
 * service, or an existing dedicated service's directory. Every way a pack arrives (by id from a
 * host, a one-shot upload, a chunked upload's finalize) is one implementation in Modpacks, given
 * one of these; the routes differ only in which they build.
 */
export type ModpackTarget =
  | { kind: 'group'; group: GroupTarget }
  | { kind: 'dedicated'; dedicated: DedicatedTarget }
  | { kind: 'dedicated-update'; name: string; replaceMods: boolean };

/** A new group from the group fields of a request (whatever else it carries is left out). */
export function intoNewGroup({ groupName, type, memory, minInstances, maxInstances }: GroupTarget): ModpackTarget {
  return { kind: 'group', group: { groupName, type, memory, minInstances, maxInstances } };
}

/** A new dedicated service from the dedicated fields of a request (whatever else it carries is left out). */
export function intoNewDedicated({ name, port, memory, proxyEnabled }: DedicatedTarget): ModpackTarget {
  return { kind: 'dedicated', dedicated: { name, port, memory, proxyEnabled } };
}

/** The existing, stopped dedicated service `name`; its mods/ is emptied first unless replaceMods is false. */
export function intoDedicated(name: string, replaceMods: boolean | undefined): ModpackTarget {
  return { kind: 'dedicated-update', name, replaceMods: replaceMods ?? true };
}

/** The group or service a target names. */
export function targetName(target: ModpackTarget): string {
  return target.kind === 'group' ? target.group.groupName : target.kind === 'dedicated' ? target.dedicated.name : target.name;
}
