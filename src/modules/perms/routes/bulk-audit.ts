import { clamp } from '../../../http/clamp';
import { defineRoute, type AnyRoute } from '../../../http/route';
import { AUDIT_LIMIT, auditPage } from '../audit';
import { AuditPageSchema, AuditQuery, BulkMembershipBody, BulkPermissionBody, BulkResultSchema } from '../model';
import type { PermsRuntime } from '../runtime';
import { ADMIN_GRANTS, authorOf, checkNodeField, MANAGE, PREFIX, Refusals, TAG, VIEW, WithNotFound } from './common';

/** Many groups or players in one request, and the module's audit log. */
export function bulkAuditRoutes(runtime: PermsRuntime): AnyRoute[] {
  const { bulk, store } = runtime;
  return [
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/bulk/permissions`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Give one node (optionally scoped, optionally expiring) to many groups in one transaction: {success, processed, failed, errors: ["group: why"]}; unknown groups are listed, the rest are done. ' +
        'Publishes PERMISSION_GROUP_UPDATED per group' + ADMIN_GRANTS,
      body: BulkPermissionBody,
      response: { 200: BulkResultSchema, ...Refusals },
      handler: ({ body, actor, principal }) => bulk.addPermission(body.groups, checkNodeField('permission', body.permission), body, authorOf(actor, principal)),
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/bulk/groups`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Put many players (UUIDs; unseen ones are stored as "unknown") in one group in one transaction: {success, processed, failed, errors: ["uuid: why"]}; malformed UUIDs are listed, the rest are done. ' +
        'Publishes PLAYER_PERMISSIONS_UPDATED per player (404 PERMISSION_GROUP_NOT_FOUND)' + ADMIN_GRANTS,
      body: BulkMembershipBody,
      response: { 200: BulkResultSchema, ...WithNotFound },
      handler: ({ body, actor, principal }) => bulk.addGroup(body.players, body.group, body, authorOf(actor, principal)),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/audit`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'The permissions audit log, newest first, optionally only one action, target or actor: {entries: [{timestamp, actor, action, target, details}], total (entries the filter matches)}',
      query: AuditQuery,
      response: { 200: AuditPageSchema, ...Refusals },
      handler: ({ query }) => {
        const limit = clamp(query.limit ?? AUDIT_LIMIT.default, AUDIT_LIMIT.min, AUDIT_LIMIT.max);
        const offset = clamp(query.offset ?? 0, 0, Number.MAX_SAFE_INTEGER);
        return auditPage(store, { action: query.action, target: query.target, actor: query.actor }, limit, offset);
      },
    }),
  ];
}
