import { t } from '../../../http/t';
import { ApiError } from '../../../errors';
import { defineRoute, type AnyRoute } from '../../../http/route';
import { ErrorBodySchema } from '../../../http/schemas';
import { UUID_PATTERN } from '../../../core/players/uuid';
import type { EventBus } from '../../../events/bus';
import type { Actor } from '../../../events/catalogue';
import type { AuthRuntime } from '../runtime';
import type { LiveSession } from '../sessions';
import { canonical, message, MessageSchema, sessionOf, SessionSummarySchema, TAG, UserSchema } from './common';

const Refusals = { 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema };
type Scope = 'self' | 'sibling' | 'others' | 'all';

/** Revokes and announces (one event per call, with the count). */
export function revokeAndAnnounce(runtime: AuthRuntime, bus: EventBus, sessions: LiveSession[], scope: Scope, actor: Actor, ip?: string): number {
  const count = runtime.sessions.revoke(sessions);
  if (count === 0) return 0;
  const first = sessions[0]!;
  bus.publish('DASHBOARD_SESSION_REVOKED', { uuid: first.uuid, sessionId: sessions.length === 1 ? first.id : undefined, scope, count, ip }, actor);
  return count;
}

/** The caller's own sessions and identity, and the admin view for machines. */
export function sessionRoutes(runtime: AuthRuntime): AnyRoute[] {
  const { bus } = runtime.kernel;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/auth/logout',
      auth: 'session',
      tag: TAG,
      summary: 'Logs the calling session out',
      response: { 200: MessageSchema, ...Refusals },
      handler: (ctx) => {
        const session = sessionOf(runtime, ctx);
        revokeAndAnnounce(runtime, bus, [session], 'self', ctx.actor, ctx.ip);
        return message('Session revoked');
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/auth/ws-ticket',
      auth: 'session',
      tag: TAG,
      summary: 'A single-use wt_ ticket (30 s) to pass as ?token= when opening a WebSocket',
      response: { 200: t.Object({ ticket: t.String(), expiresAt: t.Integer() }), ...Refusals },
      handler: (ctx) => runtime.tickets.mint(sessionOf(runtime, ctx).row.token_hash),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/auth/me',
      auth: 'session',
      tag: TAG,
      summary: 'Who this session is: uuid, name, permission nodes, admin, TOTP',
      response: { 200: UserSchema, ...Refusals },
      handler: (ctx) => runtime.login.userOf(sessionOf(runtime, ctx)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/auth/my-sessions',
      auth: 'session',
      tag: TAG,
      summary: 'The caller’s active sessions, newest first, and which one is this',
      response: { 200: t.Object({ sessions: t.Array(SessionSummarySchema), currentSessionId: t.String() }), ...Refusals },
      handler: (ctx) => {
        const session = sessionOf(runtime, ctx);
        return { sessions: runtime.sessions.activeOf(session.uuid).map((s) => s.summary()), currentSessionId: session.id };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/auth/my-sessions/:sessionId',
      auth: 'session',
      tag: TAG,
      summary: 'Logs out another session of the caller (exact id)',
      params: t.Object({ sessionId: t.String({ pattern: '^[0-9a-f]{16}$', description: 'the 16 hex digits my-sessions lists' }) }),
      response: { 200: MessageSchema, ...Refusals },
      handler: (ctx) => {
        const session = sessionOf(runtime, ctx);
        const target = runtime.sessions.byPublicId(ctx.params.sessionId);
        if (!target || target.uuid !== session.uuid || target.revokedAt !== null) throw new ApiError('AUTH_SESSION_INVALID', `you have no active session ${ctx.params.sessionId}`, 404);
        revokeAndAnnounce(runtime, bus, [target], 'sibling', ctx.actor, ctx.ip);
        return message('Session revoked');
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/my-sessions/revoke-others',
      auth: 'session',
      tag: TAG,
      summary: 'Logs out every other session of the caller',
      response: { 200: t.Object({ revoked: t.Integer() }), ...Refusals },
      handler: (ctx) => {
        const session = sessionOf(runtime, ctx);
        const others = runtime.sessions.activeOf(session.uuid).filter((s) => s.id !== session.id);
        return { revoked: revokeAndAnnounce(runtime, bus, others, 'others', ctx.actor, ctx.ip) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/auth/sessions',
      auth: 'service',
      machineOnly: true,
      tag: TAG,
      summary: 'Active dashboard sessions, of one player (?uuid=) or of everyone',
      query: t.Object({ uuid: t.Optional(t.String({ pattern: UUID_PATTERN })) }),
      response: { 200: t.Object({ sessions: t.Array(SessionSummarySchema), total: t.Integer() }), ...Refusals },
      handler: ({ query }) => {
        const list = query.uuid ? runtime.sessions.activeOf(canonical(query.uuid)) : runtime.sessions.allActive();
        return { sessions: list.map((s) => s.summary()), total: list.length };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/logout-all',
      auth: 'service',
      machineOnly: true,
      tag: TAG,
      summary: 'Logs out every session of a player (?uuid=)',
      query: t.Object({ uuid: t.String({ pattern: UUID_PATTERN }) }),
      response: { 200: t.Object({ revoked: t.Integer() }), ...Refusals },
      handler: ({ query, actor, ip }) => ({ revoked: revokeAndAnnounce(runtime, bus, runtime.sessions.activeOf(canonical(query.uuid)), 'all', actor, ip) }),
    }),
  ];
}
