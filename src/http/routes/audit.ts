import { t } from '../t';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';
import { clamp } from '../clamp';

const AuditQuery = t.Object({
  limit: t.Optional(t.Integer({ description: 'clamped to 1..500, default 50' })),
  offset: t.Optional(t.Integer({ minimum: 0, description: 'entries to skip; default 0' })),
  action: t.Optional(t.String({ maxLength: 128, description: 'exact match' })),
  actor: t.Optional(t.String({ maxLength: 128, description: 'exact match' })),
});

const AuditPage = t.Object({
  entries: t.Array(
    t.Object({ timestamp: t.String(), actor: t.String(), action: t.String(), target: t.String(), details: t.String() }),
  ),
  limit: t.Integer(),
  offset: t.Integer(),
  total: t.Integer(),
});

const MAX_OFFSET = 2 ** 31 - 1;

export function auditRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/audit',
      auth: 'admin',
      permission: 'svc.dashboard.audit.view',
      scopes: ['audit:read'],
      tag: 'audit',
      summary: 'A page of the audit log, newest first',
      query: AuditQuery,
      response: { 200: AuditPage },
      handler: ({ query }) => {
        const limit = clamp(query.limit ?? 50, 1, 500);
        // Clamped into the range sqlite binds as an integer; past the end is simply an empty page.
        const offset = Math.min(Math.max(0, query.offset ?? 0), MAX_OFFSET);
        const { entries, total } = kernel.audit.list({ limit, offset, action: query.action, actor: query.actor });
        return { entries, limit, offset, total };
      },
    }),
  ];
}
