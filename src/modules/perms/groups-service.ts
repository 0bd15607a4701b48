import { ApiError } from '../../errors';
import { SYSTEM, type Author } from './author';
import type { Changes } from './changes';
import { isGroupName, nodeProblem, normalizeNode } from './nodes';
import { describeScope, parseScope, type ScopeInput } from './scope';
import type { GroupFields } from './store';
import type { Group } from './types';

export const TEXT_MAX = 256;
export const META_KEY_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';
export const META_VALUE_MAX = 1024;
export const NUMBER_LIMIT = 1_000_000;
const META_KEY_RE = new RegExp(META_KEY_PATTERN);

/** What PUT /groups/{name} may change; absent fields stay as they are. */
export interface GroupPatch {
  default?: boolean;
  prefix?: string;
  suffix?: string;
  priority?: number;
  weight?: number;
  /** The group's nodes: held ones keep their scopes, new ones are added unscoped, missing ones go. */
  permissions?: string[];
  /** Parent group names, replacing the current ones. */
  parents?: string[];
  /** Replaces the whole meta map. */
  meta?: Record<string, string>;
}

const invalid = (message: string) => new ApiError('VALIDATION_FAILED', message);

/** A node as stored, or 400 naming what is wrong with it. */
export function checkedNode(raw: string): string {
  const node = normalizeNode(raw);
  const problem = nodeProblem(node);
  if (problem) throw invalid(problem);
  return node;
}

export function checkMeta(key: string, value: string): void {
  if (!META_KEY_RE.test(key)) throw invalid(`meta key "${key}" must be 1–128 of letters, digits and _ . : -`);
  if (value.length > META_VALUE_MAX) throw invalid(`meta value of "${key}" has more than ${META_VALUE_MAX} characters`);
}

function checkText(field: string, value: string): void {
  if (value.length > TEXT_MAX) throw invalid(`${field} has more than ${TEXT_MAX} characters`);
  if (/[\r\n]/.test(value)) throw invalid(`${field} must be one line`);
}

function checkNumber(field: string, value: number): void {
  if (!Number.isInteger(value) || Math.abs(value) > NUMBER_LIMIT) throw invalid(`${field} must be a whole number between -${NUMBER_LIMIT} and ${NUMBER_LIMIT}`);
}

/** Creating, editing and deleting groups, their nodes and their meta. */
export class GroupService {
  constructor(private readonly changes: Changes) {}

  private get state() {
    return this.changes.state;
  }
  private get store() {
    return this.changes.store;
  }

  /** On a first start (no group at all): `Default` for everyone and `Admin` with `*`. */
  bootstrap(): boolean {
    if (this.state.groups().length > 0) return false;
    this.changes.apply(SYSTEM, () => {
      const fallback = this.store.insertGroup('Default', true, { prefix: '&9[User] &7', suffix: '', priority: 0, weight: 0 });
      const admin = this.store.insertGroup('Admin', false, { prefix: '&c[Admin] &7', suffix: '', priority: 100, weight: 100 });
      this.store.upsertGrant(admin, '*', { server: '', world: '', expiresAt: null });
      return { change: { groups: [fallback, admin], audit: [{ action: 'group.create', target: 'Default', details: 'default' }, { action: 'group.create', target: 'Admin', details: '*' }] }, result: undefined };
    });
    return true;
  }

  create(name: string, isDefault: boolean, by: Author): Group {
    if (!isGroupName(name)) throw invalid(`group name "${name}" must be 1–64 of letters, digits, _ and -`);
    const taken = this.state.findGroup(name);
    if (taken) throw new ApiError('GROUP_ALREADY_EXISTS', `a permission group named "${taken.name}" already exists`);
    this.changes.apply(by, () => {
      const id = this.store.insertGroup(name, false, { prefix: '', suffix: '', priority: 0, weight: 0 });
      if (isDefault) this.store.setDefault(id);
      const previous = isDefault ? this.state.defaultGroup() : undefined;
      return {
        change: {
          groups: previous ? [id, previous.id] : [id],
          events: [{ type: 'PERMISSION_GROUP_CREATED', data: { group: name } }],
          audit: [{ action: 'group.create', target: name, details: isDefault ? 'default' : '' }],
        },
        result: undefined,
      };
    });
    return this.state.group(name);
  }

  update(name: string, patch: GroupPatch, by: Author): Group {
    const group = this.state.group(name);
    const fields = Object.keys(patch).filter((k) => patch[k as keyof GroupPatch] !== undefined);
    if (fields.length === 0) throw new ApiError('NO_FIELDS_TO_UPDATE', 'send at least one of default, prefix, suffix, priority, weight, permissions, parents, meta');

    const display: GroupFields = {
      prefix: patch.prefix ?? group.prefix,
      suffix: patch.suffix ?? group.suffix,
      priority: patch.priority ?? group.priority,
      weight: patch.weight ?? group.weight,
    };
    checkText('prefix', display.prefix);
    checkText('suffix', display.suffix);
    checkNumber('priority', display.priority);
    checkNumber('weight', display.weight);
    if (patch.default === false && group.isDefault) throw invalid(`"${group.name}" is the default group; make another group the default instead`);
    const nodes = patch.permissions === undefined ? undefined : [...new Set(patch.permissions.map(checkedNode))];
    const parents = patch.parents === undefined ? undefined : this.checkedParents(group, patch.parents);
    if (patch.meta !== undefined) for (const [key, value] of Object.entries(patch.meta)) checkMeta(key, value);

    this.changes.apply(by, () => {
      const previousDefault = patch.default === true && !group.isDefault ? this.state.defaultGroup() : undefined;
      this.store.updateGroup(group.id, display);
      if (patch.default === true) this.store.setDefault(group.id);
      if (nodes) {
        const wanted = new Set(nodes);
        const held = new Set(group.grants.map((g) => g.node));
        for (const node of held) if (!wanted.has(node)) this.store.deleteGrants(group.id, node);
        for (const node of wanted) if (!held.has(node)) this.store.upsertGrant(group.id, node, { server: '', world: '', expiresAt: null });
      }
      if (parents) this.store.setParents(group.id, parents.map((p) => p.id));
      if (patch.meta !== undefined) {
        this.store.deleteGroupMeta(group.id);
        for (const [key, value] of Object.entries(patch.meta)) this.store.setGroupMeta(group.id, key, value);
      }
      return {
        change: {
          groups: previousDefault ? [group.id, previousDefault.id] : [group.id],
          events: [{ type: 'PERMISSION_GROUP_UPDATED', data: { group: group.name } }],
          audit: [{ action: 'group.update', target: group.name, details: fields.join(',') }],
        },
        result: undefined,
      };
    });
    return this.state.group(group.name);
  }

  delete(name: string, by: Author): void {
    const group = this.state.group(name);
    if (group.isDefault) throw invalid(`"${group.name}" is the default group and cannot be deleted; make another group the default first`);
    const children = this.state.groups().filter((g) => g.parents.includes(group.key)).map((g) => g.id);
    this.changes.apply(by, () => {
      const members = this.store.membersOf(group.id);
      this.store.deleteGroup(group.id);
      return {
        change: {
          groups: [group.id, ...children],
          players: members,
          tracks: true,
          events: [{ type: 'PERMISSION_GROUP_DELETED', data: { group: group.name } }],
          audit: [{ action: 'group.delete', target: group.name }],
        },
        result: undefined,
      };
    });
  }

  /**
   * Adds a node. Unscoped, it replaces the node's scoped rows; scoped, it replaces the unscoped
   * row. Giving the same server and world again only sets the new expiry (idempotent).
   */
  addPermission(name: string, rawNode: string, scopeInput: ScopeInput, by: Author): void {
    const group = this.state.group(name);
    const node = checkedNode(rawNode);
    const scope = parseScope(scopeInput, this.changes.now());
    const scoped = scope.server !== '' || scope.world !== '' || scope.expiresAt !== null;
    this.changes.apply(by, () => {
      this.store.deleteGrantKind(group.id, node, !scoped);
      this.store.upsertGrant(group.id, node, scope);
      return {
        change: {
          groups: [group.id],
          events: [{ type: 'PERMISSION_GROUP_UPDATED', data: { group: group.name } }],
          audit: [{ action: 'group.addperm', target: group.name, details: [node, describeScope(scope)].filter(Boolean).join(' ') }],
        },
        result: undefined,
      };
    });
  }

  /** Removes a node with every scope, or only the row with this server and world. Absent: nothing changes, still 200. */
  removePermission(name: string, rawNode: string, only: { server?: string | null; world?: string | null } | undefined, by: Author): boolean {
    const group = this.state.group(name);
    const node = checkedNode(rawNode);
    const exact = only && (only.server || only.world) ? parseScope({ server: only.server, world: only.world }, this.changes.now()) : undefined;
    return this.changes.apply(by, () => {
      const removed = this.store.deleteGrants(group.id, node, exact);
      if (removed === 0) return { change: {}, result: false };
      return {
        change: {
          groups: [group.id],
          events: [{ type: 'PERMISSION_GROUP_UPDATED', data: { group: group.name } }],
          audit: [{ action: 'group.removeperm', target: group.name, details: [node, exact && describeScope(exact)].filter(Boolean).join(' ') }],
        },
        result: true,
      };
    });
  }

  setMeta(name: string, key: string, value: string, by: Author): void {
    const group = this.state.group(name);
    checkMeta(key, value);
    this.changes.apply(by, () => {
      this.store.setGroupMeta(group.id, key, value);
      return {
        change: {
          groups: [group.id],
          events: [{ type: 'PERMISSION_GROUP_UPDATED', data: { group: group.name } }],
          audit: [{ action: 'group.meta.set', target: group.name, details: `${key}=${value}` }],
        },
        result: undefined,
      };
    });
  }

  removeMeta(name: string, key: string, by: Author): boolean {
    const group = this.state.group(name);
    return this.changes.apply(by, () => {
      if (this.store.deleteGroupMeta(group.id, key) === 0) return { change: {}, result: false };
      return {
        change: {
          groups: [group.id],
          events: [{ type: 'PERMISSION_GROUP_UPDATED', data: { group: group.name } }],
          audit: [{ action: 'group.meta.remove', target: group.name, details: key }],
        },
        result: true,
      };
    });
  }

  /** Existing groups, without repeats, none of which already inherits from `group` (no cycle). */
  private checkedParents(group: Group, names: string[]): Group[] {
    const parents: Group[] = [];
    for (const name of names) {
      const parent = this.state.findGroup(name);
      if (!parent) throw invalid(`parent "${name}" is not a permission group`);
      if (parent.id === group.id) throw invalid(`"${group.name}" cannot be its own parent`);
      if (this.inherits(parent, group.key)) throw invalid(`"${parent.name}" already inherits from "${group.name}"; making it a parent would close a cycle`);
      if (!parents.some((p) => p.id === parent.id)) parents.push(parent);
    }
    return parents;
  }

  /** Whether `from` reaches the group `key` through its parents. */
  private inherits(from: Group, key: string): boolean {
    const seen = new Set<string>();
    const stack = [from.key];
    while (stack.length > 0) {
      const current = this.state.groupByKey(stack.pop()!);
      if (!current || seen.has(current.key)) continue;
      seen.add(current.key);
      if (current.parents.includes(key)) return true;
      stack.push(...current.parents);
    }
    return false;
  }
}
