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
export const READ_SCOPES: readonly Scope[] = [...SERVICE_SCOPES, 'groups:write'];
/** What a service-level write asks of a JWT when the route names no scope of its own. */
export const DEFAULT_WRITE_SCOPE: Scope = 'services:write';
