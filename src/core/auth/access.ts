import type { SessionIdentity } from '../module-services';
import type { TenantIdentity, TenantRole } from '../tenancy/identity';
import { isPrincipal, type Identification, type Refusal } from './principal';
import { DEFAULT_WRITE_SCOPE, READ_SCOPES, type AuthLevel } from './scopes';

/** Which service credentials a route admits, by role: every target (`any`) or only their own `:name` (`own`). */
export type TenantReach = Partial<Record<TenantRole, 'any' | 'own'>>;

/** What a route (or socket) asks of its callers. */
export interface Access {
  auth: AuthLevel;
  scopes?: readonly string[];
  permission?: string;
  machineOnly?: true;
  /** The login and profile routes, which a session that must still enrol in TOTP may use. */
  enrolmentOpen?: boolean;
  /** GET (and HEAD): JWT read scopes pass; anything else asks for a write scope. */
  reads?: boolean;
  tenants?: TenantReach;
  speaksForPlayers?: boolean;
  /** A cluster route the cluster token itself opens (enrolment: the bootstrap); other cluster routes take a node's own secret. */
  enrolment?: boolean;
}

export type Verdict =
  | { ok: true }
  | { ok: false; reason: 'unauthorized' | Refusal | 'forbidden' | 'machine-only' | 'needs-session' | 'totp-required' | 'read-only' | 'players-only' | 'node-only' }
  | { ok: false; reason: 'missing-node'; node: string }
  | { ok: false; reason: 'tenant-route' | 'tenant-other'; tenant: TenantIdentity };

/** The node a session needs on a non-public route that declares none: only admins pass (fail closed). */
export const ADMIN_NODE = 'svc.dashboard.admin';

const OK: Verdict = { ok: true };
const refuse = (reason: Exclude<Verdict, { ok: true }>['reason'] & string): Verdict => ({ ok: false, reason }) as Verdict;

/**
 * Decides whether an identified caller may use a route or socket that asks this. `params`:
 * the request's path parameters, for routes a service's credential may call on its own
 * `:name` only. Pure: who the caller is was settled by the Authenticator.
 */
export function authorize(who: Identification, access: Access, params?: Readonly<Record<string, string>>): Verdict {
  const { auth: level, scopes: extraScopes = [] } = access;
  if (level === 'public') return OK;
  if (who === null) return refuse('unauthorized');
  if (!isPrincipal(who)) return refuse(who);
  if (who.kind === 'session') return authorizeSession(who.session!, access);
  if (level === 'session') return refuse('needs-session');
  if (who.kind === 'tenant') return authorizeTenant(who.tenant!, access, params);
  // A node's own secret opens the cluster routes (each checks what that node may do there), nothing else.
  if (who.kind === 'node') return level === 'cluster' ? OK : refuse('forbidden');
  if (who.scopes.has('admin')) return OK;
  switch (level) {
    case 'cluster':
      if (who.kind === 'cluster') return access.enrolment ? OK : refuse('node-only');
      return extraScopes.some((s) => who.scopes.has(s)) ? OK : refuse('forbidden');
    case 'service':
      if (who.kind === 'service') return OK;
      if (who.kind !== 'jwt') return refuse('forbidden');
      return authorizeScopedJwt(who.scopes, access);
    case 'admin':
      return who.kind === 'jwt' && extraScopes.some((s) => who.scopes.has(s)) ? OK : refuse('forbidden');
  }
}

/**
 * A game server's own credential passes only the service-level routes its role's plugins
 * call (the route's `tenants`), and `own` ones only for its own name: never an admin, cluster
 * or session route.
 */
function authorizeTenant(tenant: TenantIdentity, access: Access, params: Readonly<Record<string, string>> | undefined): Verdict {
  const reach = access.auth === 'service' ? access.tenants?.[tenant.role] : undefined;
  if (!reach) return { ok: false, reason: 'tenant-route', tenant };
  if (reach === 'own' && params?.name !== tenant.service) return { ok: false, reason: 'tenant-other', tenant };
  return OK;
}

/**
 * A JWT below admin at service level: its read scopes read, its write scopes write (a route
 * may name the write scope it takes, e.g. `groups:write`; otherwise `services:write`), and
 * none of them speaks for players.
 */
function authorizeScopedJwt(scopes: ReadonlySet<string>, access: Access): Verdict {
  const extra = access.scopes ?? [];
  const held = (list: readonly string[]) => list.some((s) => scopes.has(s));
  if (!held(READ_SCOPES) && !held(extra)) return refuse('forbidden');
  if (access.speaksForPlayers) return refuse('players-only');
  if (access.reads !== false) return OK;
  return held(extra.length > 0 ? extra : [DEFAULT_WRITE_SCOPE]) ? OK : refuse('read-only');
}

/**
 * A dashboard session passes by the node the route declares (admins pass every node), never a
 * cluster or machine-only route, and, while it must still enrol in TOTP, only the login and
 * profile routes.
 */
function authorizeSession(session: SessionIdentity, access: Access): Verdict {
  if (access.auth === 'cluster' || access.machineOnly || access.speaksForPlayers) return refuse('machine-only');
  if (session.mustEnrollTotp && !access.enrolmentOpen) return refuse('totp-required');
  if (access.auth === 'session') return OK;
  const node = access.permission ?? ADMIN_NODE;
  return session.has(node) ? OK : { ok: false, reason: 'missing-node', node };
}
