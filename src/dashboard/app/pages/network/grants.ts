/**
 * Which of the routes these pages call a sign-in may use: every one for an API token (it is the
 * operator's); for a game account's session, those whose node it holds (GET /api/auth/me, the
 * shell's own query). A part of the page the session may not read says so instead of asking the
 * API for a 403.
 */
import { useQuery } from '@tanstack/preact-query';
import { api, signInKind } from '../../api';
import { grants } from '../../access';

interface Me {
  permissions: string[];
  isAdmin: boolean;
}

export const NODES = {
  view: 'svc.dashboard.players.view',
  manage: 'svc.dashboard.players.manage',
  history: 'svc.dashboard.players.history',
  status: 'svc.dashboard.overview',
  services: 'svc.dashboard.services.view',
  proxy: 'svc.dashboard.proxy.view',
  maintenance: 'svc.dashboard.maintenance.toggle',
  /** The event stream's (/api/events): without it nothing on these pages moves by itself. */
  events: 'svc.dashboard.overview',
} as const;

/** Whether the sign-in holds a node; undefined while the session's nodes are being read. */
export function useMay(): ((node: string) => boolean) | undefined {
  const session = signInKind() === 'session';
  const me = useQuery({ queryKey: ['me'], queryFn: () => api<Me>('/api/auth/me'), enabled: session, staleTime: 30_000 });
  if (!session) return () => true;
  const data = me.data;
  if (!data) return undefined;
  return (node) => data.isAdmin || grants(data.permissions, node);
}
