import { createHmac, randomBytes } from 'node:crypto';
import type { DashboardSessions } from '../module-services';
import { TENANT_TOKEN_PREFIX, type TenantDirectory } from '../tenancy/identity';
import { authorize, type Access, type Verdict } from './access';
import { isPrincipal, NO_SCOPES, sessionPrincipal, tenantPrincipal, type Identification, type Principal } from './principal';
import { SERVICE_SCOPES } from './scopes';
import { Tickets } from './tickets';
import { deriveServiceToken, digest, NODE_TOKEN_PREFIX, Secret, TICKET_PREFIX } from './secrets';

/** The JWT library loads with the first JWT minted or checked, not at start. */
const joseCode = () => import('jose');

/** Label of the JWT signing key, derived from the master token so the key itself never leaves. */
const JWT_KEY_LABEL = 'svc-jwt-signing-key';
const JWT_ISSUER = 'svc';
export const JWT_MIN_LIFETIME_SECONDS = 60;

/** Looks up a presented node secret by the SHA-256 (hex) of the token: the node id, while the node is enrolled. */
export interface NodeDirectory {
  identify(tokenSha256Hex: string): string | undefined;
}

export interface AuthSecrets {
  masterToken: string;
  clusterToken: string;
  jwtEnabled: boolean;
}

/**
 * Tells who presented a token (identify) and whether they may use a route (authorize): the
 * master, derived service and cluster tokens, minted JWTs, and the directories that join
 * later (the auth module's sessions, the services' own credentials, enrolled nodes).
 */
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
  /** `wt_` tickets minted by API-token holders (GET /api/ws-ticket); sessions' are the auth module's. */
  private readonly tokenTickets = new Tickets<Principal>();

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
      // A ticket is in one book or neither: looking it up in the other spends nothing.
      const session = this.sessions()?.redeemTicket(token);
      if (session) return sessionPrincipal(session);
      return this.tokenTickets.redeem(token) ?? 'invalid';
    }
    const identified = this.identify(token);
    // A URL ends up in logs and browser history: a session token there is refused (its
    // single-use ticket is what a browser puts in ?token=); machine credentials may, as the spec allows.
    if (!fromQuery) return identified;
    return identified instanceof Promise ? identified.then(refuseSessionInUrl) : refuseSessionInUrl(identified);
  }

  /**
   * A single-use `wt_` ticket (30 s) standing for an API-token holder, for ?token= on a
   * WebSocket: a browser signed in with a token never puts the token itself in a URL. The
   * socket then admits exactly what the token would.
   */
  mintTicket(principal: Principal): { ticket: string; expiresAt: number } {
    this.tokenTickets.sweep();
    return this.tokenTickets.mint(principal.actor, principal);
  }

  private identifySession(token: string, tokenHash: string): Identification {
    const found = this.sessions()?.validate(token, tokenHash) ?? null;
    if (found === null) return 'invalid';
    if (found === 'expired') return 'session-expired';
    if (found === 'revoked') return 'session-revoked';
    return sessionPrincipal(found);
  }

  /** Whether an identified caller may use a route or socket that asks `access` (see access.ts). */
  authorize(who: Identification, access: Access, params?: Readonly<Record<string, string>>): Verdict {
    return authorize(who, access, params);
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

function refuseSessionInUrl(who: Identification): Identification {
  return isPrincipal(who) && who.kind === 'session' ? 'invalid' : who;
}
