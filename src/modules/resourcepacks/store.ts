import type { Database } from 'bun:sqlite';
import type { Assignment, AssignmentScope, Pack, PackSource } from './model';

interface PackRow {
  id: number;
  pack_uuid: string;
  name: string;
  source: string;
  url: string;
  sha1_hash: string;
  prompt_message: string;
  force: number;
  file_size: number;
  uploaded_at: number;
  uploaded_by: string;
}

interface AssignmentRow {
  id: number;
  pack_id: number;
  scope: string;
  target: string;
  priority: number;
}

const packOf = (r: PackRow): Pack => ({
  id: r.id,
  packUuid: r.pack_uuid,
  name: r.name,
  source: r.source as PackSource,
  url: r.url,
  sha1Hash: r.sha1_hash,
  promptMessage: r.prompt_message,
  force: r.force === 1,
  fileSize: r.file_size,
  uploadedAt: r.uploaded_at,
  uploadedBy: r.uploaded_by,
});

const assignmentOf = (r: AssignmentRow): Assignment => ({ id: r.id, packId: r.pack_id, scope: r.scope as AssignmentScope, target: r.target, priority: r.priority });

/** The two tables. Deleting a pack deletes its assignments (foreign key cascade). */
export class PackStore {
  constructor(private readonly db: Database) {}

  insertPack(p: Omit<Pack, 'id'>): Pack {
    const row = this.db
      .query<PackRow, (string | number)[]>(
        `INSERT INTO resource_packs (pack_uuid, name, source, url, sha1_hash, prompt_message, force, file_size, uploaded_at, uploaded_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(p.packUuid, p.name, p.source, p.url, p.sha1Hash, p.promptMessage, p.force ? 1 : 0, p.fileSize, p.uploadedAt, p.uploadedBy)!;
    return packOf(row);
  }

  pack(id: number): Pack | undefined {
    const row = this.db.query<PackRow, [number]>('SELECT * FROM resource_packs WHERE id = ?').get(id);
    return row ? packOf(row) : undefined;
  }

  packByUuid(packUuid: string): Pack | undefined {
    const row = this.db.query<PackRow, [string]>('SELECT * FROM resource_packs WHERE pack_uuid = ?').get(packUuid);
    return row ? packOf(row) : undefined;
  }

  /** Newest first. */
  packs(): Pack[] {
    return this.db.query<PackRow, []>('SELECT * FROM resource_packs ORDER BY uploaded_at DESC, id DESC').all().map(packOf);
  }

  /** Deletes the pack and, with it, its assignments; returns those assignments (for their events). */
  deletePack(id: number): Assignment[] {
    return this.db.transaction(() => {
      const gone = this.assignments(id);
      this.db.query('DELETE FROM resource_packs WHERE id = ?').run(id);
      return gone;
    })();
  }

  /** Undefined when the pack already has an assignment at that scope and target. */
  insertAssignment(a: Omit<Assignment, 'id'>): Assignment | undefined {
    const row = this.db
      .query<AssignmentRow, [number, string, string, number]>('INSERT INTO resource_pack_assignments (pack_id, scope, target, priority) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *')
      .get(a.packId, a.scope, a.target, a.priority);
    return row ? assignmentOf(row) : undefined;
  }

  assignment(id: number): Assignment | undefined {
    const row = this.db.query<AssignmentRow, [number]>('SELECT * FROM resource_pack_assignments WHERE id = ?').get(id);
    return row ? assignmentOf(row) : undefined;
  }

  deleteAssignment(id: number): Assignment | undefined {
    const row = this.db.query<AssignmentRow, [number]>('DELETE FROM resource_pack_assignments WHERE id = ? RETURNING *').get(id);
    return row ? assignmentOf(row) : undefined;
  }

  /** All assignments, or one pack's, by priority (then id). */
  assignments(packId?: number): Assignment[] {
    const rows =
      packId === undefined
        ? this.db.query<AssignmentRow, []>('SELECT * FROM resource_pack_assignments ORDER BY priority, id').all()
        : this.db.query<AssignmentRow, [number]>('SELECT * FROM resource_pack_assignments WHERE pack_id = ? ORDER BY priority, id').all(packId);
    return rows.map(assignmentOf);
  }

  /** Assignments that apply to a backend of this group and service, with their packs (any case). */
  applying(group: string, service: string | undefined): { assignment: Assignment; pack: Pack }[] {
    const rows = this.db
      .query<AssignmentRow & { [K in keyof PackRow as `p_${K}`]: PackRow[K] }, [string, string]>(
        `SELECT a.*, p.id AS p_id, p.pack_uuid AS p_pack_uuid, p.name AS p_name, p.source AS p_source, p.url AS p_url, p.sha1_hash AS p_sha1_hash,
                p.prompt_message AS p_prompt_message, p.force AS p_force, p.file_size AS p_file_size, p.uploaded_at AS p_uploaded_at, p.uploaded_by AS p_uploaded_by
         FROM resource_pack_assignments a JOIN resource_packs p ON p.id = a.pack_id
         WHERE a.scope = 'GLOBAL' OR (a.scope = 'GROUP' AND a.target = ?1 COLLATE NOCASE) OR (a.scope = 'SERVICE' AND a.target = ?2 COLLATE NOCASE)`,
      )
      .all(group, service ?? '');
    return rows.map((r) => ({
      assignment: assignmentOf(r),
      pack: packOf({
        id: r.p_id,
        pack_uuid: r.p_pack_uuid,
        name: r.p_name,
        source: r.p_source,
        url: r.p_url,
        sha1_hash: r.p_sha1_hash,
        prompt_message: r.p_prompt_message,
        force: r.p_force,
        file_size: r.p_file_size,
        uploaded_at: r.p_uploaded_at,
        uploaded_by: r.p_uploaded_by,
      }),
    }));
  }
}
