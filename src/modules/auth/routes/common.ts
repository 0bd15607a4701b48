import { Type } from '@sinclair/typebox';
import { t } from '../../../http/t';
import { ApiError } from '../../../errors';
import type { RouteContext } from '../../../http/route';
import { normalizeUuid, PLAYER_NAME_PATTERN, UUID_PATTERN } from '../../../core/players/uuid';
import type { AuthRuntime } from '../runtime';
import type { LiveSession } from '../sessions';
import type { Origin } from '../login';

export const TAG = 'auth';

export const UserSchema = t.Object({
  uuid: t.String(),
  name: t.String(),
  permissions: t.Array(t.String()),
  isAdmin: t.Boolean(),
  totpEnabled: t.Boolean(),
});

export const SessionSummarySchema = t.Object({
  sessionId: t.String({ description: 'public id: the first 16 hex digits of the token hash' }),
  uuid: t.String(),
  name: t.String(),
  createdAt: t.Integer({ description: 'epoch ms' }),
  expiresAt: t.Integer({ description: 'epoch ms' }),
  lastUsedAt: t.Integer({ description: 'epoch ms (kept to the minute)' }),
  ip: t.Union([t.String(), t.Null()]),
  userAgent: t.Union([t.String(), t.Null()]),
  loginMethod: t.Union([t.Literal('code'), t.Literal('magic_link'), t.Literal('passkey')]),
});

/** A session answer: the token (shown once), its expiry and who it is for. */
export const SessionGrantSchema = t.Object({ token: t.String(), expiresAt: t.Integer(), user: UserSchema });

/** What a first login step answers: a session, or the TOTP step still to take. */
export const LoginStepSchema = t.Union([
  t.Object({ token: t.String(), expiresAt: t.Integer(), user: UserSchema, totpRequired: t.Literal(false), challengeId: t.Null() }),
  t.Object({ token: t.Null(), expiresAt: t.Null(), user: t.Null(), totpRequired: t.Literal(true), challengeId: t.String({ description: 'pass it to /api/auth/totp-verify within 5 minutes' }) }),
]);

/** `{success:true, message, error:null}`: the existing dashboard's ApiMessage. */
export const MessageSchema = t.Object({ success: t.Literal(true), message: t.String(), error: t.Null() });
export const message = (text: string) => ({ success: true as const, message: text, error: null });

export const PlayerBody = Type.Object({
  uuid: Type.String({ pattern: UUID_PATTERN, description: 'the player in game (the bridge forwards it)' }),
  name: Type.String({ pattern: PLAYER_NAME_PATTERN }),
});

export const CodeText = Type.String({ minLength: 1, maxLength: 64, description: 'a 6-digit TOTP code or a recovery code XXXX-XXXX' });

export function originOf(ctx: Pick<RouteContext<unknown, unknown, unknown>, 'ip' | 'request'>): Origin {
  return { ip: ctx.ip, userAgent: ctx.request.headers.get('user-agent')?.slice(0, 255) ?? null };
}

export function canonical(uuid: string): string {
  return normalizeUuid(uuid) ?? uuid.toLowerCase();
}

/** The caller's live session (the route's auth level `session` guarantees one). */
export function sessionOf(runtime: AuthRuntime, ctx: Pick<RouteContext<unknown, unknown, unknown>, 'principal'>): LiveSession {
  const id = ctx.principal?.session?.id;
  const session = id === undefined ? undefined : runtime.sessions.byPublicId(id);
  if (!session) throw new ApiError('AUTH_SESSION_INVALID', 'this route needs a live dashboard session: log in again');
  return session;
}
