import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/*
 * The API's secrets and the token formats that tell them apart, compared in constant time.
 */

/** Fixed message of the derived service token: hex HMAC-SHA256(master token, this). Public. */
export const SERVICE_TOKEN_MESSAGE = 'svc-service-token';

/** Prefix of every node secret: tells them apart from other tokens without a look-up. */
export const NODE_TOKEN_PREFIX = 'svcn_';

/** Prefix of the single-use WebSocket tickets a session mints (`GET /api/auth/ws-ticket`). */
export const TICKET_PREFIX = 'wt_';

export function deriveServiceToken(masterToken: string): string {
  return createHmac('sha256', masterToken).update(SERVICE_TOKEN_MESSAGE).digest('hex');
}

/** SHA-256 of a token: what secrets are held and looked up by. */
export const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Constant-time equality that also hides the length; a blank secret never matches. */
export function secretEquals(presented: string, secret: string): boolean {
  if (secret.length === 0) return false;
  return timingSafeEqual(digest(presented), digest(secret));
}

/**
 * A secret held as its SHA-256 digest, so each check hashes only the presented token and
 * compares fixed-length digests in constant time. A blank secret never matches.
 */
export class Secret {
  private readonly hash: Buffer | null;
  constructor(value: string) {
    this.hash = value.length > 0 ? digest(value) : null;
  }
  matches(presentedDigest: Buffer): boolean {
    return this.hash !== null && timingSafeEqual(presentedDigest, this.hash);
  }
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}
