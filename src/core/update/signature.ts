import { createPublicKey, verify, type KeyObject } from 'node:crypto';

// DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the raw 32-byte key follows it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * `[controller] update_public_key`: a PEM public key, or the raw 32-byte Ed25519 key in base64
 * (what `minisign`-style tools and `openssl pkey -outform DER | tail -c 32 | base64` print).
 * Throws with a message naming the accepted forms.
 */
export function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(trimmed)) throw new Error('update_public_key holds a PRIVATE key: put only the public key in svc.toml, and keep the private one off this machine');
  let key: KeyObject;
  try {
    if (trimmed.startsWith('-----BEGIN')) key = createPublicKey(trimmed);
    else {
      const raw = Buffer.from(trimmed, 'base64');
      if (raw.length !== 32) throw new Error(`${raw.length} bytes`);
      key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    }
  } catch (error) {
    throw new Error(`update_public_key is neither a PEM public key nor a base64 Ed25519 key of 32 bytes (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`update_public_key is an ${key.asymmetricKeyType?.toUpperCase()} key; releases are signed with Ed25519 (give its public key as PEM, or its 32 raw bytes in base64)`);
  return key;
}

/**
 * The release's SHA256SUMS.sig: the 64-byte Ed25519 signature over SHA256SUMS, raw or base64.
 * True only when it verifies under `key`.
 */
export function signatureValid(data: Uint8Array, signatureFile: Uint8Array, key: KeyObject): boolean {
  let signature = Buffer.from(signatureFile);
  if (signature.length !== 64) signature = Buffer.from(signature.toString('utf8').trim(), 'base64');
  if (signature.length !== 64) return false;
  try {
    return verify(null, data, key, signature);
  } catch {
    return false;
  }
}
