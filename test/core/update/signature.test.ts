import { describe, expect, test } from 'bun:test';
import { generateKeyPairSync, sign } from 'node:crypto';
import { parsePublicKey, signatureValid } from '../../../src/core/update/signature';

const SUMS = Buffer.from(`${'a'.repeat(64)}  svc-linux-x64\n${'b'.repeat(64)}  svc-linux-arm64\n`);
const keys = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const pem = keys.publicKey.export({ format: 'pem', type: 'spki' }).toString();
const rawBase64 = Buffer.from(keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32)).toString('base64');
const rawSignature = sign(null, SUMS, keys.privateKey);
const base64Signature = Buffer.from(`${rawSignature.toString('base64')}\n`);
const ACCEPTED_FORMS = /neither a PEM public key nor a base64 Ed25519 key of 32 bytes/;

describe('parsePublicKey', () => {
  test.each([
    ['PEM', pem],
    ['PEM with surrounding whitespace', `\n  ${pem}\n`],
    ['raw base64 (last 32 bytes of the SPKI DER)', rawBase64],
    ['raw base64 with a trailing newline', `${rawBase64}\n`],
  ])('%s: an Ed25519 key that verifies the release signature', (_, text) => {
    const key = parsePublicKey(text);
    expect(key.type).toBe('public');
    expect(key.asymmetricKeyType).toBe('ed25519');
    expect(signatureValid(SUMS, rawSignature, key)).toBe(true);
    expect(signatureValid(SUMS, sign(null, SUMS, stranger.privateKey), key)).toBe(false);
  });

  test('PEM and raw base64 of one key are the same key', () => {
    const a = parsePublicKey(pem).export({ format: 'der', type: 'spki' });
    const b = parsePublicKey(rawBase64).export({ format: 'der', type: 'spki' });
    expect(Buffer.compare(a, b)).toBe(0);
  });

  test('an RSA key is refused: releases are signed with Ed25519', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(() => parsePublicKey(rsa)).toThrow('update_public_key is an RSA key; releases are signed with Ed25519 (give its public key as PEM, or its 32 raw bytes in base64)');
  });

  test.each([
    ['garbage', 'not a key at all'],
    ['an empty string', ''],
    ['31 bytes of base64', Buffer.alloc(31, 1).toString('base64')],
    ['33 bytes of base64', Buffer.alloc(33, 1).toString('base64')],
    ['the whole SPKI DER in base64', Buffer.from(keys.publicKey.export({ format: 'der', type: 'spki' })).toString('base64')],
    ['a broken PEM', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n'],
  ])('%s throws naming the accepted forms', (_, text) => {
    expect(() => parsePublicKey(text)).toThrow(ACCEPTED_FORMS);
  });
});

describe('signatureValid', () => {
  const key = parsePublicKey(rawBase64);

  test('a raw 64-byte signature and its base64 form verify', () => {
    expect(rawSignature.length).toBe(64);
    expect(signatureValid(SUMS, rawSignature, key)).toBe(true);
    expect(signatureValid(SUMS, base64Signature, key)).toBe(true);
    expect(signatureValid(SUMS, Buffer.from(rawSignature.toString('base64')), key)).toBe(true);
  });

  test('a signature by another key does not verify', () => {
    const other = sign(null, SUMS, stranger.privateKey);
    expect(signatureValid(SUMS, other, key)).toBe(false);
    expect(signatureValid(SUMS, Buffer.from(other.toString('base64')), key)).toBe(false);
  });

  test('one flipped byte of the data does not verify', () => {
    for (const index of [0, 70, SUMS.length - 1]) {
      const data = Buffer.from(SUMS);
      data[index] = data[index]! ^ 0x01;
      expect(signatureValid(data, rawSignature, key)).toBe(false);
      expect(signatureValid(data, base64Signature, key)).toBe(false);
    }
  });

  test('a flipped signature byte does not verify', () => {
    const spoiled = Buffer.from(rawSignature);
    spoiled[10] = spoiled[10]! ^ 0x80;
    expect(signatureValid(SUMS, spoiled, key)).toBe(false);
  });

  test.each([
    ['a truncated raw signature', rawSignature.subarray(0, 63)],
    ['a truncated base64 signature', Buffer.from(rawSignature.toString('base64').slice(0, 80))],
    ['an empty signature file', Buffer.alloc(0)],
    ['a signature with a byte too many', Buffer.concat([rawSignature, Buffer.from([0])])],
    ['text that is no signature', Buffer.from('-----BEGIN SSH SIGNATURE-----\nnope\n')],
  ])('%s does not verify (and does not throw)', (_, signature) => {
    expect(signatureValid(SUMS, signature, key)).toBe(false);
  });
});

test('a private key pasted as update_public_key is refused, with what to put there instead', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  expect(() => parsePublicKey(pem)).toThrow('update_public_key holds a PRIVATE key: put only the public key in svc.toml');
});
