/**
 * Who a caller is and what they may call: the API's credentials (master, derived service and
 * cluster tokens, JWTs, the directories of sessions, services and nodes), route levels and
 * scopes, and the decision a route's guard asks for. Core, so the kernel, the HTTP layer, the
 * sockets, the cluster and the modules share it without the kernel naming the HTTP layer.
 *
 * What the rest of the controller uses; the files next to this one hold each part.
 */
export { ADMIN_NODE, type Access, type TenantReach, type Verdict } from './access';
export { Authenticator, JWT_MIN_LIFETIME_SECONDS, type AuthSecrets, type NodeDirectory } from './authenticator';
export { holdsAdmin, isPrincipal, sessionPrincipal, tenantPrincipal, type CredentialKind, type Identification, type Principal, type Refusal } from './principal';
export { AUTH_LEVELS, SCOPES, SERVICE_SCOPES, type AuthLevel, type Scope } from './scopes';
export { deriveServiceToken, generateToken, NODE_TOKEN_PREFIX, secretEquals, SERVICE_TOKEN_MESSAGE, TICKET_PREFIX } from './secrets';
export { TENANT_ROLES, TENANT_TOKEN_PREFIX, type TenantDirectory, type TenantIdentity, type TenantRole } from '../tenancy/identity';
