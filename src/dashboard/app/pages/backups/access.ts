/**
 * What this sign-in may do on the Backups page, so a session is told before it tries (the API
 * decides anyway, and its refusal is said in words): an API token may do everything; a game
 * account's session what its nodes allow (GET /api/auth/me, the query the navigation reads).
 */
import { useQuery } from '@tanstack/preact-query';
import { api, signInKind } from '../../api';
import { grants } from '../../access';
import { CREDENTIAL_TYPES, NODE } from './model';

interface Me {
  name?: string;
  permissions: string[];
  isAdmin: boolean;
}

export interface Access {
  session: boolean;
  /** Holds svc.dashboard.backups.manage: trigger, verify, restore, delete, prune, edit the configuration. */
  manage: boolean;
  /** The operator: may change where archives go and whether they carry the login key. */
  admin: boolean;
  /** May open the live events socket (svc.dashboard.overview); else the page reads again on a timer. */
  live: boolean;
  /** May read the services list (to name services and say which run). */
  services: boolean;
}

export function useAccess(): Access | undefined {
  const session = signInKind() === 'session';
  const me = useQuery({ queryKey: ['me'], queryFn: () => api<Me>('/api/auth/me'), enabled: session, staleTime: 30_000 });
  if (!session) return { session: false, manage: true, admin: true, live: true, services: true };
  if (!me.data) return undefined;
  const { permissions, isAdmin } = me.data;
  const may = (node: string) => isAdmin || grants(permissions, node);
  return { session: true, manage: may(NODE.manage), admin: isAdmin, live: may(NODE.live), services: may(NODE.services) };
}

/** Whether this sign-in may download the archive of a record (the route's rule for sessions). */
export function mayDownload(access: Access, targetType: string): boolean {
  return access.manage || !CREDENTIAL_TYPES.has(targetType);
}
