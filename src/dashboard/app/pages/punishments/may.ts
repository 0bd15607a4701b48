/**
 * What this sign-in may do on the page, so a session is told before it tries (the API decides
 * anyway, and its refusal is shown when it does): an API token may do everything; a game
 * account's session what its nodes allow (GET /api/auth/me, the query the navigation reads).
 */
import { useQuery } from '@tanstack/preact-query';
import { api, signInKind } from '../../api';
import { grants } from '../../access';

interface Me {
  name?: string;
  permissions: string[];
  isAdmin: boolean;
}

export interface May {
  /** Whether the node is held (always for a token; undefined while the session's nodes are read). */
  (node: string): boolean;
  /** Who issues from this sign-in, as the API records it: the session's player, or `API` for a token. */
  issuerName: string;
  session: boolean;
}

export function useMay(): May | undefined {
  const session = signInKind() === 'session';
  const me = useQuery({ queryKey: ['me'], queryFn: () => api<Me>('/api/auth/me'), enabled: session, staleTime: 30_000 });
  if (!session) return Object.assign(() => true, { issuerName: 'API', session: false });
  if (!me.data) return undefined;
  const { permissions, isAdmin, name } = me.data;
  return Object.assign((node: string) => isAdmin || grants(permissions, node), { issuerName: name ?? 'you', session: true });
}
