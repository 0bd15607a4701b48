import { createHash, randomBytes } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/**
 * A software WebAuthn authenticator (and the browser around it) for tests: P-256 / ES256 keys
 * from WebCrypto, "none" attestation, discoverable credentials, a signature counter per
 * credential. It builds exactly the bytes a real one sends, so the server verifies them with the
 * real library. Tamper options make the wrong answers a test needs.
 */
export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  /** `aaguid`: the 16-byte model id written into the attested credential data. */
  constructor(readonly aaguid: Uint8Array = randomBytes(16)) {
    if (aaguid.length !== 16) throw new Error('an AAGUID has 16 bytes');
  }

  /** navigator.credentials.create() with the server's options, as the page at `origin` calls it. */
  async createCredential(options: PublicKeyCredentialCreationOptionsJSON, origin: string, tamper: CreationTamper = {}): Promise<RegistrationResponseJSON> {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const excluded = new Set((options.excludeCredentials ?? []).map((c) => c.id));
    if (this.credentials.some((c) => c.rpId === rpId && excluded.has(c.id))) {
      throw new Error('InvalidStateError: this authenticator already holds a credential the server excluded');
    }
    if (!options.pubKeyCredParams.some((p) => p.alg === ES256)) throw new Error('NotSupportedError: the server does not accept ES256');

    const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])) as CryptoKeyPair;
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey));
    const coseKey = cbor(
      new Map<CborValue, CborValue>([
        [1, 2], // kty: EC2
        [3, ES256], // alg
        [-1, 1], // crv: P-256
        [-2, raw.slice(1, 33)], // x
        [-3, raw.slice(33, 65)], // y
      ]),
    );
    const idBytes = tamper.credentialId ?? randomBytes(32);
    const credential: SoftCredential = { id: b64u(idBytes), rpId, userHandle: options.user.id, privateKey: keys.privateKey, signCount: tamper.signCount ?? 0 };
    const authData = concat(
      sha256(tamper.rpId ?? rpId),
      Uint8Array.of(tamper.flags ?? FLAG_UP | FLAG_UV | FLAG_AT),
      uint32(credential.signCount),
      this.aaguid,
      Uint8Array.of(idBytes.length >> 8, idBytes.length & 0xff),
      idBytes,
      coseKey,
    );
    const attestationObject = cbor(
      new Map<CborValue, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = clientData(tamper.type ?? 'webauthn.create', tamper.challenge ?? options.challenge, origin);
    this.credentials.push(credential);
    return {
      id: tamper.responseId ?? credential.id,
      rawId: tamper.responseId ?? credential.id,
      type: 'public-key',
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * navigator.credentials.get(): with an empty allowCredentials the newest discoverable
   * credential for the RP answers (or `tamper.credentialId`). Each assertion advances its counter.
   */
  async getAssertion(options: PublicKeyCredentialRequestOptionsJSON, origin: string, tamper: AssertionTamper = {}): Promise<AuthenticationResponseJSON> {
    const rpId = options.rpId ?? new URL(origin).hostname;
    const allowed = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const candidates = this.credentials.filter((c) => c.rpId === rpId && (allowed.size === 0 || allowed.has(c.id)));
    const credential = tamper.credentialId ? candidates.find((c) => c.id === tamper.credentialId) : candidates.at(-1);
    if (!credential) throw new Error(`NotAllowedError: no credential for ${rpId}`);

    if (tamper.signCount === undefined) credential.signCount += 1;
    const authData = concat(sha256(tamper.rpId ?? rpId), Uint8Array.of(tamper.flags ?? FLAG_UP | FLAG_UV), uint32(tamper.signCount ?? credential.signCount));
    const clientDataJSON = clientData(tamper.type ?? 'webauthn.get', tamper.challenge ?? options.challenge, origin);
    const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, credential.privateKey, concat(authData, sha256(clientDataJSON))));
    if (tamper.corruptSignature) raw[10] = (raw[10] ?? 0) ^ 0x01;
    const userHandle = tamper.userHandle === undefined ? credential.userHandle : tamper.userHandle;
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(derSignature(raw)),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

export interface SoftCredential {
  /** base64url credential id. */
  id: string;
  rpId: string;
  /** base64url user handle the server gave at registration (a resident key remembers it). */
  userHandle: string;
  privateKey: CryptoKey;
  signCount: number;
}

/** Wrong answers for registration tests. */
export interface CreationTamper {
  /** Hash this RP id into the authenticator data instead of the real one. */
  rpId?: string;
  challenge?: string;
  type?: string;
  flags?: number;
  signCount?: number;
  /** The credential id bytes (to register the same id twice). */
  credentialId?: Uint8Array;
  /** The id/rawId the response claims, independent of the one in the authenticator data. */
  responseId?: string;
}

/** Wrong answers for login tests. */
export interface AssertionTamper {
  credentialId?: string;
  /** Send this counter and leave the credential's own untouched (a replay or a clone). */
  signCount?: number;
  rpId?: string;
  challenge?: string;
  type?: string;
  flags?: number;
  /** null leaves userHandle out; a string replaces it. */
  userHandle?: string | null;
  corruptSignature?: boolean;
}

export const FLAG_UP = 0x01;
export const FLAG_UV = 0x04;
export const FLAG_AT = 0x40;
const ES256 = -7;

function clientData(type: string, challenge: string, origin: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/**
 * WebCrypto signs ECDSA as r‖s (IEEE P1363); WebAuthn wants ASN.1 DER:
 * SEQUENCE { INTEGER r, INTEGER s }, each minimal and positive.
 */
export function derSignature(raw: Uint8Array): Uint8Array {
  const half = raw.length / 2;
  const integer = (bytes: Uint8Array): Uint8Array => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const trimmed = bytes.slice(start);
    const body = (trimmed[0] ?? 0) & 0x80 ? concat(Uint8Array.of(0), trimmed) : trimmed;
    return concat(Uint8Array.of(0x02, body.length), body);
  };
  const r = integer(raw.slice(0, half));
  const s = integer(raw.slice(half));
  return concat(Uint8Array.of(0x30, r.length + s.length), r, s);
}

export type CborValue = number | string | Uint8Array | Map<CborValue, CborValue>;

/** The CBOR subset WebAuthn needs: integers, text, byte strings and maps (definite lengths). */
export function cbor(value: CborValue): Uint8Array {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`cbor: ${value} is not an integer`);
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value);
    return concat(head(3, bytes.length), bytes);
  }
  if (value instanceof Uint8Array) return concat(head(2, value.length), value);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return concat(...parts);
}

function head(major: number, n: number): Uint8Array {
  const m = major << 5;
  if (n < 24) return Uint8Array.of(m | n);
  if (n < 0x100) return Uint8Array.of(m | 24, n);
  if (n < 0x10000) return Uint8Array.of(m | 25, n >> 8, n & 0xff);
  if (n < 0x1_0000_0000) return concat(Uint8Array.of(m | 26), uint32(n));
  throw new Error(`cbor: length ${n} is too large for this encoder`);
}

function uint32(n: number): Uint8Array {
  return Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

function sha256(data: string | Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const b64u = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
