import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { chmodSync, constants as fsConstants, copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { basename, join } from 'node:path';
import { ConfigError } from '../config/load';
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
  /** The private key as unencrypted PKCS#8 PEM, in memory only (the file may be encrypted). */
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

/** How the key file is kept. */
export interface KeystoreOptions {
  /** `[cluster] keystore_password`: the key file is encrypted with it; blank: stored plain. */
  password?: string;
  /** `[cluster] keystore_previous_password`: what the file is encrypted with when `password` changed or was cleared. */
  previousPassword?: string;
  now?: Date;
}

/** What a start did to the key file besides reading it. */
export type KeyConversion = 'encrypted' | 'decrypted' | 're-encrypted';

/**
 * Loads the certificate from `dir`, or makes a self-signed one on first start (and again when
 * it nears its end or no longer covers a configured name; agents pinned to the old one then
 * refuse it until re-pinned, which is logged by the caller). The key file is 0600.
 *
 * With `password` the key file is encrypted PKCS#8 (PBES2: PBKDF2-SHA256, AES-256-CBC), the
 * form `openssl pkey -in cluster.key` asks a passphrase for. A plain key found while a password
 * is set is encrypted in place, once. To clear or change the password, the one the file is
 * encrypted with is given as `previousPassword` for a start: the key is written back plain or
 * under the new one, once. The key itself, and so the certificate and every agent's pin, stay
 * the same; every rewrite is atomic and 0600. A key no password given opens stops the start
 * with a ConfigError and leaves the files alone: a key is never replaced because it could not
 * be read. No message says a password.
 */
export async function loadOrCreateCertificate(
  dir: string,
  sans: readonly string[],
  options: KeystoreOptions = {},
): Promise<{ certificate: ClusterCertificate; created: boolean; reason?: string; converted?: KeyConversion; previousUnused?: boolean }> {
  const now = options.now ?? new Date();
  const password = options.password ?? '';
  const previous = options.previousPassword ?? '';
  const certPath = join(dir, CERT_FILE);
  const keyPath = join(dir, KEY_FILE);
  if (existsSync(certPath) && existsSync(keyPath)) {
    const certPem = readFileSync(certPath, 'utf8');
    const keyText = readFileSync(keyPath, 'utf8');
    const { key, openedWith } = openKey(keyText, password, previous, keyPath);
    const existing = await describe(certPem, plainPem(key));
    if (!sameKey(certPem, key)) throw new ConfigError(`${keyPath} is not the key of ${certPath}: put back the pair that belongs together, or remove both so a new certificate is made (every agent must then be pinned again)`);
    const missing = sans.filter((name) => !existing.sans.includes(name));
    const expiring = existing.validUntil.getTime() - now.getTime() < RENEW_BEFORE_MS;
    const previousUnused = previous !== '' && openedWith !== 'previous' ? { previousUnused: true } : {};
    if (missing.length === 0 && !expiring) {
      const converted = convertIfNeeded(keyPath, key, openedWith, password);
      return { certificate: existing, created: false, ...(converted ? { converted } : {}), ...previousUnused };
    }
    const why = expiring ? 'the old one expires soon' : `it did not cover ${missing.join(', ')}`;
    // The pair being replaced stays beside the new one: an agent still pinned to it, or an
    // operator who wants it back, can use it.
    const kept = keepReplaced([keyPath, certPath], now);
    const reason = `${why}; the previous pair is kept as ${kept.join(' and ')}`;
    return { certificate: await create(dir, sans, now, password), created: true, reason, ...previousUnused };
  }
  return { certificate: await create(dir, sans, now, password), created: true, reason: 'first start', ...(previous !== '' ? { previousUnused: true } : {}) };
}

/**
 * Copies each file to `<file>.replaced-<UTC time>` (same mode, never over an existing one)
 * before it is replaced; returns the names given. A key is never replaced without its
 * predecessor kept.
 */
export function keepReplaced(files: readonly string[], now: Date): string[] {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return files.map((file) => {
    let target = `${file}.replaced-${stamp}`;
    for (let n = 2; existsSync(target); n++) target = `${file}.replaced-${stamp}-${n}`;
    copyFileSync(file, target, fsConstants.COPYFILE_EXCL);
    chmodSync(target, statSync(file).mode & 0o777);
    return basename(target);
  });
}

const ENCRYPTED_PEM = /-----BEGIN ENCRYPTED PRIVATE KEY-----/;

/** How the file was opened: it was plain, or which password opened it. */
type OpenedWith = 'plain' | 'password' | 'previous';

/**
 * The key in the file: plain, or opened with `password`, else with `previous`. Throws a
 * ConfigError that names the settings, never their values.
 */
function openKey(keyText: string, password: string, previous: string, keyPath: string): { key: KeyObject; openedWith: OpenedWith } {
  if (!ENCRYPTED_PEM.test(keyText)) {
    try {
      return { key: createPrivateKey({ key: keyText, format: 'pem' }), openedWith: 'plain' };
    } catch {
      throw new ConfigError(`${keyPath} is not a readable private key (PEM): restore it, or remove ${KEY_FILE} and ${CERT_FILE} so a new certificate is made (every agent must then be pinned again)`);
    }
  }
  if (password === '' && previous === '') {
    throw new ConfigError(
      `${keyPath} is encrypted and [cluster] keystore_password is blank: set it (or SVC_CLUSTER_KEYSTORE_PASSWORD) to the password the key was encrypted with; to store the key unencrypted, give that password as [cluster] keystore_previous_password for one start`,
    );
  }
  for (const [candidate, openedWith] of [
    [password, 'password'],
    [previous, 'previous'],
  ] as const) {
    if (candidate === '') continue;
    try {
      return { key: createPrivateKey({ key: keyText, format: 'pem', passphrase: candidate }), openedWith };
    } catch {
      // Not this one.
    }
  }
  const tried = [password !== '' ? '[cluster] keystore_password' : '', previous !== '' ? 'keystore_previous_password' : ''].filter(Boolean).join(' nor with ');
  throw new ConfigError(
    `${keyPath} cannot be decrypted with ${tried}: set the password the key was encrypted with (when changing it, the old one as keystore_previous_password). The key is left as it is; only if that password is lost, remove ${KEY_FILE} and ${CERT_FILE} so a new certificate is made (every agent must then be pinned again)`,
  );
}

/** The key file as `password` wants it: encrypted with it, or plain when it is blank. */
function keyFileText(key: KeyObject, password: string): string {
  if (password === '') return plainPem(key);
  return key.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: password }) as string;
}

function plainPem(key: KeyObject): string {
  return key.export({ format: 'pem', type: 'pkcs8' }) as string;
}

/** Rewrites the key file once when it is not kept as `password` asks (plain, or encrypted with it). */
function convertIfNeeded(keyPath: string, key: KeyObject, openedWith: OpenedWith, password: string): KeyConversion | undefined {
  const wanted: OpenedWith = password === '' ? 'plain' : 'password';
  if (openedWith === wanted) return undefined;
  writeFileAtomic(keyPath, keyFileText(key, password), { mode: 0o600 });
  if (password === '') return 'decrypted';
  return openedWith === 'plain' ? 'encrypted' : 're-encrypted';
}

/** The certificate's public key is the one of `key`. */
function sameKey(certPem: string, key: KeyObject): boolean {
  const ofCert = createPublicKey(certPem).export({ format: 'der', type: 'spki' });
  const ofKey = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return ofCert.equals(ofKey);
}

async function create(dir: string, sans: readonly string[], now: Date, password: string): Promise<ClusterCertificate> {
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
  writeFileAtomic(join(dir, KEY_FILE), keyFileText(createPrivateKey(keyPem), password), { mode: 0o600 });
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
