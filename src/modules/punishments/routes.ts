import { t } from '../../http/t';
import { ApiError } from '../../errors';
import type { Principal } from '../../core/auth';
import { clamp } from '../../http/clamp';
import { normalizeUuid } from '../../core/players/uuid';
import { defineRoute, type AnyRoute } from '../../http/route';
import { ErrorBodySchema, OkSchema } from '../../http/schemas';
import { requireWellFormedText } from '../../http/well-formed';
import type { Actor } from '../../events/catalogue';
import { normalizeIp } from './ip';
import { MessagesSchema, MessagesUpdateSchema } from './messages';
import {
  CheckAnswerSchema,
  HISTORY_LIMIT,
  IdParams,
  IssueBodySchema,
  LIST_LIMIT,
  PunishmentListSchema,
  PunishmentSchema,
  RevokeBodySchema,
  UuidParams,
  type Punishment,
  type PunishmentView,
} from './model';
import type { Where } from './precedence';
import type { PunishmentsRuntime } from './runtime';
import { parseType, type Caller } from './service';

const PREFIX = '/api/punishments';
const TAG = 'punishments';
const NODE = 'svc.dashboard.punishments';
const Err = ErrorBodySchema;
const Refusals = { 400: Err, 401: Err, 403: Err } as const;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** R as the dashboard reads it; `active` means in force now (a record past its end before the expiry loop ran is not). */
export function viewOf(p: Punishment, now: number): PunishmentView {
  return {
    id: p.id,
    type: p.type,
    targetUuid: p.targetUuid,
    targetName: p.targetName,
    targetIp: p.targetIp,
    reason: p.reason,
    issuer: p.issuer,
    issuerName: p.issuerName,
    issuedAt: iso(p.issuedAt)!,
    expiresAt: iso(p.expiresAt),
    active: p.active && (p.expiresAt === null || p.expiresAt > now),
    revokedBy: p.revokedBy,
    revokedAt: iso(p.revokedAt),
    revokeReason: p.revokeReason,
    scope: p.scope,
    scopeTarget: p.scopeTarget,
  };
}

/**
 * The issuer from the credential. A session issues as its player and a JWT as its subject,
 * whatever the body says (the dashboard sends `issuer: "dashboard"`, which is ignored for
 * them); the master and service tokens may name the staff member a proxy acts for.
 */
export function callerOf(principal: Principal | null, actor: Actor, named: { id?: string; name?: string }): Caller {
  if (principal?.kind === 'session' && principal.session) return { id: principal.session.uuid, name: principal.session.name, actor };
  if (principal?.kind === 'master' || principal?.kind === 'service') {
    const id = named.id?.trim() || actor;
    return { id, name: named.name?.trim() || (named.id?.trim() ? id : 'API'), actor };
  }
  const subject = principal?.subject ?? 'api';
  return { id: actor, name: subject, actor };
}

const whereOf = (query: { group?: string; service?: string }): Where => ({
  ...(query.group ? { group: query.group } : {}),
  ...(query.service ? { service: query.service } : {}),
});

function ipOf(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const ip = normalizeIp(raw);
  if (ip === undefined) throw new ApiError('VALIDATION_FAILED', `query "ip" must be an IPv4 or IPv6 address, got "${raw.slice(0, 64)}"`);
  return ip;
}

const Place = { group: t.Optional(t.String({ maxLength: 128, description: 'the group the player is on or joining' })), service: t.Optional(t.String({ maxLength: 128, description: 'the service the player is on or joining' })) };

export function punishmentRoutes(runtime: PunishmentsRuntime): AnyRoute[] {
  const { service } = runtime;
  const json = (text: string) => new Response(text, { headers: { 'content-type': 'application/json', 'cache-control': `private, max-age=${runtime.checkCacheTtlSeconds}` } });
  return [
    defineRoute({
      method: 'GET',
      path: PREFIX,
      auth: 'service',
      permission: `${NODE}.view`,
      tag: TAG,
      summary: 'Punishments, newest first: those in force (active=true, the default) or all of them (active=false), optionally of one type; total counts every match',
      query: t.Object({
        active: t.Optional(t.Boolean({ description: 'true (default): only those in force; false: every record' })),
        type: t.Optional(t.String({ maxLength: 16, description: 'BAN, TEMPBAN, IPBAN, MUTE, TEMPMUTE, KICK or WARN (any case)' })),
        limit: t.Optional(t.Integer({ description: `clamped to ${LIST_LIMIT.min}..${LIST_LIMIT.max}, default ${LIST_LIMIT.default}` })),
        offset: t.Optional(t.Integer({ description: 'records to skip (at least 0)' })),
      }),
      response: { 200: PunishmentListSchema, ...Refusals },
      handler: ({ query }) => {
        const type = query.type === undefined || query.type === '' ? undefined : parseType(query.type);
        const limit = clamp(query.limit ?? LIST_LIMIT.default, LIST_LIMIT.min, LIST_LIMIT.max);
        const { rows, total } = service.list({ active: query.active ?? true, ...(type ? { type } : {}) }, limit, clamp(query.offset ?? 0, 0, Number.MAX_SAFE_INTEGER));
        const now = service.time();
        return { punishments: rows.map((p) => viewOf(p, now)), total };
      },
    }),
    defineRoute({
      method: 'POST',
      path: PREFIX,
      auth: 'service',
      // The node for the type is checked in the handler (it depends on the body): …punishments.<type>.
      permission: `${NODE}.view`,
      tag: TAG,
      summary:
        'Issue a punishment (spec "Punishment issue body"). A dashboard session also needs svc.dashboard.punishments.<type> (ban, tempban, ipban, mute, tempmute, kick, warn) and issues as its player; ' +
        'only the master and service tokens may name issuer/issuerName. A name is resolved by the players module, then the name lookup service (404 when unknown). ' +
        'KICK goes through a READY proxy (503 without one); a new ban, IP ban or mute supersedes the one in force at the same scope. Publishes PUNISHMENT_ISSUED',
      body: IssueBodySchema,
      response: { 201: PunishmentSchema, ...Refusals, 404: Err, 503: Err },
      handler: async ({ body, principal, actor, set }) => {
        requireWellFormedText(body);
        const type = parseType(body.type);
        const node = `${NODE}.${type.toLowerCase()}`;
        if (principal?.session && !principal.session.has(node)) throw new ApiError('FORBIDDEN', `Missing permission: ${node} (this dashboard session does not hold it)`);
        const created = await service.issue(body, callerOf(principal, actor, { id: body.issuer, name: body.issuerName }));
        set.status = 201;
        return viewOf(created, service.time());
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/messages`,
      auth: 'service',
      permission: `${NODE}.view`,
      tag: TAG,
      summary: 'The nine message templates (ban, tempban, ipban, mute, tempmute, kick, warn, broadcast_issued, broadcast_revoked)',
      response: { 200: MessagesSchema, ...Refusals },
      handler: () => runtime.messages.templates(),
    }),
    defineRoute({
      method: 'PUT',
      path: `${PREFIX}/messages`,
      auth: 'service',
      permission: 'svc.dashboard.admin',
      tag: TAG,
      summary: 'Change the templates sent (the others stay as they are); unknown keys are refused. Written atomically; answers every template',
      body: MessagesUpdateSchema,
      response: { 200: MessagesSchema, ...Refusals, 503: Err },
      handler: ({ body }) => {
        requireWellFormedText(body);
        const templates = runtime.messages.update(body);
        // Kept check answers carry the old texts rendered.
        service.checks.invalidate();
        return templates;
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/player/:uuid`,
      auth: 'service',
      permission: `${NODE}.history`,
      tag: TAG,
      summary: 'A player’s punishments of every type, newest first; total counts them all',
      params: UuidParams,
      query: t.Object({ limit: t.Optional(t.Integer({ description: `clamped to ${HISTORY_LIMIT.min}..${HISTORY_LIMIT.max}, default ${HISTORY_LIMIT.default}` })) }),
      response: { 200: PunishmentListSchema, ...Refusals },
      handler: ({ params, query }) => {
        const { rows, total } = service.history(normalizeUuid(params.uuid)!, clamp(query.limit ?? HISTORY_LIMIT.default, HISTORY_LIMIT.min, HISTORY_LIMIT.max));
        const now = service.time();
        return { punishments: rows.map((p) => viewOf(p, now)), total };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/check/:uuid`,
      auth: 'service',
      machineOnly: true,
      tenants: { proxy: 'any' },
      tag: TAG,
      summary:
        'The proxy’s login and server-switch check: the ban that keeps this account (or, with ip, this address) out where it is going, the most severe then the longest, with its kickMessage rendered. ' +
        'Without group and service only network bans count. Answered from memory',
      params: UuidParams,
      query: t.Object({ ip: t.Optional(t.String({ maxLength: 64, description: 'the address the player connects from' })), ...Place }),
      response: { 200: CheckAnswerSchema, ...Refusals },
      handler: ({ params, query }) => json(service.checks.loginJson(normalizeUuid(params.uuid)!, ipOf(query.ip), whereOf(query))),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/mute/:uuid`,
      auth: 'service',
      machineOnly: true,
      tenants: { proxy: 'any', backend: 'any' },
      tag: TAG,
      summary: 'The backend’s chat check: the mute that holds where the player is (without group and service, network mutes only), with its message rendered. Answered from memory',
      params: UuidParams,
      query: t.Object(Place),
      response: { 200: CheckAnswerSchema, ...Refusals },
      handler: ({ params, query }) => json(service.checks.muteJson(normalizeUuid(params.uuid)!, whereOf(query))),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/:id`,
      auth: 'service',
      permission: `${NODE}.view`,
      tag: TAG,
      summary: 'One punishment (404 PUNISHMENT_NOT_FOUND)',
      params: IdParams,
      response: { 200: PunishmentSchema, ...Refusals, 404: Err },
      handler: ({ params }) => viewOf(service.get(params.id), service.time()),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/:id`,
      auth: 'service',
      permission: `${NODE}.revoke`,
      tag: TAG,
      summary:
        'Lift a punishment in force (404 PUNISHMENT_NOT_FOUND; 409 PUNISHMENT_ALREADY_REVOKED when revoked, expired, or a KICK/WARN). ' +
        'Who lifted it comes from the credential; only the master and service tokens may name revokedBy. Publishes PUNISHMENT_REVOKED',
      params: IdParams,
      body: t.Optional(RevokeBodySchema),
      response: { 200: OkSchema, ...Refusals, 404: Err, 409: Err },
      handler: ({ params, body, principal, actor }) => {
        requireWellFormedText(body ?? {});
        service.revoke(params.id, callerOf(principal, actor, { name: body?.revokedBy }), body?.reason ?? '');
        return { success: true as const, message: `Punishment ${params.id} revoked` };
      },
    }),
  ];
}
