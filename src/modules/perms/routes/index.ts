import type { AnyRoute } from '../../../http/route';
import type { PermsRuntime } from '../runtime';
import { bulkAuditRoutes } from './bulk-audit';
import { checkRoutes } from './checks';
import { groupNodeRoutes } from './group-nodes';
import { groupRoutes } from './groups';
import { playerRoutes } from './players';
import { trackRoutes } from './tracks';

/**
 * The 29 routes under `/api/permissions` (service level; a dashboard session needs
 * svc.dashboard.perms.view to read and svc.dashboard.perms.manage to change, and may not call
 * PUT /players/:uuid, the plugins' join-time registration). The caller is the actor of every
 * change: events and the module's audit name it. Whatever the route, a change that hands out
 * admin needs a caller holding admin (escalation.ts; 403 FORBIDDEN otherwise).
 */
export function permsRoutes(runtime: PermsRuntime): AnyRoute[] {
  return [...groupRoutes(runtime), ...groupNodeRoutes(runtime), ...playerRoutes(runtime), ...checkRoutes(runtime), ...trackRoutes(runtime), ...bulkAuditRoutes(runtime)];
}
