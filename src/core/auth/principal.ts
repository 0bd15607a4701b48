import type { Actor } from '../../events/catalogue';
import type { SessionIdentity } from '../module-services';
import type { TenantIdentity } from '../tenancy/identity';

/**
 * master  - the operator's token
 * service - the spec's derived service token (shared; svc hands it to no service any more)
 * cluster - agents
 * jwt     - a minted token with scopes
 * session - a dashboard session (auth module)
 * tenant  - one game server's own credential, bound to its name and role (core/tenancy)
 * node    - one agent node's own secret, handed out when it enrolled with the cluster token
 */
export type CredentialKind = 'master' | 'service' | 'cluster' | 'jwt' | 'session' | 'tenant' | 'node';

/** Who made a request: the credential it presented, as the routes and the audit log see it. */
export interface Principal {
  kind: CredentialKind;
  /** JWT scopes; `admin` for the master token. Always empty for sessions: they pass by nodes. */
  scopes: ReadonlySet<string>;
  actor: Actor;
  subject?: string;
  /** The dashboard session behind a `session` principal. */
  session?: SessionIdentity;
  /** The service behind a `tenant` principal. */
  tenant?: TenantIdentity;
  /** The node id behind a `node` principal. */
  node?: string;
}

/** A presented token that opens nothing: wrong or malformed, or a session that has ended. */
export type Refusal = 'invalid' | 'session-expired' | 'session-revoked';
export type Identification = Principal | Refusal | null;

export const isPrincipal = (who: Identification): who is Principal => who !== null && typeof who === 'object';

/**
 * Whether this caller is the operator: the master token, a JWT with the `admin` scope, or a
 * dashboard session of an admin (`svc.dashboard.admin` or `*`). What only the operator may do
 * (choose what runs on the host, grant admin-equivalent nodes) asks this, never the route level.
 */
export function holdsAdmin(who: Principal | null | undefined): boolean {
  if (!who) return false;
  if (who.kind === 'session') return who.session?.isAdmin === true;
  return who.scopes.has('admin');
}

export const NO_SCOPES: ReadonlySet<string> = new Set();

export function sessionPrincipal(session: SessionIdentity): Principal {
  return { kind: 'session', scopes: NO_SCOPES, actor: `dashboard:${session.name}`, subject: session.uuid, session };
}

export function tenantPrincipal(tenant: TenantIdentity): Principal {
  return { kind: 'tenant', scopes: NO_SCOPES, actor: `api:service:${tenant.service}`, subject: tenant.service, tenant };
}
