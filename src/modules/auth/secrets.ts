import { createHash, randomBytes, randomInt } from 'node:crypto';

/** SHA-256 hex: how every login secret is stored (tokens, codes, recovery codes). */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** URL-safe random token of `bytes` random bytes (base64url, no padding). */
export const randomToken = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** Upper case without the look-alikes 0/O and 1/I: what a person reads off a chat line. */
export const SAFE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const DIGITS = '0123456789';

/** `length` characters drawn uniformly from `alphabet` (rejection-free: randomInt is uniform). */
export function randomCode(length: number, alphabet: string): string {
  let code = '';
  for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}
