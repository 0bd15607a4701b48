import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/write';

/**
 * @peculiar/x509 resolves its ASN.1 classes through tsyringe, which needs the Reflect metadata
 * API installed first. Static imports may be reordered by the bundler (the library is CommonJS),
 * so both are loaded on first use, in order.
 */
let x509Module: Promise<typeof import('@peculiar/x509')> | undefined;
function loadX509(): Promise<typeof import('@peculiar/x509')> {
  x509Module ??= import('reflect-metadata').then(() => import('@peculiar/x509'));
  return x509Module;
}

/** The cluster server's TLS identity: what Bun.serve needs and what agents pin. */
export interface ClusterCertificate {
  certPem: string;
  keyPem: string;
  /** SHA-256 of the DER certificate, upper-case hex pairs joined by colons. */
  fingerprint: string;
  validUntil: Date;
  sans: string[];
}

const CERT_FILE = 'cluster.crt';
const KEY_FILE = 'cluster.key';
const VALID_DAYS = 5 * 365;
/** A certificate this close to its end is replaced at start, before agents start failing. */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** The names the certificate must cover: loopback, this host's name, `public_host`, `extra_sans`. */
export function wantedSans(publicHost: string, extraSans: readonly string[]): string[] {
  const names = ['localhost', '127.0.0.1', '::1', hostname(), publicHost, ...extraSans].map((s) => s.trim()).filter((s) => s !== '');
  return [...new Set(names)];
}

/**
 * Loads the certificate from `dir`, or makes a self-signed one on first start (and again when
 * it nears its end or no longer covers a configured name; agents pinned to the old one then
 * refuse it until re-pinned, which is logged by the caller). The key file is 0600.
 */
export async function loadOrCreateCertificate(dir: string, sans: readonly string[], now = new Date()): Promise<{ certificate: ClusterCertificate; created: boolean; reason?: string }> {
  const certPath = join(dir, CERT_FILE);
  const keyPath = join(dir, KEY_FILE);
  if (existsSync(certPath) && existsSync(keyPath)) {
    const certPem = readFileSync(certPath, 'utf8');
    const keyPem = readFileSync(keyPath, 'utf8');
    const existing = await describe(certPem, keyPem);
    const missing = sans.filter((name) => !existing.sans.includes(name));
    const expiring = existing.validUntil.getTime() - now.getTime() < RENEW_BEFORE_MS;
    if (missing.length === 0 && !expiring) return { certificate: existing, created: false };
    const reason = expiring ? 'the old one expires soon' : `it did not cover ${missing.join(', ')}`;
    return { certificate: await create(dir, sans, now), created: true, reason };
  }
  return { certificate: await create(dir, sans, now), created: true, reason: 'first start' };
}

async function create(dir: string, sans: readonly string[], now: Date): Promise<ClusterCertificate> {
  const x509 = await loadX509();
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const notAfter = new Date(now.getTime() + VALID_DAYS * 24 * 3600 * 1000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1'),
    name: `CN=svc controller ${hostname()}`,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter,
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(sans.map((value) => ({ type: isIP(value) ? 'ip' : 'dns', value }))),
    ],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  const keyPem = x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
  const certPem = cert.toString('pem');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The key first: a certificate on disk always has its key beside it.
  writeFileAtomic(join(dir, KEY_FILE), keyPem, { mode: 0o600 });
  writeFileAtomic(join(dir, CERT_FILE), certPem, { mode: 0o644 });
  return describe(certPem, keyPem);
}

async function describe(certPem: string, keyPem: string): Promise<ClusterCertificate> {
  const x509 = await loadX509();
  const cert = new x509.X509Certificate(certPem);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  return {
    certPem,
    keyPem,
    fingerprint: fingerprintOf(new Uint8Array(cert.rawData)),
    validUntil: cert.notAfter,
    sans: san ? san.names.items.map((name) => name.value) : [],
  };
}

/** SHA-256 of DER bytes as `AB:CD:…`, the form the bootstrap object and agent.toml use. */
export function fingerprintOf(der: Uint8Array): string {
  const hex = new Bun.CryptoHasher('sha256').update(der).digest('hex').toUpperCase();
  return hex.match(/../g)!.join(':');
}

/** The fingerprint of a PEM certificate (the SHA-256 of the DER inside it). */
export function fingerprintOfPem(pem: string): string {
  const body = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(pem)?.[1];
  if (!body) throw new Error('not a PEM certificate');
  return fingerprintOf(new Uint8Array(Buffer.from(body.replace(/\s+/g, ''), 'base64')));
}
