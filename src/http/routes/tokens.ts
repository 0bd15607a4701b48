import { Type } from '@sinclair/typebox';
import { t } from '../t';
import { ApiError } from '../../errors';
import type { Kernel } from '../../kernel';
import { JWT_MIN_LIFETIME_SECONDS, SCOPES } from '../../core/auth';
import { defineRoute, type AnyRoute } from '../route';

const MAX_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;

const TokenRequest = t.Object({
  subject: t.String({ minLength: 1, maxLength: 128, description: 'who the token is for; shown in the audit log' }),
  scopes: t.Array(t.String({ maxLength: 64 }), { minItems: 1, maxItems: SCOPES.length, description: 'see GET /api/tokens/scopes' }),
  // Bodies take exact JSON types: a plain TypeBox integer, not t.Integer's string-decoding one.
  expiresInSeconds: Type.Integer({ minimum: JWT_MIN_LIFETIME_SECONDS, maximum: MAX_LIFETIME_SECONDS }),
});

const TokenResponse = t.Object({
  success: t.Literal(true),
  message: t.String(),
  token: t.String(),
  subject: t.String(),
  scopes: t.Array(t.String()),
  expiresAt: t.String({ description: 'ISO-8601' }),
});

export function tokenRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/ws-ticket',
      auth: 'service',
      // A dashboard session has its own: GET /api/auth/ws-ticket (auth module).
      machineOnly: true,
      tag: 'tokens',
      summary: 'svc: a single-use wt_ ticket (30 s) standing for this API token, to pass as ?token= when opening a WebSocket from a browser (the token itself never goes in a URL)',
      response: { 200: t.Object({ ticket: t.String(), expiresAt: t.Integer({ description: 'ms since the epoch' }) }) },
      handler: ({ principal }) => {
        if (!principal) throw new ApiError('UNAUTHORIZED', 'missing bearer token: send Authorization: Bearer <token>');
        return kernel.auth.mintTicket(principal);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/tokens',
      auth: 'admin',
      // A JWT passes on its scopes alone: a session minting one would shed its node checks.
      machineOnly: true,
      tag: 'tokens',
      summary: 'Mint an HS256 JWT (needs [api] jwt_enabled = true)',
      body: TokenRequest,
      response: { 201: TokenResponse },
      handler: async ({ body, set, actor }) => {
        if (!kernel.auth.jwtEnabled) throw new ApiError('AUTH_DISABLED', 'JWTs are disabled: set [api] jwt_enabled = true in svc.toml and restart');
        const unknown = body.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
        if (unknown.length > 0) {
          throw new ApiError('VALIDATION_FAILED', `body "scopes" has unknown scope ${JSON.stringify(unknown[0])}; accepted: ${SCOPES.join(', ')}`);
        }
        const scopes = [...new Set(body.scopes)].sort();
        const { token, expiresAt } = await kernel.auth.mintJwt(body.subject, scopes, body.expiresInSeconds);
        kernel.audit.record({ actor, action: 'TOKEN_ISSUED', target: body.subject, details: `scopes=${scopes.join(' ')}, expiresAt=${expiresAt.toISOString()}` });
        set.status = 201;
        return { success: true as const, message: 'token issued', token, subject: body.subject, scopes, expiresAt: expiresAt.toISOString() };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/tokens/scopes',
      auth: 'admin',
      machineOnly: true,
      tag: 'tokens',
      summary: 'Sorted list of the scopes a JWT may carry',
      response: { 200: t.Object({ scopes: t.Array(t.String()) }) },
      handler: () => ({ scopes: [...SCOPES] }),
    }),
  ];
}
