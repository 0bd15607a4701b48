import type { Database } from 'bun:sqlite';
import type { Grant, Group, Membership, PermPlayer, Scope, Track } from './types';

export interface GroupFields {
  prefix: string;
  suffix: string;
  priority: number;
  weight: number;
}

export interface AuditRow {
  at: number;
  actor: string;
  action: string;
  target: string;
  details: string;
}

export interface AuditFilter {
  action?: string;
  target?: string;
  actor?: string;
}

/** What the expiry sweep deleted: the groups and players whose rows went. */
export interface Expired {
  groups: { id: number; node: string; server: string; world: string }[];
  memberships: { playerId: number; groupId: number; server: string; world: string }[];
}

interface GroupRow {
  id: number;
  name: string;
  isDefault: number;
  prefix: string;
  suffix: string;
  priority: number;
  weight: number;
}

const GROUP_COLUMNS = 'id, name, is_default AS isDefault, prefix, suffix, priority, weight';

/**
 * The module's tables. Every method is one statement; callers wrap multi-row changes in
 * `transaction` and reload what they changed (`group`, `player`), so memory always equals disk.
 */
export class PermStore {
  constructor(private readonly db: Database) {}

  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  // ---- loading ---------------------------------------------------------------------------

  groups(): Group[] {
    const rows = this.db.query<GroupRow, []>(`SELECT ${GROUP_COLUMNS} FROM perm_groups ORDER BY id`).all();
    const parents = this.grouped(
      this.db.query<{ owner: number; key: string }, []>('SELECT p.group_id AS owner, lower(g.name) AS key FROM perm_group_parents p JOIN perm_groups g ON g.id = p.parent_id ORDER BY p.group_id, p.position').all(),
      (r) => r.key,
    );
    const grants = this.grouped(this.db.query<GrantRow, []>(`SELECT group_id AS owner, ${GRANT_COLUMNS} FROM perm_group_grants ORDER BY group_id, rowid`).all(), toGrant);
    const meta = this.grouped(this.db.query<MetaRow, []>('SELECT group_id AS owner, key, value FROM perm_group_meta ORDER BY group_id, key').all(), (r) => r);
    return rows.map((row) => toGroup(row, parents.get(row.id) ?? [], grants.get(row.id) ?? [], meta.get(row.id) ?? []));
  }

  group(id: number): Group | undefined {
    const row = this.db.query<GroupRow, [number]>(`SELECT ${GROUP_COLUMNS} FROM perm_groups WHERE id = ?`).get(id);
    if (!row) return undefined;
    const parents = this.db
      .query<{ key: string }, [number]>('SELECT lower(g.name) AS key FROM perm_group_parents p JOIN perm_groups g ON g.id = p.parent_id WHERE p.group_id = ? ORDER BY p.position')
      .all(id)
      .map((r) => r.key);
    const grants = this.db.query<GrantRow, [number]>(`SELECT group_id AS owner, ${GRANT_COLUMNS} FROM perm_group_grants WHERE group_id = ? ORDER BY rowid`).all(id).map(toGrant);
    const meta = this.db.query<MetaRow, [number]>('SELECT group_id AS owner, key, value FROM perm_group_meta WHERE group_id = ? ORDER BY key').all(id);
    return toGroup(row, parents, grants, meta);
  }

  players(): PermPlayer[] {
    const rows = this.db.query<{ id: number; uuid: string; name: string }, []>('SELECT id, uuid, name FROM perm_players ORDER BY id').all();
    const memberships = this.grouped(this.db.query<MembershipRow, []>(`SELECT m.player_id AS owner, ${MEMBERSHIP_COLUMNS} ORDER BY m.player_id, m.seq`).all(), toMembership);
    const meta = this.grouped(this.db.query<MetaRow, []>('SELECT player_id AS owner, key, value FROM perm_player_meta ORDER BY player_id, key').all(), (r) => r);
    return rows.map((r) => ({ ...r, memberships: memberships.get(r.id) ?? [], meta: toMeta(meta.get(r.id) ?? []) }));
  }

  player(id: number): PermPlayer | undefined {
    const row = this.db.query<{ id: number; uuid: string; name: string }, [number]>('SELECT id, uuid, name FROM perm_players WHERE id = ?').get(id);
    if (!row) return undefined;
    const memberships = this.db.query<MembershipRow, [number]>(`SELECT m.player_id AS owner, ${MEMBERSHIP_COLUMNS} WHERE m.player_id = ? ORDER BY m.seq`).all(id).map(toMembership);
    const meta = this.db.query<MetaRow, [number]>('SELECT player_id AS owner, key, value FROM perm_player_meta WHERE player_id = ? ORDER BY key').all(id);
    return { ...row, memberships, meta: toMeta(meta) };
  }

  tracks(): Track[] {
    const rows = this.db.query<{ id: number; name: string }, []>('SELECT id, name FROM perm_tracks ORDER BY id').all();
    const groups = this.grouped(
      this.db.query<{ owner: number; key: string }, []>('SELECT t.track_id AS owner, lower(g.name) AS key FROM perm_track_groups t JOIN perm_groups g ON g.id = t.group_id ORDER BY t.track_id, t.position').all(),
      (r) => r.key,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, key: r.name.toLowerCase(), groups: groups.get(r.id) ?? [] }));
  }

  // ---- groups ----------------------------------------------------------------------------

  insertGroup(name: string, isDefault: boolean, fields: GroupFields): number {
    return Number(
      this.db
        .query('INSERT INTO perm_groups (name, is_default, prefix, suffix, priority, weight) VALUES (?, ?, ?, ?, ?, ?)')
        .run(name, isDefault ? 1 : 0, fields.prefix, fields.suffix, fields.priority, fields.weight).lastInsertRowid,
    );
  }

  updateGroup(id: number, fields: GroupFields): void {
    this.db.query('UPDATE perm_groups SET prefix = ?, suffix = ?, priority = ?, weight = ? WHERE id = ?').run(fields.prefix, fields.suffix, fields.priority, fields.weight, id);
  }

  /** Makes `id` the one default group. */
  setDefault(id: number): void {
    this.db.query('UPDATE perm_groups SET is_default = 0 WHERE is_default = 1 AND id <> ?').run(id);
    this.db.query('UPDATE perm_groups SET is_default = 1 WHERE id = ?').run(id);
  }

  deleteGroup(id: number): void {
    this.db.query('DELETE FROM perm_groups WHERE id = ?').run(id);
  }

  setParents(id: number, parentIds: number[]): void {
    this.db.query('DELETE FROM perm_group_parents WHERE group_id = ?').run(id);
    const insert = this.db.query('INSERT INTO perm_group_parents (group_id, parent_id, position) VALUES (?, ?, ?)');
    parentIds.forEach((parent, position) => insert.run(id, parent, position));
  }

  /** Adds or re-scopes one row: the same (node, server, world) only gets the new expiry. */
  upsertGrant(groupId: number, node: string, scope: Scope): void {
    this.db
      .query('INSERT INTO perm_group_grants (group_id, node, server, world, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET expires_at = excluded.expires_at')
      .run(groupId, node, scope.server, scope.world, scope.expiresAt);
  }

  /** Removes a node's rows: all of them, or only the one with this server and world. Returns how many went. */
  deleteGrants(groupId: number, node: string, only?: { server: string; world: string }): number {
    if (only) return this.db.query('DELETE FROM perm_group_grants WHERE group_id = ? AND node = ? AND server = ? AND world = ?').run(groupId, node, only.server, only.world).changes;
    return this.db.query('DELETE FROM perm_group_grants WHERE group_id = ? AND node = ?').run(groupId, node).changes;
  }

  /** Removes the unscoped row of a node (a scoped grant replaces it) or its scoped rows (an unscoped one replaces them). */
  deleteGrantKind(groupId: number, node: string, scoped: boolean): void {
    const where = scoped ? "(server <> '' OR world <> '' OR expires_at IS NOT NULL)" : "(server = '' AND world = '' AND expires_at IS NULL)";
    this.db.query(`DELETE FROM perm_group_grants WHERE group_id = ? AND node = ? AND ${where}`).run(groupId, node);
  }

  setGroupMeta(id: number, key: string, value: string): void {
    this.db.query('INSERT INTO perm_group_meta (group_id, key, value) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value').run(id, key, value);
  }

  deleteGroupMeta(id: number, key?: string): number {
    if (key === undefined) return this.db.query('DELETE FROM perm_group_meta WHERE group_id = ?').run(id).changes;
    return this.db.query('DELETE FROM perm_group_meta WHERE group_id = ? AND key = ?').run(id, key).changes;
  }

  // ---- players ---------------------------------------------------------------------------

  playerId(uuid: string): number | undefined {
    return this.db.query<{ id: number }, [string]>('SELECT id FROM perm_players WHERE uuid = ?').get(uuid)?.id;
  }

  insertPlayer(uuid: string, name: string): number {
    return Number(this.db.query('INSERT INTO perm_players (uuid, name) VALUES (?, ?)').run(uuid, name).lastInsertRowid);
  }

  renamePlayer(id: number, name: string): void {
    this.db.query('UPDATE perm_players SET name = ? WHERE id = ?').run(name, id);
  }

  /** Adds or re-scopes one membership; a new one goes last in the player's order. */
  upsertMembership(playerId: number, groupId: number, scope: Scope): void {
    this.db
      .query(
        `INSERT INTO perm_memberships (player_id, group_id, server, world, expires_at, seq)
         VALUES (?1, ?2, ?3, ?4, ?5, (SELECT coalesce(max(seq), 0) + 1 FROM perm_memberships WHERE player_id = ?1))
         ON CONFLICT DO UPDATE SET expires_at = excluded.expires_at`,
      )
      .run(playerId, groupId, scope.server, scope.world, scope.expiresAt);
  }

  deleteMemberships(playerId: number, groupId: number, only?: { server: string; world: string }): number {
    if (only) return this.db.query('DELETE FROM perm_memberships WHERE player_id = ? AND group_id = ? AND server = ? AND world = ?').run(playerId, groupId, only.server, only.world).changes;
    return this.db.query('DELETE FROM perm_memberships WHERE player_id = ? AND group_id = ?').run(playerId, groupId).changes;
  }

  deleteMembershipKind(playerId: number, groupId: number, scoped: boolean): void {
    const where = scoped ? "(server <> '' OR world <> '' OR expires_at IS NOT NULL)" : "(server = '' AND world = '' AND expires_at IS NULL)";
    this.db.query(`DELETE FROM perm_memberships WHERE player_id = ? AND group_id = ? AND ${where}`).run(playerId, groupId);
  }

  /** Ids of the players with any membership in a group. */
  membersOf(groupId: number): number[] {
    return this.db.query<{ id: number }, [number]>('SELECT DISTINCT player_id AS id FROM perm_memberships WHERE group_id = ?').all(groupId).map((r) => r.id);
  }

  setPlayerMeta(id: number, key: string, value: string): void {
    this.db.query('INSERT INTO perm_player_meta (player_id, key, value) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value').run(id, key, value);
  }

  deletePlayerMeta(id: number, key: string): number {
    return this.db.query('DELETE FROM perm_player_meta WHERE player_id = ? AND key = ?').run(id, key).changes;
  }

  // ---- tracks ----------------------------------------------------------------------------

  insertTrack(name: string, groupIds: number[]): number {
    const id = Number(this.db.query('INSERT INTO perm_tracks (name) VALUES (?)').run(name).lastInsertRowid);
    const insert = this.db.query('INSERT INTO perm_track_groups (track_id, position, group_id) VALUES (?, ?, ?)');
    groupIds.forEach((group, position) => insert.run(id, position, group));
    return id;
  }

  deleteTrack(id: number): void {
    this.db.query('DELETE FROM perm_tracks WHERE id = ?').run(id);
  }

  // ---- expiry ----------------------------------------------------------------------------

  /** The earliest expiry still stored, or undefined. */
  nextExpiry(): number | undefined {
    const row = this.db
      .query<{ at: number | null }, []>(
        'SELECT min(at) AS at FROM (SELECT min(expires_at) AS at FROM perm_group_grants WHERE expires_at IS NOT NULL UNION ALL SELECT min(expires_at) FROM perm_memberships WHERE expires_at IS NOT NULL)',
      )
      .get();
    return row?.at ?? undefined;
  }

  /** Deletes every row expired at `now` (numbers compared, never strings) and says which. */
  deleteExpired(now: number): Expired {
    return this.transaction(() => ({
      groups: this.db
        .query<{ id: number; node: string; server: string; world: string }, [number]>('DELETE FROM perm_group_grants WHERE expires_at IS NOT NULL AND expires_at <= ? RETURNING group_id AS id, node, server, world')
        .all(now),
      memberships: this.db
        .query<{ playerId: number; groupId: number; server: string; world: string }, [number]>(
          'DELETE FROM perm_memberships WHERE expires_at IS NOT NULL AND expires_at <= ? RETURNING player_id AS playerId, group_id AS groupId, server, world',
        )
        .all(now),
    }));
  }

  // ---- audit -----------------------------------------------------------------------------

  audit(row: AuditRow): void {
    this.db.query('INSERT INTO perm_audit (at, actor, action, target, details) VALUES (?, ?, ?, ?, ?)').run(row.at, row.actor, row.action, row.target, row.details);
  }

  /** Newest first, and the number of entries the filter matches. */
  auditPage(filter: AuditFilter, limit: number, offset: number): { rows: AuditRow[]; total: number } {
    const clauses: string[] = [];
    const args: string[] = [];
    for (const key of ['action', 'target', 'actor'] as const) {
      const value = filter[key];
      if (value === undefined) continue;
      clauses.push(`${key} = ?`);
      args.push(value);
    }
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    const total = this.db.query<{ n: number }, string[]>(`SELECT count(*) AS n FROM perm_audit ${where}`).get(...args)!.n;
    const rows = this.db
      .query<AuditRow, (string | number)[]>(`SELECT at, actor, action, target, details FROM perm_audit ${where} ORDER BY id DESC LIMIT ? OFFSET ?`)
      .all(...args, limit, offset);
    return { rows, total };
  }

  // ---- helpers ---------------------------------------------------------------------------

  private grouped<R extends { owner: number }, T>(rows: R[], map: (row: R) => T): Map<number, T[]> {
    const out = new Map<number, T[]>();
    for (const row of rows) {
      const list = out.get(row.owner);
      if (list) list.push(map(row));
      else out.set(row.owner, [map(row)]);
    }
    return out;
  }
}

interface GrantRow {
  owner: number;
  node: string;
  server: string;
  world: string;
  expiresAt: number | null;
}
const GRANT_COLUMNS = 'node, server, world, expires_at AS expiresAt';
const toGrant = (r: GrantRow): Grant => ({ node: r.node, server: r.server, world: r.world, expiresAt: r.expiresAt });

interface MembershipRow {
  owner: number;
  group: string;
  server: string;
  world: string;
  expiresAt: number | null;
}
const MEMBERSHIP_COLUMNS = 'lower(g.name) AS "group", m.server, m.world, m.expires_at AS expiresAt FROM perm_memberships m JOIN perm_groups g ON g.id = m.group_id';
const toMembership = (r: MembershipRow): Membership => ({ group: r.group, server: r.server, world: r.world, expiresAt: r.expiresAt });

interface MetaRow {
  owner: number;
  key: string;
  value: string;
}
const toMeta = (rows: MetaRow[]): Record<string, string> => Object.fromEntries(rows.map((r) => [r.key, r.value]));

function toGroup(row: GroupRow, parents: string[], grants: Grant[], meta: MetaRow[]): Group {
  return {
    id: row.id,
    name: row.name,
    key: row.name.toLowerCase(),
    isDefault: row.isDefault === 1,
    prefix: row.prefix,
    suffix: row.suffix,
    priority: row.priority,
    weight: row.weight,
    parents,
    grants,
    meta: toMeta(meta),
  };
}
