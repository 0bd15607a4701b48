import type { Database } from 'bun:sqlite';
import { pruneOlderThan } from '../../storage/prune';
import { RecordWriteError } from '../../storage/disk-full';

export interface AuditEntry {
  timestamp: string;
  actor: string;
  action: string;
  target: string;
  details: string;
}

export interface AuditQuery {
  limit: number;
  offset: number;
  action?: string;
  actor?: string;
}

interface Row {
  ts: number;
  actor: string;
  action: string;
  target: string;
  details: string;
}

/** The audit table: who did what to which target, newest first. */
export class AuditStore {
  private readonly insert;

  constructor(private readonly db: Database) {
    this.insert = db.prepare('INSERT INTO audit_log (ts, actor, action, target, details) VALUES (?, ?, ?, ?, ?)');
  }

  /** Throws a RecordWriteError naming the entry when the row cannot be written (a full disk: the request answers 507). */
  record(entry: { actor: string; action: string; target?: string; details?: string; at?: number }): void {
    try {
      this.insert.run(entry.at ?? Date.now(), entry.actor, entry.action, entry.target ?? '', entry.details ?? '');
    } catch (error) {
      throw new RecordWriteError(`the audit log entry for ${entry.action}`, error);
    }
  }

  list(query: AuditQuery): { entries: AuditEntry[]; total: number } {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (query.action !== undefined) {
      where.push('action = ?');
      args.push(query.action);
    }
    if (query.actor !== undefined) {
      where.push('actor = ?');
      args.push(query.actor);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const rows = this.db
      .query<Row, (string | number)[]>(`SELECT ts, actor, action, target, details FROM audit_log ${clause} ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...args, query.limit, query.offset);
    const total = this.db.query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM audit_log ${clause}`).get(...args)!.n;
    return {
      entries: rows.map((r) => ({ timestamp: new Date(r.ts).toISOString(), actor: r.actor, action: r.action, target: r.target, details: r.details })),
      total,
    };
  }

  /** Deletes entries older than the cutoff in batches (see pruneOlderThan). */
  prune(olderThanMs: number, batchSize = 500): Promise<number> {
    return pruneOlderThan(this.db, 'audit_log', olderThanMs, batchSize);
  }
}
