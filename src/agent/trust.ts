import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type as T, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { writeFileAtomic } from '../config/write';
import { fingerprintOfPem } from '../cluster/certificate';

const PinnedSchema = T.Object({ fingerprint: T.String(), certPem: T.String(), wsUrl: T.String(), pinnedAt: T.String() });
export type Pinned = Static<typeof PinnedSchema>;

/** Why the controller's certificate could not be pinned; `retryable` when waiting may fix it (the controller is not up yet). */
export class TrustError extends Error {
  constructor(
    message: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

/**
 * Trust on first use, then strict. Without a pin, the bootstrap route (cluster token, over the
 * REST port) gives the certificate; it must hash to the fingerprint it claims, and to
 * `agent.fingerprint` when the operator set one. It is then pinned in `data/pinned.json` and
 * only that certificate is accepted from then on: a controller presenting another one is
 * refused until the operator removes the pin. A plain ws:// cluster pins nothing.
 */
export async function establishTrust(options: { dataDir: string; controller: string; token: string; fingerprint: string; fetch?: typeof fetch }): Promise<Pinned> {
  const file = join(options.dataDir, 'pinned.json');
  if (existsSync(file)) {
    const pinned: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!Value.Check(PinnedSchema, pinned)) throw new TrustError(`${file} is damaged: remove it to pin the controller's certificate again`);
    if (options.fingerprint && pinned.certPem && !sameFingerprint(pinned.fingerprint, options.fingerprint)) {
      throw new TrustError(`the pinned certificate (${pinned.fingerprint}) is not the one agent.fingerprint names (${options.fingerprint}); remove ${file} if the controller's certificate was replaced`);
    }
    return pinned;
  }
  const url = new URL('/api/cluster/bootstrap', options.controller);
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { headers: { authorization: `Bearer ${options.token}` }, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new TrustError(`cannot reach the controller at ${url.origin}: ${(error as Error).message}`, true);
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    // 5xx and 429 pass; a refused token (401/403) or a cluster that is off (404) needs the operator.
    throw new TrustError(`the controller refused the bootstrap request (${response.status}): ${body.message ?? response.statusText}`, response.status >= 500 || response.status === 429);
  }
  const bootstrap = (await response.json()) as { fingerprint: string; certPem: string; wsUrl: string };
  if (bootstrap.certPem) {
    const actual = fingerprintOfPem(bootstrap.certPem);
    if (!sameFingerprint(actual, bootstrap.fingerprint)) throw new TrustError('the bootstrap certificate does not match its own fingerprint: refusing it');
    if (options.fingerprint && !sameFingerprint(actual, options.fingerprint)) {
      throw new TrustError(`the controller's certificate (${actual}) is not the one agent.fingerprint names (${options.fingerprint}): refusing it`);
    }
  }
  const pinned: Pinned = { fingerprint: bootstrap.fingerprint, certPem: bootstrap.certPem, wsUrl: bootstrap.wsUrl, pinnedAt: new Date().toISOString() };
  writeFileAtomic(file, JSON.stringify(pinned, null, 2), { mode: 0o600 });
  return pinned;
}

function sameFingerprint(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/[^0-9a-f]/gi, '').toUpperCase();
  return norm(a) === norm(b);
}
