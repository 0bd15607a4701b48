import type { AuditEntry } from '../../core/audit/store';
import type { PermStore, AuditFilter } from './store';

export const AUDIT_LIMIT = { min: 1, max: 500, default: 50 } as const;

/** The module's audit (entries shaped as core's audit log's), newest first; `total` counts every entry the filter matches, not the page. */
export function auditPage(store: PermStore, filter: AuditFilter, limit: number, offset: number): { entries: AuditEntry[]; total: number } {
  const { rows, total } = store.auditPage(filter, limit, offset);
  return { entries: rows.map((r) => ({ timestamp: new Date(r.at).toISOString(), actor: r.actor, action: r.action, target: r.target, details: r.details })), total };
}
