/**
 * What this sign-in may do on the page, so a session is told before it tries (the API decides
 * anyway, and its refusal is said in words when it does): an API token may do everything; a game
 * account's session what its nodes allow (GET /api/auth/me, the query the navigation reads).
 */
import { useQuery } from '@tanstack/preact-query';
import { api, signInKind } from '../../api';
import { grants } from '../../access';

interface Me {
  permissions: string[];
  isAdmin: boolean;
}

export type May = (node: string) => boolean;

/** Undefined while a session's nodes are read. */
export function useMay(): May | undefined {
  const session = signInKind() === 'session';
  const me = useQuery({ queryKey: ['me'], queryFn: () => api<Me>('/api/auth/me'), enabled: session, staleTime: 30_000 });
  if (!session) return () => true;
  const data = me.data;
  if (!data) return undefined;
  return (node) => data.isAdmin || grants(data.permissions, node);
}
