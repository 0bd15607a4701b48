import { describe, expect, test } from 'bun:test';
import { decideLogin, OPERATOR_REFUSALS, type LoginFacts } from '../../../src/cluster/identity/login';

const base: LoginFacts = { nodeId: 'node-a', credential: 'cluster-token', live: false, reserved: false };
const mine = { nodeId: 'node-a', revoked: false };
const confirmed = { confirmed: true, revoked: false };
const unconfirmed = { confirmed: false, revoked: false };
const revoked = { confirmed: true, revoked: true };

/** [what, facts, verdict, refusal (when refused), counted as a failed login] */
const table: [string, Partial<LoginFacts>, 'accept' | 'enrol' | 'refuse', string | undefined, boolean | undefined][] = [
  ['neither the cluster token nor a node secret', { credential: 'invalid' }, 'refuse', 'invalid-token', true],
  ['an invalid token for a reserved id: the credential is judged first', { credential: 'invalid', reserved: true }, 'refuse', 'invalid-token', true],
  ['the cluster token for a reserved id', { reserved: true }, 'refuse', 'reserved-id', false],
  ['a node secret for a reserved id', { credential: 'node-secret', secretOwner: mine, reserved: true }, 'refuse', 'reserved-id', false],
  ['the cluster token, an unknown id: enrols', {}, 'enrol', undefined, undefined],
  ['the cluster token, an unconfirmed id, no live session: enrols again', { enrolment: unconfirmed }, 'enrol', undefined, undefined],
  ['the cluster token, an unconfirmed id with a live session', { enrolment: unconfirmed, live: true }, 'refuse', 'in-use', false],
  ['the cluster token, a confirmed id', { enrolment: confirmed }, 'refuse', 'enrolled', true],
  ['the cluster token, a confirmed id with a live session', { enrolment: confirmed, live: true }, 'refuse', 'enrolled', true],
  ['the cluster token, a revoked id', { enrolment: revoked }, 'refuse', 'revoked', true],
  ['the cluster token, an unknown id already live (cannot happen: no enrolment, no session)', { live: true }, 'refuse', 'in-use', false],
  ['its own secret, confirmed', { credential: 'node-secret', secretOwner: mine, enrolment: confirmed }, 'accept', undefined, undefined],
  ['its own secret, unconfirmed: accepted (and confirmed by the caller)', { credential: 'node-secret', secretOwner: mine, enrolment: unconfirmed }, 'accept', undefined, undefined],
  ['its own secret while its session is live: the live one stays', { credential: 'node-secret', secretOwner: mine, enrolment: confirmed, live: true }, 'refuse', 'in-use', false],
  ['an unknown node secret', { credential: 'node-secret' }, 'refuse', 'unknown-secret', true],
  ["another node's secret", { credential: 'node-secret', secretOwner: { nodeId: 'node-b', revoked: false }, enrolment: confirmed }, 'refuse', 'secret-of-another-node', true],
  ["another node's secret for an id that is live", { credential: 'node-secret', secretOwner: { nodeId: 'node-b', revoked: false }, live: true }, 'refuse', 'secret-of-another-node', true],
  ['its own secret, revoked', { credential: 'node-secret', secretOwner: { nodeId: 'node-a', revoked: true }, enrolment: revoked }, 'refuse', 'revoked', true],
];

describe('who may log in under a node id', () => {
  test.each(table)('%s', (_what, facts, verdict, refusal, failure) => {
    const decision = decideLogin({ ...base, ...facts });
    expect(decision.verdict).toBe(verdict);
    if (decision.verdict === 'refuse') {
      expect(decision.refusal).toBe(refusal as never);
      expect(decision.failure).toBe(failure!);
      expect(decision.reason.length).toBeGreaterThan(10);
    }
    if (decision.verdict === 'enrol') expect(decision.replacing).toBe(facts.enrolment !== undefined);
  });

  test('the reasons say what the operator does about it', () => {
    const reason = (facts: Partial<LoginFacts>) => (decideLogin({ ...base, ...facts }) as { reason: string }).reason;
    expect(reason({ enrolment: confirmed })).toContain('nodes revoke node-a');
    expect(reason({ enrolment: confirmed })).toContain('nodes forget node-a');
    expect(reason({ enrolment: revoked })).toContain('nodes forget node-a');
    expect(reason({ credential: 'node-secret' })).toContain('delete data/node.json');
    expect(reason({ credential: 'invalid' })).toBe('the cluster token is not valid');
  });

  test('refusals retrying cannot fix are the operator\'s; a live session is not', () => {
    expect(OPERATOR_REFUSALS.has('revoked')).toBe(true);
    expect(OPERATOR_REFUSALS.has('unknown-secret')).toBe(true);
    expect(OPERATOR_REFUSALS.has('in-use')).toBe(false);
  });
});
