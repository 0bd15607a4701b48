import type { AuthConfig } from './config';

/** Who the dashboard is to an authenticator: the RP id passkeys are bound to, and the origins it runs on. */
export interface RelyingParty {
  id: string;
  name: string;
  /** Serialised origins (scheme://host[:port], default port omitted), compared exactly. */
  origins: string[];
  /** Also accept an origin with the scheme and host of a listed one on any port. */
  allowOriginPort: boolean;
}

/**
 * The relying party of a `[webauthn]` section. id: `rp_id`, else the host of `publicUrl`, else
 * `localhost`. origins: `origins`, else the origin of `publicUrl`, else `https://<id>` (plus
 * `http://localhost` when the id is localhost, which browsers treat as secure).
 * Throws when `rp_id` or an entry of `origins` cannot be what it must be: a configuration error
 * that would otherwise surface later as every passkey ceremony failing.
 */
export function relyingPartyOf(webauthn: AuthConfig['webauthn'], publicUrl: string): RelyingParty {
  const publicOrigin = parseUrl(publicUrl.trim());
  const configuredId = webauthn.rp_id.trim().toLowerCase();
  if (configuredId !== '' && !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(configuredId)) {
    throw new Error(`webauthn.rp_id "${webauthn.rp_id}" must be the dashboard host name only (no scheme, port or path)`);
  }
  const id = configuredId || publicOrigin?.hostname || 'localhost';
  const configured = webauthn.origins.map((o) => o.trim()).filter((o) => o !== '');
  const origins = configured.length > 0 ? configured.map(originOf) : derivedOrigins(id, publicOrigin);
  return { id, name: webauthn.rp_name, origins: [...new Set(origins)], allowOriginPort: webauthn.allow_origin_port };
}

/** Whether a browser-reported origin (clientDataJSON.origin) is one this relying party runs on. */
export function acceptsOrigin(rp: RelyingParty, origin: string): boolean {
  if (rp.origins.includes(origin)) return true;
  if (!rp.allowOriginPort) return false;
  const seen = parseUrl(origin);
  // Only a bare origin qualifies: a path, credentials or query would not come from a browser.
  if (!seen || seen.origin !== origin) return false;
  return rp.origins.some((allowed) => {
    const url = new URL(allowed);
    return url.protocol === seen.protocol && url.hostname === seen.hostname;
  });
}

function derivedOrigins(id: string, publicOrigin: URL | null): string[] {
  if (publicOrigin) return [publicOrigin.origin];
  return id === 'localhost' ? ['https://localhost', 'http://localhost'] : [`https://${id}`];
}

function originOf(configured: string): string {
  const url = parseUrl(configured);
  if (!url) {
    throw new Error(`webauthn.origins entry "${configured}" must be an origin like https://host[:port]`);
  }
  return url.origin;
}

function parseUrl(text: string): URL | null {
  if (text === '') return null;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}
