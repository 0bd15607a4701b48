import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Actor } from '../events/catalogue';
import type { DashboardSessions, SessionIdentity } from '../core/module-services';
import { TENANT_TOKEN_PREFIX, type TenantDirectory, type TenantIdentity, type TenantRole } from '../core/tenancy/identity';

export { TENANT_ROLES, TENANT_TOKEN_PREFIX, type TenantDirectory, type TenantIdentity, type TenantRole } from '../core/tenancy/identity';

/** The JWT library loads with the first JWT minted or checked, not at start. */
const joseCode = () => import('jose');

/**
 * Who may call a route:
 *   public  - anyone
 *   cluster - the cluster token (agents); the master token and admin JWTs too
 *   service - derived service token, master token, or a JWT with admin or a service scope
 *   admin   - master token or admin JWT; derived service tokens are refused
 *   session - a dashboard session only (its own sessions, TOTP, passkeys): API tokens have no
 *             dashboard identity and are refused
 * Dashboard sessions (auth module) pass service and admin routes by the route's permission
 * node, never cluster routes, never machine-only ones.
 */
export type AuthLevel = 'public' | 'cluster' | 'service' | 'admin' | 'session';

export const AUTH_LEVELS: readonly AuthLevel[] = ['public', 'cluster', 'service', 'admin', 'session'];

/** Every scope a JWT may carry (GET /api/tokens/scopes lists them sorted). */
export const SCOPES = [
  'admin',
  'audit:read',
  'cluster:read',
  'cluster:write',
  'config:read',
  'config:write',
  'files:read',
  'files:write',
  'groups:read',
  'groups:write',
  'metrics:read',
  'services:read',
  'services:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes that open service-level routes (the spec's list): to read; writing asks for a write scope. */
export const SERVICE_SCOPES: readonly Scope[] = ['services:read', 'services:write', 'groups:read', 'metrics:read'];
/** Scopes that read every service-level route: a write scope reads what it may change. */
const READ_SCOPES: readonly Scope[] = [...SERVICE_SCOPES, 'groups:write'];
/** What a service-level write asks of a JWT when the route names no scope of its own. */
const DEFAULT_WRITE_SCOPE: Scope = 'services:write';

/** Fixed message of the derived service token: hex HMAC-SHA256(master token, this). Public. */
export const SERVICE_TOKEN_MESSAGE = 'svc-service-token';
/** Label of the JWT signing key, derived from the master token so the key itself never leaves. */
const JWT_KEY_LABEL = 'svc-jwt-signing-key';
const JWT_ISSUER = 'svc';
export const JWT_MIN_LIFETIME_SECONDS = 60;

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

/** Prefix of every node secret: tells them apart from other tokens without a look-up. */
export const NODE_TOKEN_PREFIX = 'svcn_';

/** Looks up a presented node secret by the SHA-256 (hex) of the token: the node id, while the node is enrolled. */
export interface NodeDirectory {
  identify(tokenSha256Hex: string): string | undefined;
}

/** Which service credentials a route admits, by role: every target (`any`) or only their own `:name` (`own`). */
export type TenantReach = Partial<Record<TenantRole, 'any' | 'own'>>;

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

const OK: Verdict = { ok: true };
const refuse = (reason: Exclude<Verdict, { ok: true }>['reason'] & string): Verdict => ({ ok: false, reason }) as Verdict;

export function deriveServiceToken(masterToken: string): string {
  return createHmac('sha256', masterToken).update(SERVICE_TOKEN_MESSAGE).digest('hex');
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Constant-time equality that also hides the length; a blank secret never matches. */
export function secretEquals(presented: string, secret: string): boolean {
  if (secret.length === 0) return false;
  return timingSafeEqual(digest(presented), digest(secret));
}

/**
 * A secret held as its SHA-256 digest, so each check hashes only the presented token and
 * compares fixed-length digests in constant time. A blank secret never matches.
 */
class Secret {
  private readonly hash: Buffer | null;
  constructor(value: string) {
    this.hash = value.length > 0 ? digest(value) : null;
  }
  matches(presentedDigest: Buffer): boolean {
    return this.hash !== null && timingSafeEqual(presentedDigest, this.hash);
  }
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface AuthSecrets {
  masterToken: string;
  clusterToken: string;
  jwtEnabled: boolean;
}

export class Authenticator {
  readonly serviceToken: string;
  private readonly jwtKey: Uint8Array;
  private readonly master: Secret;
  private readonly service: Secret;
  private readonly cluster: Secret;

  /** The auth module's sessions, looked up per request (absent while the module is not loaded). */
  private sessions: () => DashboardSessions | undefined = () => undefined;
  /** The per-service credentials the controller handed out (none until the services layer is up). */
  private tenants: TenantDirectory | undefined;
  /** The enrolled nodes' secrets (none without a cluster). */
  private nodes: NodeDirectory | undefined;

  constructor(private readonly secrets: AuthSecrets) {
    this.serviceToken = secrets.masterToken ? deriveServiceToken(secrets.masterToken) : '';
    this.jwtKey = createHmac('sha256', secrets.masterToken).update(JWT_KEY_LABEL).digest();
    this.master = new Secret(secrets.masterToken);
    this.service = new Secret(this.serviceToken);
    this.cluster = new Secret(secrets.clusterToken);
  }

  get jwtEnabled(): boolean {
    return this.secrets.jwtEnabled;
  }

  /** Lets dashboard session tokens (auth module) authenticate too. */
  useSessions(source: () => DashboardSessions | undefined): void {
    this.sessions = source;
  }

  /** Lets per-service credentials (core/tenancy) authenticate. */
  useTenants(directory: TenantDirectory): void {
    this.tenants = directory;
  }

  /** Lets enrolled nodes' secrets (the cluster) authenticate. */
  useNodes(directory: NodeDirectory): void {
    this.nodes = directory;
  }

  /** Calls `ended` once when the session is revoked; returns the function that stops watching. */
  watchSession(sessionId: string, ended: () => void): () => void {
    const stop = this.sessions()?.onRevoked((id) => {
      if (id !== sessionId) return;
      stop?.();
      ended();
    });
    return stop ?? (() => {});
  }

  /**
   * Maps a presented bearer token to a principal; null when none was presented. Synchronous
   * but for JWTs, whose verification is asynchronous: the hot path allocates no promise.
   */
  identify(token: string | null | undefined): Identification | Promise<Identification> {
    if (!token) return null;
    // All three comparisons always run, so timing says nothing about which secret matched.
    const presented = digest(token);
    const master = this.master.matches(presented);
    const service = this.service.matches(presented);
    const cluster = this.cluster.matches(presented);
    if (master) return { kind: 'master', scopes: new Set(['admin']), actor: 'api:admin' };
    if (service) return { kind: 'service', scopes: new Set(SERVICE_SCOPES), actor: 'api:service' };
    if (cluster) return { kind: 'cluster', scopes: new Set(), actor: 'api:cluster' };
    if (token.startsWith(TENANT_TOKEN_PREFIX)) return this.identifyTenant(presented.toString('hex'));
    if (token.startsWith(NODE_TOKEN_PREFIX)) return this.identifyNode(presented.toString('hex'));
    if (this.secrets.jwtEnabled && token.split('.').length === 3) return this.verifyJwt(token);
    // Sessions are stored by the same SHA-256: the digest already taken is the look-up key.
    return this.identifySession(token, presented.toString('hex'));
  }

  private identifyNode(tokenHash: string): Identification {
    const nodeId = this.nodes?.identify(tokenHash);
    return nodeId ? { kind: 'node', scopes: NO_SCOPES, actor: `api:node:${nodeId}`, subject: nodeId, node: nodeId } : 'invalid';
  }

  private identifyTenant(tokenHash: string): Identification {
    const tenant = this.tenants?.identify(tokenHash);
    return tenant ? tenantPrincipal(tenant) : 'invalid';
  }

  /**
   * As identify, for WebSockets: a `wt_` ticket (single use, 30 s) stands for the session that
   * minted it, so browsers never put the session token itself in a URL.
   */
  identifySocket(token: string | null | undefined, fromQuery = false): Identification | Promise<Identification> {
    if (token?.startsWith(TICKET_PREFIX)) {
      const session = this.sessions()?.redeemTicket(token);
      return session ? sessionPrincipal(session) : 'invalid';
    }
    const identified = this.identify(token);
    // A URL ends up in logs and browser history: a session token there is refused (its
    // single-use ticket is what a browser puts in ?token=); machine credentials may, as the spec allows.
    if (!fromQuery) return identified;
    return identified instanceof Promise ? identified.then(refuseSessionInUrl) : refuseSessionInUrl(identified);
  }

  private identifySession(token: string, tokenHash: string): Identification {
    const found = this.sessions()?.validate(token, tokenHash) ?? null;
    if (found === null) return 'invalid';
    if (found === 'expired') return 'session-expired';
    if (found === 'revoked') return 'session-revoked';
    return sessionPrincipal(found);
  }

  /**
   * Decides whether an identified caller may use a route or socket that asks this. `params`:
   * the request's path parameters, for routes a service's credential may call on its own
   * `:name` only.
   */
  authorize(who: Identification, access: Access, params?: Readonly<Record<string, string>>): Verdict {
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

  async mintJwt(subject: string, scopes: readonly string[], expiresInSeconds: number): Promise<{ token: string; expiresAt: Date }> {
    const now = Math.floor(Date.now() / 1000);
    const { SignJWT } = await joseCode();
    const token = await new SignJWT({ scopes: [...scopes] })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(JWT_ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + expiresInSeconds)
      .setJti(randomBytes(12).toString('base64url'))
      .sign(this.jwtKey);
    return { token, expiresAt: new Date((now + expiresInSeconds) * 1000) };
  }

  private async verifyJwt(token: string): Promise<Identification> {
    const { jwtVerify, errors: joseErrors } = await joseCode();
    try {
      const { payload } = await jwtVerify(token, this.jwtKey, { algorithms: ['HS256'], issuer: JWT_ISSUER });
      const scopes = Array.isArray(payload.scopes) ? payload.scopes.filter((s): s is string => typeof s === 'string') : [];
      const subject = typeof payload.sub === 'string' ? payload.sub : 'jwt';
      return { kind: 'jwt', scopes: new Set(scopes), actor: `api:jwt:${subject}`, subject };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return 'invalid';
      throw error;
    }
  }
}

/** Prefix of the single-use WebSocket tickets a session mints (`GET /api/auth/ws-ticket`). */
export const TICKET_PREFIX = 'wt_';

const NO_SCOPES: ReadonlySet<string> = new Set();

export function sessionPrincipal(session: SessionIdentity): Principal {
  return { kind: 'session', scopes: NO_SCOPES, actor: `dashboard:${session.name}`, subject: session.uuid, session };
}

export function tenantPrincipal(tenant: TenantIdentity): Principal {
  return { kind: 'tenant', scopes: NO_SCOPES, actor: `api:service:${tenant.service}`, subject: tenant.service, tenant };
}

function refuseSessionInUrl(who: Identification): Identification {
  return isPrincipal(who) && who.kind === 'session' ? 'invalid' : who;
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
