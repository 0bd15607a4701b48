/** A game server's role, as its own credential records it. */
export type TenantRole = 'proxy' | 'backend';
export const TENANT_ROLES: readonly TenantRole[] = ['proxy', 'backend'];

/** The service behind a per-service credential. */
export interface TenantIdentity {
  service: string;
  role: TenantRole;
}

/** Looks up a presented per-service credential by the SHA-256 (hex) of the token. */
export interface TenantDirectory {
  identify(tokenSha256Hex: string): TenantIdentity | undefined;
}

/** Prefix of every per-service credential: tells them apart from other tokens without a look-up. */
export const TENANT_TOKEN_PREFIX = 'svcs_';
