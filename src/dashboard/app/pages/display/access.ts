/**
 * What this sign-in may do on the Display page, so a session is told beforehand (the
 * controller enforces it anyway, and its refusal is said in words): an API token may do
 * everything; a game account's session what its nodes allow (GET /api/auth/me, the query the
 * navigation reads, so asked once).
 */
import { useQuery } from '@tanstack/preact-query';
import { api, ApiFailure, signInKind } from '../../api';
import { grants } from '../../access';
import { MANAGE_NODE } from './model';
import { sentence } from '../../sentence';

interface Me {
  permissions: string[];
  isAdmin: boolean;
}

export interface DisplayAccess {
  /** Holds svc.dashboard.display.manage: may save and reset. */
  canManage: boolean;
  /** May open the live events socket (it needs svc.dashboard.overview); else the page reads again every 15 s. */
  live: boolean;
  /** May read the group (svc.dashboard.groups.view): the preview takes its player limit from it. */
  groups: boolean;
  /** May read the services (svc.dashboard.services.view): the preview takes the group's players and servers from them. */
  services: boolean;
  session: boolean;
}

export function useDisplayAccess(): DisplayAccess | undefined {
  const session = signInKind() === 'session';
  const me = useQuery({ queryKey: ['me'], queryFn: () => api<Me>('/api/auth/me'), enabled: session, staleTime: 30_000 });
  if (!session) return { canManage: true, live: true, groups: true, services: true, session: false };
  if (!me.data) return undefined;
  const { permissions, isAdmin } = me.data;
  const may = (node: string) => isAdmin || grants(permissions, node);
  return {
    canManage: may(MANAGE_NODE),
    live: may('svc.dashboard.overview'),
    groups: may('svc.dashboard.groups.view'),
    services: may('svc.dashboard.services.view'),
    session: true,
  };
}

/**
 * A refusal in words: `what` starts the sentence ("Not saved"). A 403 for a missing node says
 * this session may look but not change, and which node changes need, with the controller's own
 * sentence; any other refusal is the API's message with its code (to look up in the spec).
 */
export function refusalWords(error: unknown, what: string): string {
  if (error instanceof ApiFailure) {
    if (error.status === 403) {
      const missing = /^Missing permission: (\S+)/.exec(error.message);
      if (missing) return `${what}: this session may look at displays but not change them; changes need the permission ${missing[1]}. The controller said: “${error.message}”.`;
      return `${what}: your account may not do this. ${sentence(error.message)}`;
    }
    if (error.status === 429) return `${what}: too many requests. ${sentence(error.message)}`;
    return `${what} (${error.code}): ${sentence(error.message)}`;
  }
  if (error instanceof Error && !(error instanceof TypeError)) return `${what}: ${sentence(error.message)}`;
  return `${what}: the controller could not be reached. Try again.`;
}
