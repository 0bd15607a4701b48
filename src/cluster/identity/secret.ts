import { createHash, randomBytes } from 'node:crypto';
import { NODE_TOKEN_PREFIX } from '../../core/auth';

/** Node ids an agent may not take: `local` is this machine in placement and in every service record. */
export const RESERVED_NODE_IDS: readonly string[] = ['local'];

/** Case-insensitive, so `Local` cannot pass for this machine in a listing either. */
export function isReservedNodeId(nodeId: string): boolean {
  return RESERVED_NODE_IDS.includes(nodeId.toLowerCase());
}

/** A node's own secret: the prefix (so the API tells it apart without a look-up) and 32 random bytes. */
export function newNodeSecret(): string {
  return `${NODE_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** What the controller keeps of a secret: the SHA-256 (hex) of the whole token, as the API's look-up computes it. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function looksLikeNodeSecret(token: string): boolean {
  return token.startsWith(NODE_TOKEN_PREFIX);
}
