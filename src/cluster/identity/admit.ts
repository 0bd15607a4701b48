import { secretEquals } from '../../core/auth';
import { decideLogin, type LoginRefusal } from './login';
import type { NodeRegistry } from './registry';
import { isReservedNodeId, looksLikeNodeSecret, secretDigest } from './secret';

export type Admission =
  | {
      verdict: 'accept';
      /** Set when this login enrolled the node: the secret to hand it (once). */
      nodeSecret?: string;
      /** Enrolled now, replacing an unconfirmed enrolment of the same id. */
      reenrolled?: boolean;
    }
  | { verdict: 'refuse'; refusal: LoginRefusal | 'registry'; reason: string; failure: boolean };

export interface LoginAttempt {
  token: string;
  nodeId: string;
  /** The agent's publicHost, else the address it connected from: recorded when it enrols. */
  host: string;
  /** A session of this id is live now. */
  live: boolean;
}

/**
 * Applies the login rules (login.ts) to an AUTH_REQUEST against the registry: checks the
 * credential (the cluster token in constant time, a node secret by the digest look-up), and
 * records what follows: an enrolment (a new secret), a confirmation, when the node was seen.
 */
export function admitLogin(registry: NodeRegistry, clusterToken: string, attempt: LoginAttempt, warn: (message: string) => void): Admission {
  const { token, nodeId } = attempt;
  const viaClusterToken = secretEquals(token, clusterToken);
  const owner = !viaClusterToken && looksLikeNodeSecret(token) ? registry.ownerOf(secretDigest(token)) : undefined;
  const enrolment = registry.get(nodeId);
  const decision = decideLogin({
    nodeId,
    credential: viaClusterToken ? 'cluster-token' : looksLikeNodeSecret(token) ? 'node-secret' : 'invalid',
    secretOwner: owner ? { nodeId: owner.nodeId, revoked: owner.revokedAt !== null } : undefined,
    enrolment: enrolment ? { confirmed: enrolment.confirmed, revoked: enrolment.revokedAt !== null } : undefined,
    live: attempt.live,
    reserved: isReservedNodeId(nodeId),
  });
  if (decision.verdict === 'refuse') return decision;
  if (decision.verdict === 'enrol') {
    try {
      const { secret } = registry.enrol(nodeId, attempt.host);
      return { verdict: 'accept', nodeSecret: secret, reenrolled: decision.replacing };
    } catch (error) {
      return { verdict: 'refuse', refusal: 'registry', reason: `the controller could not record the enrolment of node ${nodeId}: ${(error as Error).message}`, failure: false };
    }
  }
  try {
    registry.confirm(nodeId);
    registry.seen(nodeId);
  } catch (error) {
    // The login stands: the secret checked out; only the bookkeeping is behind.
    warn(`node ${nodeId}: the node registry could not be updated: ${(error as Error).message}`);
  }
  return { verdict: 'accept' };
}
