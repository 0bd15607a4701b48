/**
 * Who may log in on the agent channel under a node id: pure, so every rule is table-tested.
 *
 *   credential ── neither the cluster token nor a known node secret ──▶ refused (counts as a failure)
 *        │
 *   reserved id (`local`) ──▶ refused
 *        │
 *   node secret ── of another id, or revoked ──▶ refused (counts as a failure)
 *        │        └─ the id has a live session ──▶ refused (the live one stays)
 *        │        └─ otherwise ──▶ accepted (confirms an unconfirmed enrolment)
 *        │
 *   cluster token ── the id is revoked ──▶ refused: forget it first
 *                 ── the id is enrolled and confirmed ──▶ refused: it logs in with its own secret
 *                 ── the id has a live session ──▶ refused
 *                 ── unknown id ──▶ enrolled: a new secret
 *                 ── enrolled, not yet confirmed ──▶ enrolled again: a new secret, the old one void
 *
 * The unconfirmed case is what keeps an agent from before enrolment working: it ignores the
 * secret it is handed and logs in with the cluster token again (re-enrolled each time), until
 * it updates itself and keeps the secret of its next enrolment.
 */

/** Why a login was refused; the agent receives it as AUTH_RESPONSE `refusal`. */
export type LoginRefusal = 'invalid-token' | 'reserved-id' | 'unknown-secret' | 'secret-of-another-node' | 'revoked' | 'enrolled' | 'in-use';

/** Refusals retrying cannot fix by itself: the operator has to act (the agent slows its retries). */
export const OPERATOR_REFUSALS: ReadonlySet<string> = new Set<LoginRefusal>(['invalid-token', 'reserved-id', 'unknown-secret', 'secret-of-another-node', 'revoked', 'enrolled']);

export interface LoginFacts {
  nodeId: string;
  /** What the AUTH_REQUEST's token turned out to be. */
  credential: 'cluster-token' | 'node-secret' | 'invalid';
  /** With a node secret: the enrolment it belongs to, when it belongs to one. */
  secretOwner?: { nodeId: string; revoked: boolean };
  /** The enrolment of the id asked for, when there is one. */
  enrolment?: { confirmed: boolean; revoked: boolean };
  /** A session of this id is live on the channel now. */
  live: boolean;
  reserved: boolean;
}

export type LoginDecision =
  | { verdict: 'accept' }
  | { verdict: 'enrol'; replacing: boolean }
  | { verdict: 'refuse'; refusal: LoginRefusal; reason: string; failure: boolean };

const refuse = (refusal: LoginRefusal, reason: string, failure = false): LoginDecision => ({ verdict: 'refuse', refusal, reason, failure });

export function decideLogin(facts: LoginFacts): LoginDecision {
  const { nodeId } = facts;
  if (facts.credential === 'invalid') return refuse('invalid-token', 'the cluster token is not valid', true);
  if (facts.reserved) return refuse('reserved-id', `"${nodeId}" is reserved (it names the controller's own machine): choose another node_name in agent.toml`);
  const inUse = refuse('in-use', `node ${nodeId} is connected already: a second session under its id is refused while the first is live (a dead one is dropped after node_timeout)`);
  if (facts.credential === 'node-secret') {
    const owner = facts.secretOwner;
    if (!owner) {
      return refuse('unknown-secret', `the node secret is not known to this controller (the node was forgotten, or enrolled elsewhere): delete data/node.json on the agent so it enrols again with the cluster token`, true);
    }
    if (owner.nodeId !== nodeId) return refuse('secret-of-another-node', `the node secret does not belong to node ${nodeId}`, true);
    if (owner.revoked) return refuse('revoked', revokedReason(nodeId), true);
    return facts.live ? inUse : { verdict: 'accept' };
  }
  const enrolment = facts.enrolment;
  if (enrolment?.revoked) return refuse('revoked', revokedReason(nodeId), true);
  if (enrolment?.confirmed) {
    return refuse(
      'enrolled',
      `node ${nodeId} is enrolled and logs in with its own secret (data/node.json on its agent), not the cluster token; to enrol it again: \`nodes revoke ${nodeId}\` and \`nodes forget ${nodeId}\` on the controller`,
      true,
    );
  }
  if (facts.live) return inUse;
  return { verdict: 'enrol', replacing: enrolment !== undefined };
}

function revokedReason(nodeId: string): string {
  return `node ${nodeId} was revoked by the operator; to bring it back: \`nodes forget ${nodeId}\` on the controller, then delete data/node.json on the agent so it enrols again`;
}
