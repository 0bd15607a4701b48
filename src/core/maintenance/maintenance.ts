import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import type { GroupStore } from '../groups/store';
import { normalizeUuid } from '../players/uuid';
import { SettingsFile } from '../../config/unit/settings-file';
import { GROUP_DEFAULTS, MaintenanceFileSchema, WHITELIST_LIMIT, type GlobalMaintenance, type GroupMaintenance, type MaintenanceFile } from './model';

const HEADER = [
  'Maintenance: the global flag, per-group flags and the whitelist the proxy bridge checks at login.',
  'Managed by svc (/api/maintenance/*); hand edits load on start and on POST /api/reload.',
].join('\n');

export interface MaintenanceStatus {
  global: GlobalMaintenance;
  groups: Record<string, GroupMaintenance>;
}

/**
 * The maintenance state (config/maintenance.toml). A flag that really changes publishes
 * MAINTENANCE_ENABLED (reason only when one was given) or MAINTENANCE_DISABLED; asking for
 * the state it already has changes the reason at most and publishes nothing.
 */
export class Maintenance {
  private readonly file: SettingsFile<typeof MaintenanceFileSchema>;
  private state: MaintenanceFile;

  constructor(private readonly deps: { file: string; bus: EventBus; groups: GroupStore; log: Logger }) {
    this.file = new SettingsFile(deps.file, MaintenanceFileSchema, HEADER, deps.log);
    this.state = this.file.load();
    // A deleted group's maintenance goes with it; a new group of the same name starts clean.
    deps.bus.subscribe((event) => {
      const group = event.data.group;
      if (event.type !== 'GROUP_DELETED' || group === undefined || !(group in this.state.groups)) return;
      const { [group]: _gone, ...rest } = this.state.groups;
      this.persist({ ...this.state, groups: rest });
    });
  }

  status(): MaintenanceStatus {
    return structuredClone(this.state);
  }

  setGlobal(enabled: boolean, reason: string, actor: Actor): boolean {
    const before = this.state.global;
    this.persist({ ...this.state, global: { ...before, enabled, reason: enabled ? reason : before.reason } });
    if (before.enabled === enabled) return false;
    this.announce('global', enabled, reason, actor);
    return true;
  }

  updateGlobalTexts(change: Partial<Pick<GlobalMaintenance, 'motdLine1' | 'motdLine2' | 'protocolText' | 'kickMessage'>>): void {
    const texts = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
    this.persist({ ...this.state, global: { ...this.state.global, ...texts } });
  }

  setGroup(group: string, enabled: boolean, reason: string, actor: Actor): boolean {
    this.requireGroup(group);
    const before = this.state.groups[group] ?? GROUP_DEFAULTS;
    this.persist({ ...this.state, groups: { ...this.state.groups, [group]: { ...before, enabled, reason: enabled ? reason : before.reason } } });
    if (before.enabled === enabled) return false;
    this.announce(group, enabled, reason, actor);
    return true;
  }

  setGroupKickMessage(group: string, kickMessage: string): void {
    this.requireGroup(group);
    const before = this.state.groups[group] ?? GROUP_DEFAULTS;
    this.persist({ ...this.state, groups: { ...this.state.groups, [group]: { ...before, kickMessage } } });
  }

  /**
   * Adds a name as the operator typed it ("Notch" stays "Notch"), a uuid in its dashed
   * lower-case form. False when it was already there in any case: the first spelling stays,
   * so adding "NOTCH" after "Notch" changes nothing.
   */
  whitelistAdd(entry: string): boolean {
    const key = whitelistKey(entry);
    const list = this.state.global.whitelist;
    if (list.some((e) => whitelistKey(e) === key)) return false;
    if (list.length >= WHITELIST_LIMIT) throw new ApiError('VALIDATION_FAILED', `the maintenance whitelist is full (${WHITELIST_LIMIT} entries); remove some first`);
    this.persist({ ...this.state, global: { ...this.state.global, whitelist: [...list, normalizeUuid(entry) ?? entry] } });
    return true;
  }

  /** Removes a name or uuid, whatever its case; false when it was not there. */
  whitelistRemove(entry: string): boolean {
    const key = whitelistKey(entry);
    const list = this.state.global.whitelist;
    const kept = list.filter((e) => whitelistKey(e) !== key);
    if (kept.length === list.length) return false;
    this.persist({ ...this.state, global: { ...this.state.global, whitelist: kept } });
    return true;
  }

  isWhitelisted(nameOrUuid: string): boolean {
    const key = whitelistKey(nameOrUuid);
    return this.state.global.whitelist.some((e) => whitelistKey(e) === key);
  }

  /** Re-reads config/maintenance.toml (POST /api/reload); flags that changed on disk are announced. */
  reload(actor: Actor): boolean {
    const before = this.state;
    this.state = this.file.load();
    if (before.global.enabled !== this.state.global.enabled) this.announce('global', this.state.global.enabled, this.state.global.reason, actor);
    const names = new Set([...Object.keys(before.groups), ...Object.keys(this.state.groups)]);
    for (const name of names) {
      const was = before.groups[name]?.enabled ?? false;
      const now = this.state.groups[name]?.enabled ?? false;
      if (was !== now) this.announce(name, now, this.state.groups[name]?.reason ?? '', actor);
    }
    return JSON.stringify(before) !== JSON.stringify(this.state);
  }

  private announce(scope: string, enabled: boolean, reason: string, actor: Actor): void {
    if (enabled) this.deps.bus.publish('MAINTENANCE_ENABLED', { scope, reason: reason.trim() === '' ? undefined : reason }, actor);
    else this.deps.bus.publish('MAINTENANCE_DISABLED', { scope }, actor);
  }

  private requireGroup(group: string): void {
    if (!this.deps.groups.get(group)) throw new ApiError('GROUP_NOT_FOUND', `group "${group}" does not exist`);
  }

  private persist(next: MaintenanceFile): void {
    this.file.save(next);
    this.state = next;
  }
}

/**
 * Whitelist entries compare as lower-case dashed uuids or lower-case names (Minecraft names
 * ignore case), whatever case they are stored in; the bridge lower-cases the list it loads too.
 */
function whitelistKey(entry: string): string {
  return normalizeUuid(entry) ?? entry.toLowerCase();
}
