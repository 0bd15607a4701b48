import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Actor } from '../events/catalogue';

/**
 * Who may call a route:
 *   public  - anyone
 *   cluster - the cluster token (agents); the master token and admin JWTs too
 *   service - derived service token, master token, or a JWT with admin or a service scope
 *   admin   - master token or admin JWT; derived service tokens are refused
 */
export type AuthLevel = 'public' | 'cluster' | 'service' | 'admin';

export const AUTH_LEVELS: readonly AuthLevel[] = ['public', 'cluster', 'service', 'admin'];

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

/** Scopes that open every service-level route. */
export const SERVICE_SCOPES: readonly Scope[] = ['services:read', 'services:write', 'groups:read', 'metrics:read'];

/** Fixed message of the derived service token: hex HMAC-SHA256(master token, this). Public. */
export const SERVICE_TOKEN_MESSAGE = 'svc-service-token';
/** Label of the JWT signing key, derived from the master token so the key itself never leaves. */
const JWT_KEY_LABEL = 'svc-jwt-signing-key';
const JWT_ISSUER = 'svc';
export const JWT_MIN_LIFETIME_SECONDS = 60;

export type CredentialKind = 'master' | 'service' | 'cluster' | 'jwt';

export interface Principal {
  kind: CredentialKind;
  scopes: ReadonlySet<string>;
  actor: Actor;
  subject?: string;
}

export type Identification = Principal | 'invalid' | null;
export type Verdict = 'ok' | 'unauthorized' | 'invalid' | 'forbidden';

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
    if (this.secrets.jwtEnabled && token.split('.').length === 3) return this.verifyJwt(token);
    return 'invalid';
  }

  /** Decides whether an identified caller may use a route of this level (plus extra scopes). */
  authorize(who: Identification, level: AuthLevel, extraScopes: readonly string[] = []): Verdict {
    if (level === 'public') return 'ok';
    if (who === null) return 'unauthorized';
    if (who === 'invalid') return 'invalid';
    if (who.scopes.has('admin')) return 'ok';
    switch (level) {
      case 'cluster':
        return who.kind === 'cluster' || extraScopes.some((s) => who.scopes.has(s)) ? 'ok' : 'forbidden';
      case 'service':
        if (who.kind === 'service') return 'ok';
        return SERVICE_SCOPES.some((s) => who.scopes.has(s)) || extraScopes.some((s) => who.scopes.has(s)) ? 'ok' : 'forbidden';
      case 'admin':
        return who.kind === 'jwt' && extraScopes.some((s) => who.scopes.has(s)) ? 'ok' : 'forbidden';
    }
  }

  async mintJwt(subject: string, scopes: readonly string[], expiresInSeconds: number): Promise<{ token: string; expiresAt: Date }> {
    const now = Math.floor(Date.now() / 1000);
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
