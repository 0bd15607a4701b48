import { Type } from '@sinclair/typebox';
import { t } from '../../../http/t';
import { ApiError } from '../../../errors';
import { defineRoute, type AnyRoute } from '../../../http/route';
import { ErrorBodySchema } from '../../../http/schemas';
import { PLAYER_NAME_PATTERN } from '../../../core/players/uuid';
import type { AuthRuntime } from '../runtime';
import { canonical, CodeText, LoginStepSchema, originOf, PlayerBody, SessionGrantSchema, TAG } from './common';

const Refusals = { 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema };
/**
 * deliver-magic-link, per client address: enough for a person, not for sweeping names. Its own
 * budget: per player, public links have another (MagicLinkDelivery), and neither touches the
 * in-game codes and links.
 */
const DELIVER_LIMIT = { max: 10, windowMs: 60_000 };

/** Minting (in game, through the bridge), consuming (the dashboard), and the TOTP step. */
export function loginRoutes(runtime: AuthRuntime): AnyRoute[] {
  const { challenges, login } = runtime;
  const magicUrl = (token: string) => runtime.magicUrl(token);
  return [
    defineRoute({
      method: 'POST',
      path: '/api/auth/generate-code',
      auth: 'service',
      machineOnly: true,
      tenants: { proxy: 'any' },
      speaksForPlayers: true,
      tag: TAG,
      summary: 'Mints a one-time login code for a player who is online (the in-game dashboard command)',
      body: PlayerBody,
      response: { 200: t.Object({ code: t.String(), expiresAt: t.Integer(), ttlSeconds: t.Integer() }), ...Refusals },
      handler: ({ body }) => {
        runtime.requirePerms();
        const uuid = canonical(body.uuid);
        runtime.requireOnline(uuid);
        const issued = challenges.issueCode({ uuid, name: body.name });
        return { code: issued.secret, expiresAt: issued.expiresAt, ttlSeconds: issued.ttlSeconds };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/request-magic-link',
      auth: 'service',
      machineOnly: true,
      tenants: { proxy: 'any' },
      speaksForPlayers: true,
      tag: TAG,
      summary: 'Mints a one-time magic login link for a player who is online',
      body: PlayerBody,
      response: { 202: t.Object({ url: t.String(), token: t.String(), expiresAt: t.Integer(), ttlSeconds: t.Integer() }), ...Refusals },
      handler: ({ body, set }) => {
        runtime.requirePerms();
        const uuid = canonical(body.uuid);
        runtime.requireOnline(uuid);
        const issued = challenges.issueMagicLink({ uuid, name: body.name });
        set.status = 202;
        return { url: magicUrl(issued.secret), token: issued.secret, expiresAt: issued.expiresAt, ttlSeconds: issued.ttlSeconds };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/deliver-magic-link',
      auth: 'public',
      tag: TAG,
      rateLimit: DELIVER_LIMIT,
      summary: 'Sends a magic login link to a player’s chat if they are online; the answer is the same either way',
      body: Type.Object({ name: Type.String({ pattern: PLAYER_NAME_PATTERN, description: 'the player name as typed' }) }),
      response: { 202: t.Object({ status: t.Literal('delivered'), ttlSeconds: t.Integer() }), ...Refusals },
      handler: ({ body, set }) => {
        runtime.requirePerms();
        if (!runtime.config.login_challenge.magic_link_enabled) throw new ApiError('AUTH_DISABLED', 'magic links are turned off: log in with a code from the in-game command', 403);
        if (!runtime.kernel.modules.lookup('players')) throw new ApiError('AUTH_PLAYER_OFFLINE', 'magic links need the players module to find online players, and it is not installed: use the in-game command');
        // Nothing about the name is looked at before the answer: whether the player is online,
        // and whether their budget is spent, shows neither in the answer nor in its timing.
        runtime.delivery.later(body.name);
        set.status = 202;
        return { status: 'delivered' as const, ttlSeconds: runtime.config.login_challenge.magic_link_ttl_seconds };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/consume-challenge',
      auth: 'public',
      tag: TAG,
      summary: 'Exchanges a login code or magic-link token for a session (or for the TOTP step)',
      body: Type.Object({ challenge: Type.String({ minLength: 1, maxLength: 256, description: 'the code from the game, or the link token' }) }),
      response: { 200: LoginStepSchema, ...Refusals },
      handler: (ctx) => {
        runtime.requirePerms();
        const origin = originOf(ctx);
        login.guard(origin);
        const player = challenges.consume(ctx.body.challenge);
        if (!player) {
          login.failed('invalid_challenge', origin, '');
          throw new ApiError('AUTH_CHALLENGE_INVALID', 'the code or link is wrong, already used or expired: ask for a new one in game');
        }
        return login.proven(player, player.kind, origin);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/consume-magic-link',
      auth: 'public',
      tag: TAG,
      summary: 'Exchanges the token of a magic link (?link=) for a session (or for the TOTP step)',
      body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 256, description: 'the ?link= value of the magic link' }) }),
      response: { 200: LoginStepSchema, ...Refusals },
      handler: (ctx) => {
        runtime.requirePerms();
        const origin = originOf(ctx);
        login.guard(origin);
        const player = challenges.consume(ctx.body.token, ['magic_link']);
        if (!player) {
          login.failed('invalid_magic_link', origin, '');
          throw new ApiError('AUTH_MAGIC_LINK_INVALID', 'the link is wrong, already used or expired: ask for a new one in game');
        }
        return login.proven(player, 'magic_link', origin);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/totp-verify',
      auth: 'public',
      tag: TAG,
      summary: 'The second login step: a live TOTP code or a recovery code for a pending login',
      body: Type.Object({ challengeId: Type.String({ minLength: 1, maxLength: 128 }), code: CodeText }),
      response: { 200: SessionGrantSchema, ...Refusals },
      handler: (ctx) => login.verifyTotp(ctx.body.challengeId, ctx.body.code, originOf(ctx)),
    }),
  ];
}
