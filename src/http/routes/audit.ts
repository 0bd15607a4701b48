import { Type as T } from '@sinclair/typebox';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';

const AuditQuery = T.Object({
  limit: T.Optional(T.Integer({ description: 'clamped to 1..500, default 50' })),
  offset: T.Optional(T.Integer({ minimum: 0, default: 0 })),
  action: T.Optional(T.String({ maxLength: 128, description: 'exact match' })),
  actor: T.Optional(T.String({ maxLength: 128, description: 'exact match' })),
});

const AuditPage = T.Object({
  entries: T.Array(
    T.Object({ timestamp: T.String(), actor: T.String(), action: T.String(), target: T.String(), details: T.String() }),
  ),
  limit: T.Integer(),
  offset: T.Integer(),
  total: T.Integer(),
});

const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n));

export function auditRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/audit',
      auth: 'admin',
      scopes: ['audit:read'],
      tag: 'audit',
      summary: 'A page of the audit log, newest first',
      query: AuditQuery,
      response: { 200: AuditPage },
      handler: ({ query }) => {
        const limit = clamp(query.limit ?? 50, 1, 500);
        const offset = Math.max(0, query.offset ?? 0);
        const { entries, total } = kernel.audit.list({ limit, offset, action: query.action, actor: query.actor });
        return { entries, limit, offset, total };
      },
    }),
  ];
}
