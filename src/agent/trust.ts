import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { checkServerIdentity, connect, type PeerCertificate } from 'node:tls';
import { Type as T, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { writeFileAtomic } from '../config/write';
import { fingerprintOf } from '../cluster/certificate';

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

/** What the operator decided in agent.toml about trust. */
export interface TrustSettings {
  /** `agent.fingerprint`: the certificate the controller must present (blank: trust on first use). */
  fingerprint: string;
  /** `agent.allow_insecure`: accept a controller without a certificate (plain ws:// and http://). */
  allowInsecure: boolean;
}

/** `fetch` as the data path uses it (the pinned TLS options already applied). */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * The one channel an agent talks to its controller over, derived from the pin: the WebSocket
 * address, the HTTPS origin of the data routes on the same host and port (templates, state),
 * and the TLS options that accept only the pinned certificate. `insecure` when the operator
 * allowed a controller without TLS.
 */
export interface Channel {
  wsUrl: string;
  /** `https://<pinned host>:<agent_port>` (`http://` only when insecure). */
  dataOrigin: string;
  /** For Bun's WebSocket and fetch: the pinned certificate as the only anchor, and its exact fingerprint. */
  tls: PinnedTls | null;
  insecure: boolean;
  /** fetch against the data origin with `tls` applied. */
  fetch: Fetch;
}

export interface PinnedTls {
  ca: string;
  checkServerIdentity(host: string, cert: PeerCertificate): Error | undefined;
}

/**
 * Trust on first use, then strict. Without a pin, the bootstrap route (cluster token, over the
 * REST port) gives the certificate; it must hash to the fingerprint it claims, and to
 * `agent.fingerprint` when the operator set one. It is then pinned in `data/pinned.json` and
 * only that certificate is accepted from then on: a controller presenting another one is
 * refused until the operator removes the pin.
 *
 * A pin can never be downgraded: once there is a certificate (or a fingerprint to expect one),
 * the channel is `wss://` to a host the certificate names (one of its SANs), and the data path
 * is `https://` to the same host and port, each accepting that one certificate. A bootstrap
 * answer (plain HTTP, so anyone on the path can write it) with the right certificate but a
 * `ws://` or foreign address, an extra certificate, or no certificate at all is refused. A
 * controller without TLS (`[cluster] tls_enabled = false`) needs `allow_insecure = true` in
 * agent.toml, and never with a fingerprint set. The same check runs on pinned.json when it is
 * loaded and before every connect (`openChannel`).
 */
export async function establishTrust(options: {
  dataDir: string;
  controller: string;
  token: string;
  fingerprint: string;
  allowInsecure?: boolean;
  /** `agent.cluster_url`: pin from the channel's own handshake (needs `fingerprint`), no bootstrap request. */
  clusterUrl?: string;
  fetch?: typeof fetch;
}): Promise<Pinned> {
  const settings: TrustSettings = { fingerprint: options.fingerprint, allowInsecure: options.allowInsecure ?? false };
  const file = join(options.dataDir, 'pinned.json');
  if (existsSync(file)) {
    let pinned: unknown;
    try {
      pinned = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      pinned = null;
    }
    if (!Value.Check(PinnedSchema, pinned)) throw new TrustError(`${file} is damaged: remove it to pin the controller's certificate again`);
    const problem = pinProblem(pinned, settings);
    if (problem) throw new TrustError(`${file}: ${problem}`);
    return pinned;
  }
  if (options.clusterUrl) return pinFromChannel(file, options.clusterUrl, settings);
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
  const bootstrap = (await response.json().catch(() => null)) as Partial<Record<'fingerprint' | 'certPem' | 'wsUrl', unknown>> | null;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const pinned: Pinned = { fingerprint: text(bootstrap?.fingerprint), certPem: text(bootstrap?.certPem), wsUrl: text(bootstrap?.wsUrl), pinnedAt: new Date().toISOString() };
  const problem = pinProblem(pinned, settings);
  if (problem) throw new TrustError(`the bootstrap answer from ${url.origin} is refused: ${problem}`);
  writeFileAtomic(file, JSON.stringify(pinned, null, 2), { mode: 0o600 });
  return pinned;
}

/**
 * Pins the certificate the cluster channel itself presents, when the operator named the
 * channel (`agent.cluster_url`) and its fingerprint: no bootstrap request is made, so the
 * cluster token never crosses the REST port (which is often plain HTTP); it goes only in the
 * AUTH_REQUEST, inside this TLS channel. The certificate must be the one agent.fingerprint
 * names, and name the channel's host, as every pin must.
 */
async function pinFromChannel(file: string, clusterUrl: string, settings: TrustSettings): Promise<Pinned> {
  const url = new URL(clusterUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || 443);
  let der: Buffer;
  try {
    der = await presentedCertificate(host, port);
  } catch (error) {
    throw new TrustError(`cannot reach the cluster channel at ${url.host}: ${(error as Error).message}`, true);
  }
  const certPem = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  const pinned: Pinned = { fingerprint: fingerprintOf(new Uint8Array(der)), certPem, wsUrl: clusterUrl, pinnedAt: new Date().toISOString() };
  const problem = pinProblem(pinned, settings);
  if (problem) throw new TrustError(`the cluster channel at ${url.host} is refused: ${problem}`);
  writeFileAtomic(file, JSON.stringify(pinned, null, 2), { mode: 0o600 });
  return pinned;
}

/** The certificate a TLS server presents (DER), read from the handshake without trusting it: the caller checks it. */
function presentedCertificate(host: string, port: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, servername: isIP(host) ? undefined : host, rejectUnauthorized: false, minVersion: 'TLSv1.2', timeout: 10_000 }, () => {
      const raw = socket.getPeerCertificate(true)?.raw;
      socket.end();
      if (raw && raw.length > 0) resolve(raw);
      else reject(new Error('it presented no certificate'));
    });
    socket.on('timeout', () => {
      socket.destroy();
      reject(new Error('no TLS handshake within 10 s'));
    });
    socket.on('error', reject);
  });
}

/**
 * The channel a pin stands for, checked again (every connect calls this): TrustError when the
 * pin breaks the rules of `establishTrust`.
 */
export function openChannel(pinned: Pinned, settings: TrustSettings): Channel {
  const problem = pinProblem(pinned, settings);
  if (problem) throw new TrustError(problem);
  const url = new URL(pinned.wsUrl);
  const dataOrigin = `${url.protocol === 'wss:' ? 'https:' : 'http:'}//${url.host}`;
  const tls = pinned.certPem ? pinnedTls(pinned) : null;
  const pinnedFetch: Fetch = (input, init) => fetch(input, { ...init, ...(tls ? { tls } : {}) } as RequestInit);
  return { wsUrl: pinned.wsUrl, dataOrigin, tls, insecure: tls === null, fetch: pinnedFetch };
}

/**
 * TLS options that accept exactly the pinned certificate: it is the only trust anchor, the
 * host must be one it names, and the presented certificate must be it (its SHA-256), so
 * nothing else the key might have signed passes either.
 */
export function pinnedTls(pinned: Pick<Pinned, 'certPem' | 'fingerprint'>): PinnedTls {
  return {
    ca: pinned.certPem,
    checkServerIdentity(host, cert) {
      const names = checkServerIdentity(host, cert);
      if (names) return names;
      if (!cert?.fingerprint256 || !sameFingerprint(cert.fingerprint256, pinned.fingerprint)) {
        return new Error(`the controller presented the certificate ${cert?.fingerprint256 ?? '(none)'}, not the pinned ${pinned.fingerprint}`);
      }
      return undefined;
    },
  };
}

/** Why a pin (from pinned.json or a bootstrap answer) cannot be used, or null. */
export function pinProblem(pinned: Pick<Pinned, 'fingerprint' | 'certPem' | 'wsUrl'>, settings: TrustSettings): string | null {
  let url: URL;
  try {
    url = new URL(pinned.wsUrl);
  } catch {
    return `the channel address ${JSON.stringify(pinned.wsUrl.slice(0, 200))} is not a URL`;
  }
  if (url.username || url.password) return `the channel address ${url.origin} carries credentials`;
  if (pinned.certPem === '') return insecureProblem(url, pinned.fingerprint, settings);
  const cert = singleCertificate(pinned.certPem);
  if (typeof cert === 'string') return cert;
  const actual = fingerprintOf(new Uint8Array(cert.raw));
  if (!sameFingerprint(actual, pinned.fingerprint)) return `the certificate (${actual}) does not match its own fingerprint (${pinned.fingerprint || 'none given'})`;
  if (settings.fingerprint && !sameFingerprint(actual, settings.fingerprint)) {
    return `the controller's certificate (${actual}) is not the one agent.fingerprint names (${settings.fingerprint}); if the controller's certificate was replaced on purpose, update agent.fingerprint and remove data/pinned.json`;
  }
  if (url.protocol !== 'wss:') return `the channel address ${url.origin} is not wss:// although a certificate is pinned: a plain channel would carry the node's secret and every command in clear (a downgrade)`;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const named = isIP(host) ? cert.checkIP(host) : cert.checkHost(host);
  if (!named) return `the channel host ${host} is not one the pinned certificate names (${cert.subjectAltName ?? 'no names'}); the controller's [cluster] public_host or extra_sans decide those`;
  return null;
}

function insecureProblem(url: URL, fingerprint: string, settings: TrustSettings): string | null {
  if (settings.fingerprint) return `agent.fingerprint is set, but the controller offers no certificate: refusing a channel without TLS (is [cluster] tls_enabled = false on the controller?)`;
  if (fingerprint) return 'a fingerprint without its certificate';
  if (!settings.allowInsecure) {
    return 'the controller offers no certificate (a plain ws:// channel): the node secret, the templates and every command would cross the network unprotected. Turn TLS on at the controller ([cluster] tls_enabled = true), or set allow_insecure = true in agent.toml on a network you trust';
  }
  if (url.protocol !== 'ws:') return `the channel address ${url.origin} has no certificate to check it with: with allow_insecure = true only a plain ws:// address is accepted`;
  return null;
}

/** The one certificate of a PEM text; a reason when there is none, more than one, or it cannot be read. */
function singleCertificate(pem: string): X509Certificate | string {
  const blocks = pem.match(/-----BEGIN [^-]+-----/g) ?? [];
  if (blocks.length !== 1 || blocks[0] !== '-----BEGIN CERTIFICATE-----') return `the certificate text must hold exactly one certificate (it holds ${blocks.length} PEM blocks)`;
  try {
    return new X509Certificate(pem);
  } catch (error) {
    return `the certificate cannot be read: ${(error as Error).message}`;
  }
}

function sameFingerprint(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/[^0-9a-f]/gi, '').toUpperCase();
  return norm(a) !== '' && norm(a) === norm(b);
}
