import { Type } from '@sinclair/typebox';
import { t } from '../../../http/t';
import { ApiError } from '../../../errors';
import { defineRoute, type AnyRoute } from '../../../http/route';
import { ErrorBodySchema } from '../../../http/schemas';
import type { AuthRuntime } from '../runtime';
import { CodeText, LoginStepSchema, message, MessageSchema, originOf, SessionGrantSchema, sessionOf, TAG } from './common';

const Refusals = { 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema };
const PROFILE_TAG = 'profile';

const PasskeySchema = t.Object({
  credentialId: t.String(),
  label: t.String(),
  createdAt: t.Integer({ description: 'epoch ms' }),
  lastUsedAt: t.Union([t.Integer(), t.Null()]),
  aaguid: t.Union([t.String(), t.Null()]),
});
const CeremonySchema = t.Object({
  ceremonyId: t.String(),
  publicKeyOptionsJson: t.Object({ publicKey: t.Record(t.String(), t.Unknown()) }, { description: 'pass publicKey to navigator.credentials' }),
});
const LabelText = Type.String({ maxLength: 64, description: 'name of the passkey in the list; blank means "Passkey"' });
/** The browser's credential: the JSON string the existing dashboard sends, or the object itself. */
const ResponseJson = Type.Union([Type.String({ minLength: 2, maxLength: 65_536 }), Type.Record(Type.String(), Type.Unknown())]);

/** TOTP enrolment (profile) and passkeys: the caller's own second factors. */
export function profileRoutes(runtime: AuthRuntime): AnyRoute[] {
  const { totp, login, totpThrottle } = runtime;
  const passkeys = () => {
    if (runtime.passkeys) return runtime.passkeys;
    throw new ApiError('AUTH_DISABLED', runtime.passkeyProblem ?? 'passkeys are turned off ([webauthn] enabled = false in config/modules/auth/auth.toml)', 404);
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/profile/totp/status',
      auth: 'session',
      tag: PROFILE_TAG,
      summary: 'Whether TOTP is on or pending, and how many recovery codes are left',
      response: { 200: t.Object({ enabled: t.Boolean(), pendingEnrollment: t.Boolean(), recoveryCodesRemaining: t.Integer() }), ...Refusals },
      handler: (ctx) => totp.status(sessionOf(runtime, ctx).uuid),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/profile/totp/enroll',
      auth: 'session',
      tag: PROFILE_TAG,
      summary: 'Starts TOTP enrolment: secret, otpauth:// URI and 10 recovery codes (shown once)',
      response: { 200: t.Object({ secret: t.String(), otpauthUri: t.String(), recoveryCodes: t.Array(t.String()) }), ...Refusals },
      handler: (ctx) => {
        const session = sessionOf(runtime, ctx);
        return totp.enroll(session.uuid, session.name);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/profile/totp/confirm',
      auth: 'session',
      tag: PROFILE_TAG,
      summary: 'Switches a pending enrolment on with a code from the authenticator (wrong codes are limited per session and per address: 429 AUTH_RATE_LIMITED)',
      body: Type.Object({ code: CodeText }),
      response: { 200: MessageSchema, ...Refusals },
      handler: (ctx) => {
        const session = sessionOf(runtime, ctx);
        totpThrottle.attempt(session.id, ctx.ip, () => totp.confirm(session.uuid, ctx.body.code));
        runtime.loadTotpEnabled();
        return message('TOTP enabled');
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/profile/totp/disable',
      auth: 'session',
      tag: PROFILE_TAG,
      summary: 'Switches TOTP off; needs a live code or a recovery code (wrong codes are limited per session and per address: 429 AUTH_RATE_LIMITED)',
      body: Type.Object({ code: CodeText }),
      response: { 200: MessageSchema, ...Refusals },
      handler: (ctx) => {
        const session = sessionOf(runtime, ctx);
        totpThrottle.attempt(session.id, ctx.ip, () => totp.disable(session.uuid, ctx.body.code));
        runtime.loadTotpEnabled();
        return message('TOTP disabled');
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/passkey/register/start',
      auth: 'session',
      tag: TAG,
      summary: 'Begins registering a passkey for the caller',
      body: t.Optional(Type.Object({ label: Type.Optional(LabelText) })),
      response: { 200: CeremonySchema, ...Refusals },
      handler: (ctx) => {
        const session = sessionOf(runtime, ctx);
        return passkeys().registerStart({ uuid: session.uuid, name: session.name }, ctx.body?.label, { ip: ctx.ip, sessionId: session.id });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/passkey/register/finish',
      auth: 'session',
      tag: TAG,
      summary: 'Stores the new passkey under the caller, with its label',
      body: Type.Object({ ceremonyId: Type.String({ minLength: 1, maxLength: 64 }), responseJson: ResponseJson, label: Type.Optional(LabelText) }),
      response: { 200: PasskeySchema, ...Refusals },
      handler: (ctx) => {
        const session = sessionOf(runtime, ctx);
        return passkeys().registerFinish({ uuid: session.uuid, name: session.name }, ctx.body.ceremonyId, ctx.body.responseJson, ctx.body.label);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/passkey/login/start',
      auth: 'public',
      tag: TAG,
      summary: 'Begins a passkey login (discoverable credentials: no user name asked)',
      body: t.Optional(Type.Object({ username: Type.Optional(Type.String({ maxLength: 32, description: 'ignored: the passkey says who it is' })) })),
      response: { 200: CeremonySchema, ...Refusals },
      handler: (ctx) => {
        runtime.requirePerms();
        return passkeys().loginStart({ ip: ctx.ip });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/passkey/login/finish',
      auth: 'public',
      tag: TAG,
      summary: 'Completes a passkey login: a session, or the TOTP step when the player has TOTP',
      body: Type.Object({ ceremonyId: Type.String({ minLength: 1, maxLength: 64 }), responseJson: ResponseJson }),
      response: { 200: LoginStepSchema, ...Refusals },
      handler: async (ctx) => {
        runtime.requirePerms();
        const origin = originOf(ctx);
        login.guard(origin);
        const service = passkeys();
        let owner: { uuid: string; name: string };
        try {
          owner = await service.loginFinish(ctx.body.ceremonyId, ctx.body.responseJson);
        } catch (error) {
          login.failed('passkey_invalid', origin, '');
          throw error;
        }
        return login.proven(owner, 'passkey', origin);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/auth/passkey/credentials',
      auth: 'session',
      tag: TAG,
      summary: 'The caller’s passkeys, newest first',
      response: { 200: t.Object({ credentials: t.Array(PasskeySchema) }), ...Refusals },
      handler: (ctx) => ({ credentials: passkeys().list(sessionOf(runtime, ctx).uuid) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/auth/passkey/credentials/:id',
      auth: 'session',
      tag: TAG,
      summary: 'Deletes one of the caller’s passkeys',
      params: t.Object({ id: t.String({ minLength: 1, maxLength: 512 }) }),
      response: { 200: MessageSchema, ...Refusals },
      handler: (ctx) => {
        passkeys().delete(sessionOf(runtime, ctx).uuid, ctx.params.id);
        return message('Passkey removed');
      },
    }),
  ];
}


