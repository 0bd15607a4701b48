import { ApiError } from '../../../errors';
import { defineRoute, type AnyRoute } from '../../../http/route';
import { AskParams, ASKED_NODE_MAX, CheckSchema, DebugSchema, WhereQuery } from '../model';
import type { ChainStep } from '../resolve';
import type { PermsRuntime } from '../runtime';
import { PREFIX, Refusals, TAG, uuidOf, VIEW, whereOf } from './common';

/**
 * The permission asked about: the rest of the path, percent-decoded, as a plugin asks it (dots
 * and slashes included; it is a question, not a node to store, so only its length is checked).
 */
function askedPermission(params: unknown): string {
  const raw = (params as { '*'?: unknown })['*'];
  const invalid = () => new ApiError('VALIDATION_FAILED', `path parameter "permission" must be 1 to ${ASKED_NODE_MAX} characters after the uuid`);
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > ASKED_NODE_MAX * 3) throw invalid();
  let permission: string;
  try {
    permission = decodeURIComponent(raw);
  } catch {
    throw new ApiError('VALIDATION_FAILED', 'path parameter "permission" has a malformed percent-escape');
  }
  if (permission.length === 0 || permission.length > ASKED_NODE_MAX) throw invalid();
  return permission;
}

const chainStep = ({ expiresAt, ...step }: ChainStep) => ({ ...step, ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }) });

/** Questions plugins and admins ask: may this player do this here, and why. */
export function checkRoutes(runtime: PermsRuntime): AnyRoute[] {
  const { players } = runtime;
  return [
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/check/:uuid/*`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'Whether a player has a permission (the rest of the path, any case) on a server/world: {uuid, permission, allowed}',
      params: AskParams,
      query: WhereQuery,
      response: { 200: CheckSchema, ...Refusals },
      handler: ({ params, query }) => {
        const uuid = uuidOf(params.uuid);
        const permission = askedPermission(params);
        return { uuid, permission, allowed: players.check(uuid, permission, whereOf(query)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/debug/:uuid/*`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary:
        'The check with its explanation: result (what check answers), the reason naming the deciding group and node, and every row that answers the permission ' +
        '(exact, wildcard, negated, inherited, or context-filtered when its server, world or time does not apply)',
      params: AskParams,
      query: WhereQuery,
      response: { 200: DebugSchema, ...Refusals },
      handler: ({ params, query }) => {
        const uuid = uuidOf(params.uuid);
        const permission = askedPermission(params);
        const explanation = players.debug(uuid, permission, whereOf(query));
        return { uuid, permission, result: explanation.allowed, reason: explanation.reason, chain: explanation.chain.map(chainStep) };
      },
    }),
  ];
}
