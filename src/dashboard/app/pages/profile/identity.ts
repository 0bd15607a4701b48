/**
 * Who the dashboard is signed in as. A JWT says so itself (three dot-separated parts whose middle
 * decodes to its claims: subject, scopes, expiry; read for display only, the controller checks
 * the signature). A game account's session (how the operator signed in: api.ts signInKind) is
 * asked GET /api/auth/me; any other token a route only an admin API token may call
 * (GET /api/tokens/scopes), which answers for the master token. Neither meets a refusal here.
 */
import { api, ApiFailure, signInKind, storedToken } from '../../api';

export interface SessionUser {
  uuid: string;
  name: string;
  permissions: string[];
  isAdmin: boolean;
  totpEnabled: boolean;
}

export type Identity =
  | { kind: 'jwt'; subject: string; scopes: string[]; expiresAt: Date | null; issuedAt: Date | null }
  | { kind: 'master' }
  /** An API token below admin (the derived service token, for one). */
  | { kind: 'service' }
  | { kind: 'session'; user: SessionUser };

/** The JWT's claims, or null when the token is not one. */
export function jwtClaims(token: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const json = atob(parts[1]!.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(parts[1]!.length / 4) * 4, '='));
    const claims = JSON.parse(json) as unknown;
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const date = (seconds: unknown) => (typeof seconds === 'number' ? new Date(seconds * 1000) : null);

export async function identify(): Promise<Identity> {
  const claims = jwtClaims(storedToken() ?? '');
  if (claims) {
    const scopes = Array.isArray(claims.scopes) ? claims.scopes.filter((s): s is string => typeof s === 'string') : [];
    return { kind: 'jwt', subject: typeof claims.sub === 'string' ? claims.sub : 'jwt', scopes, expiresAt: date(claims.exp), issuedAt: date(claims.iat) };
  }
  if (signInKind() === 'session') return { kind: 'session', user: await api<SessionUser>('/api/auth/me') };
  try {
    await api('/api/tokens/scopes');
    return { kind: 'master' };
  } catch (error) {
    if (!(error instanceof ApiFailure) || error.status !== 403) throw error;
  }
  try {
    return { kind: 'session', user: await api<SessionUser>('/api/auth/me') };
  } catch (error) {
    // Refused as "not a session" (403) or no auth module at all (404): an API token below admin.
    if (error instanceof ApiFailure && (error.status === 403 || error.status === 404)) return { kind: 'service' };
    throw error;
  }
}
