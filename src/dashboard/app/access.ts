import { useQuery } from '@tanstack/preact-query';
import { api, signInKind } from './api';
import { hasFeature } from './login/features';

/**
 * The permission node each page needs, the one its routes declare (the server refuses the rest
 * anyway: this only keeps a session from seeing pages it cannot use). Profile needs none.
 */
export const PAGE_NODES: Readonly<Record<string, string | null>> = {
  Overview: 'svc.dashboard.overview',
  Network: 'svc.dashboard.players.view',
  Services: 'svc.dashboard.services.view',
  Groups: 'svc.dashboard.groups.view',
  Dedicated: 'svc.dashboard.dedicated.view',
  Nodes: 'svc.dashboard.nodes.view',
  Console: 'svc.dashboard.admin',
  Files: 'svc.dashboard.services.edit_config',
  Plugins: 'svc.dashboard.groups.view',
  Players: 'svc.dashboard.players.view',
  Permissions: 'svc.dashboard.perms.view',
  Punishments: 'svc.dashboard.punishments.view',
  Backups: 'svc.dashboard.backups.view',
  'Resource packs': 'svc.dashboard.resourcepacks.view',
  Display: 'svc.dashboard.display.view',
  Scaling: 'svc.dashboard.scaling.view',
  Timeline: 'svc.dashboard.audit.view',
  Audit: 'svc.dashboard.audit.view',
  Doctor: 'svc.dashboard.admin',
  Performance: 'svc.dashboard.metrics.view',
  Stress: 'svc.dashboard.stress.view',
  Settings: 'svc.dashboard.admin',
  Profile: null,
};

/** The module a page belongs to: shown only when this run loaded it (the page's svc-features). */
export const PAGE_MODULES: Readonly<Record<string, string>> = {
  Players: 'players',
  Permissions: 'perms',
  Punishments: 'punishments',
  Backups: 'backup',
  'Resource packs': 'resourcepacks',
  Display: 'display',
  Scaling: 'scaling',
};

interface Me {
  permissions: string[];
  isAdmin: boolean;
}

/** Whether `permissions` grant `node`: the node itself, `*`, or a `prefix.*` above it. */
export function grants(permissions: readonly string[], node: string): boolean {
  return permissions.some((p) => p === node || p === '*' || (p.endsWith('.*') && node.startsWith(p.slice(0, -1))));
}

/**
 * Which pages this sign-in may open: every one for an API token (it is the operator's); for a
 * game account's session, those whose node it holds (GET /api/auth/me). Undefined while asked.
 */
/** Whether the module a page belongs to runs here (a core page always does). */
export function pageModuleLoaded(page: string): boolean {
  const module = PAGE_MODULES[page];
  return module === undefined || hasFeature(module);
}

export function usePageAccess(): ((page: string) => boolean) | undefined {
  const session = signInKind() === 'session';
  const me = useQuery({ queryKey: ['me'], queryFn: () => api<Me>('/api/auth/me'), enabled: session, staleTime: 30_000 });
  if (!session) return () => true;
  if (!me.data) return undefined;
  const { permissions, isAdmin } = me.data;
  return (page) => {
    const node = PAGE_NODES[page];
    return node === null || node === undefined || isAdmin || grants(permissions, node);
  };
}
