import type { Database } from 'bun:sqlite';
import type { BackupRow, BackupStatus, TargetType } from './model';

interface Row {
  id: number;
  target_type: string;
  target_name: string;
  schedule_class: string;
  schedule_name: string;
  started_at: number;
  completed_at: number | null;
  status: string;
  size_bytes: number;
  archive_path: string;
  archive_file: string;
  checksum: string;
  error_message: string | null;
  node_id: string;
  triggered_by: string;
}

const fromRow = (r: Row): BackupRow => ({
  id: r.id,
  targetType: r.target_type as TargetType,
  targetName: r.target_name,
  scheduleClass: r.schedule_class,
  scheduleName: r.schedule_name,
  startedAt: r.started_at,
  completedAt: r.completed_at,
  status: r.status as BackupStatus,
  sizeBytes: r.size_bytes,
  archivePath: r.archive_path,
  archiveFile: r.archive_file,
  checksum: r.checksum,
  errorMessage: r.error_message,
  nodeId: r.node_id,
  triggeredBy: r.triggered_by,
});

export interface BackupFilter {
  /** The target name (a service, or "all"). */
  target?: string;
  status?: BackupStatus;
}

/** How a run ended, as stored. */
export interface Ending {
  status: Exclude<BackupStatus, 'RUNNING'>;
  completedAt: number;
  sizeBytes: number;
  archivePath: string;
  archiveFile: string;
  checksum: string;
  errorMessage: string | null;
}

export class BackupStore {
  constructor(private readonly db: Database) {}

  start(r: Pick<BackupRow, 'targetType' | 'targetName' | 'scheduleClass' | 'scheduleName' | 'startedAt' | 'nodeId' | 'triggeredBy'>): BackupRow {
    return fromRow(
      this.db
        .query<Row, (string | number)[]>(
          `INSERT INTO backups (target_type, target_name, schedule_class, schedule_name, started_at, status, node_id, triggered_by)
           VALUES (?, ?, ?, ?, ?, 'RUNNING', ?, ?) RETURNING *`,
        )
        .get(r.targetType, r.targetName, r.scheduleClass, r.scheduleName, r.startedAt, r.nodeId, r.triggeredBy)!,
    );
  }

  finish(id: number, e: Ending): BackupRow | undefined {
    const row = this.db
      .query<Row, (string | number | null)[]>(
        'UPDATE backups SET status = ?, completed_at = ?, size_bytes = ?, archive_path = ?, archive_file = ?, checksum = ?, error_message = ? WHERE id = ? RETURNING *',
      )
      .get(e.status, e.completedAt, e.sizeBytes, e.archivePath, e.archiveFile, e.checksum, e.errorMessage, id);
    return row ? fromRow(row) : undefined;
  }

  get(id: number): BackupRow | undefined {
    const row = this.db.query<Row, [number]>('SELECT * FROM backups WHERE id = ?').get(id);
    return row ? fromRow(row) : undefined;
  }

  delete(id: number): void {
    this.db.query('DELETE FROM backups WHERE id = ?').run(id);
  }

  /** Newest first; `total` counts every row the filter matches. */
  list(filter: BackupFilter, limit: number, offset: number): { rows: BackupRow[]; total: number } {
    const clauses: string[] = [];
    const args: (string | number)[] = [];
    if (filter.target !== undefined) {
      clauses.push('target_name = ?');
      args.push(filter.target);
    }
    if (filter.status !== undefined) {
      clauses.push('status = ?');
      args.push(filter.status);
    }
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    const total = this.db.query<{ n: number }, (string | number)[]>(`SELECT count(*) AS n FROM backups ${where}`).get(...args)!.n;
    const rows = this.db.query<Row, (string | number)[]>(`SELECT * FROM backups ${where} ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`).all(...args, limit, offset).map(fromRow);
    return { rows, total };
  }

  all(): BackupRow[] {
    return this.db.query<Row, []>('SELECT * FROM backups ORDER BY started_at DESC, id DESC').all().map(fromRow);
  }

  running(): BackupRow[] {
    return this.db.query<Row, []>("SELECT * FROM backups WHERE status = 'RUNNING' ORDER BY id").all().map(fromRow);
  }

  scheduleLog(): Map<string, { lastRunAt: number; lastStatus: string }> {
    const rows = this.db.query<{ schedule_name: string; last_run_at: number; last_status: string }, []>('SELECT * FROM backup_schedule_log').all();
    return new Map(rows.map((r) => [r.schedule_name, { lastRunAt: r.last_run_at, lastStatus: r.last_status }]));
  }

  logSchedule(name: string, at: number, status: string): void {
    this.db
      .query('INSERT INTO backup_schedule_log (schedule_name, last_run_at, last_status) VALUES (?1, ?2, ?3) ON CONFLICT (schedule_name) DO UPDATE SET last_run_at = ?2, last_status = ?3')
      .run(name, at, status);
  }
}
