import type { Database } from 'bun:sqlite';
import type { Punishment, PunishmentType, Scope } from './model';

interface Row {
  id: number;
  type: string;
  target_uuid: string;
  target_name: string;
  target_ip: string | null;
  reason: string;
  issuer: string;
  issuer_name: string;
  issued_at: number;
  expires_at: number | null;
  active: number;
  revoked_by: string | null;
  revoked_at: number | null;
  revoke_reason: string | null;
  scope: string;
  scope_target: string | null;
}

const fromRow = (r: Row): Punishment => ({
  id: r.id,
  type: r.type as PunishmentType,
  targetUuid: r.target_uuid,
  targetName: r.target_name,
  targetIp: r.target_ip,
  reason: r.reason,
  issuer: r.issuer,
  issuerName: r.issuer_name,
  issuedAt: r.issued_at,
  expiresAt: r.expires_at,
  active: r.active === 1,
  revokedBy: r.revoked_by,
  revokedAt: r.revoked_at,
  revokeReason: r.revoke_reason,
  scope: r.scope as Scope,
  scopeTarget: r.scope_target,
});

export type NewPunishment = Omit<Punishment, 'id' | 'revokedBy' | 'revokedAt' | 'revokeReason'>;

/** What a list asks for: `activeAt` keeps only records in force at that moment. */
export interface ListFilter {
  activeAt?: number;
  type?: PunishmentType;
}

/** Who lifted a record and why. */
export interface Revocation {
  by: string;
  at: number;
  reason: string | null;
}

/** The punishments table. Every write is one statement or one transaction. */
export class PunishmentStore {
  constructor(private readonly db: Database) {}

  insert(p: NewPunishment): Punishment {
    const row = this.db
      .query<Row, (string | number | null)[]>(
        `INSERT INTO punishments (type, target_uuid, target_name, target_ip, reason, issuer, issuer_name, issued_at, expires_at, active, scope, scope_target)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(p.type, p.targetUuid, p.targetName, p.targetIp, p.reason, p.issuer, p.issuerName, p.issuedAt, p.expiresAt, p.active ? 1 : 0, p.scope, p.scopeTarget)!;
    return fromRow(row);
  }

  get(id: number): Punishment | undefined {
    const row = this.db.query<Row, [number]>('SELECT * FROM punishments WHERE id = ?').get(id);
    return row ? fromRow(row) : undefined;
  }

  /** Clears `active` if it is still set; the record as it is afterwards, or undefined when it was already inactive. */
  revoke(id: number, revocation: Revocation): Punishment | undefined {
    const row = this.db
      .query<Row, [string, number, string | null, number]>('UPDATE punishments SET active = 0, revoked_by = ?, revoked_at = ?, revoke_reason = ? WHERE id = ? AND active = 1 RETURNING *')
      .get(revocation.by, revocation.at, revocation.reason, id);
    return row ? fromRow(row) : undefined;
  }

  /** Clears `active` on every record whose end has come; the records so ended. */
  expireDue(now: number): Punishment[] {
    return this.db.query<Row, [number]>('UPDATE punishments SET active = 0 WHERE active = 1 AND expires_at IS NOT NULL AND expires_at <= ? RETURNING *').all(now).map(fromRow);
  }

  /** Every record still marked active (the in-memory indexes are built from these). */
  allActive(): Punishment[] {
    return this.db.query<Row, []>('SELECT * FROM punishments WHERE active = 1 ORDER BY id').all().map(fromRow);
  }

  list(filter: ListFilter, limit: number, offset: number): { rows: Punishment[]; total: number } {
    const { where, args } = whereOf(filter);
    const total = this.db.query<{ n: number }, (string | number)[]>(`SELECT count(*) AS n FROM punishments ${where}`).get(...args)!.n;
    const rows = this.db
      .query<Row, (string | number)[]>(`SELECT * FROM punishments ${where} ORDER BY issued_at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...args, limit, offset)
      .map(fromRow);
    return { rows, total };
  }

  /** A player's records of every type, newest first, and how many there are in all. */
  history(uuid: string, limit: number): { rows: Punishment[]; total: number } {
    const total = this.db.query<{ n: number }, [string]>('SELECT count(*) AS n FROM punishments WHERE target_uuid = ?').get(uuid)!.n;
    const rows = this.db.query<Row, [string, number]>('SELECT * FROM punishments WHERE target_uuid = ? ORDER BY issued_at DESC, id DESC LIMIT ?').all(uuid, limit).map(fromRow);
    return { rows, total };
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }
}

function whereOf(filter: ListFilter): { where: string; args: (string | number)[] } {
  const clauses: string[] = [];
  const args: (string | number)[] = [];
  if (filter.activeAt !== undefined) {
    clauses.push('active = 1 AND (expires_at IS NULL OR expires_at > ?)');
    args.push(filter.activeAt);
  }
  if (filter.type !== undefined) {
    clauses.push('type = ?');
    args.push(filter.type);
  }
  return { where: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, args };
}
