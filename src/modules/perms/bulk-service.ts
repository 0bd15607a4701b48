import type { Author } from './author';
import { normalizeUuid } from '../../core/players/uuid';
import type { Change, Changes } from './changes';
import { checkedNode } from './groups-service';
import { UNKNOWN_NAME } from './players-service';
import { describeScope, parseScope, type ScopeInput } from './scope';

export const BULK_MAX_GROUPS = 1000;
export const BULK_MAX_PLAYERS = 10_000;

/** `{success, processed, failed, errors}`: success only when every item was done; errors read "item: why". */
export interface BulkResult {
  success: boolean;
  processed: number;
  failed: number;
  errors: string[];
}

const result = (processed: number, errors: string[]): BulkResult => ({ success: errors.length === 0, processed, failed: errors.length, errors });

/**
 * One node to many groups, or one group to many players, in one transaction: items that cannot
 * be done are listed and the rest are done. The node, the group and the scope are checked
 * first (a bad one fails the whole request with 400/404).
 */
export class BulkService {
  constructor(private readonly changes: Changes) {}

  addPermission(groupNames: string[], rawNode: string, scopeInput: ScopeInput, by: Author): BulkResult {
    const node = checkedNode(rawNode);
    const scope = parseScope(scopeInput, this.changes.now());
    const scoped = scope.server !== '' || scope.world !== '' || scope.expiresAt !== null;
    const errors: string[] = [];
    const groups = new Map<number, string>();
    for (const name of groupNames) {
      const group = this.changes.state.findGroup(name);
      if (!group) errors.push(`${name}: no permission group by that name`);
      else groups.set(group.id, group.name);
    }
    return this.changes.apply(by, () => {
      for (const id of groups.keys()) {
        this.changes.store.deleteGrantKind(id, node, !scoped);
        this.changes.store.upsertGrant(id, node, scope);
      }
      const change: Change = {
        groups: groups.keys(),
        events: [...groups.values()].map((group) => ({ type: 'PERMISSION_GROUP_UPDATED' as const, data: { group } })),
        audit: groups.size ? [{ action: 'bulk.addperm', target: [...groups.values()].join(','), details: [node, describeScope(scope)].filter(Boolean).join(' ') }] : [],
      };
      return { change, result: result(groups.size, errors) };
    });
  }

  addGroup(uuids: string[], groupName: string, scopeInput: ScopeInput, by: Author): BulkResult {
    const group = this.changes.state.group(groupName);
    const scope = parseScope(scopeInput, this.changes.now());
    const scoped = scope.server !== '' || scope.world !== '' || scope.expiresAt !== null;
    const errors: string[] = [];
    const targets = new Set<string>();
    for (const raw of uuids) {
      const uuid = normalizeUuid(raw);
      if (!uuid) errors.push(`${raw}: not a UUID`);
      else targets.add(uuid);
    }
    return this.changes.apply(by, () => {
      const ids: number[] = [];
      const change: Change = { players: ids, events: [] };
      for (const uuid of targets) {
        const known = this.changes.state.player(uuid);
        const id = known?.id ?? this.changes.store.insertPlayer(uuid, UNKNOWN_NAME);
        this.changes.store.deleteMembershipKind(id, group.id, !scoped);
        this.changes.store.upsertMembership(id, group.id, scope);
        ids.push(id);
        change.events!.push({ type: 'PLAYER_PERMISSIONS_UPDATED', data: { uuid, player: known?.name ?? UNKNOWN_NAME } });
      }
      if (ids.length) change.audit = [{ action: 'bulk.addgroup', target: group.name, details: [`${ids.length} player(s)`, describeScope(scope)].filter(Boolean).join(' ') }];
      return { change, result: result(ids.length, errors) };
    });
  }
}
