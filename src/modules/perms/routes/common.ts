import { normalizeUuid } from '../../../core/players/uuid';
import { ApiError } from '../../../errors';
import type { Actor } from '../../../events/catalogue';
import { holdsAdmin, type Principal } from '../../../core/auth';
import { ErrorBodySchema } from '../../../http/schemas';
import type { Author } from '../author';
import { nodeProblem, normalizeNode } from '../nodes';
import type { Where } from '../types';

export const PREFIX = '/api/permissions';
export const VIEW = 'svc.dashboard.perms.view';
export const MANAGE = 'svc.dashboard.perms.manage';
export const TAG = 'permissions';

const Err = ErrorBodySchema;
/** Statuses every route can answer besides its own: validation and auth. */
export const Refusals = { 400: Err, 401: Err, 403: Err } as const;
export const WithNotFound = { ...Refusals, 404: Err } as const;

/** Said by every route that can hand out admin (escalation.ts). */
export const ADMIN_GRANTS =
  '. Handing out admin (a node passing svc.dashboard.admin: *, svc.*, svc.dashboard.*, svc.dashboard.admin; a group holding one, directly or through parents; ' +
  'lifting a negation that held someone back) needs an admin token or an admin dashboard session: 403 FORBIDDEN otherwise';

/** The caller as the services take it: the actor, and whether they may hand out admin. */
export const authorOf = (actor: Actor, principal: Principal | null): Author => ({ actor, admin: holdsAdmin(principal) });

/** The params pattern already holds; this gives the one spelling the tables use. */
export const uuidOf = (raw: string): string => normalizeUuid(raw)!;

/** `?server=&world=` as the resolver takes it: an empty value is no place. */
export function whereOf(query: { server?: string; world?: string }): Where {
  const where: Where = {};
  if (query.server) where.server = query.server;
  if (query.world) where.world = query.world;
  return where;
}

/**
 * A node as the services store it, or 400 naming the body field (the services' own messages
 * say what is wrong with the node, not where it was sent).
 */
export function checkNodeField(field: string, raw: string): string {
  const node = normalizeNode(raw);
  const problem = nodeProblem(node);
  if (problem) throw new ApiError('VALIDATION_FAILED', `body "${field}": ${problem}`);
  return node;
}

/** " on server Lobby-1 in world nether until 2026-…Z" for a scope a service has accepted. */
export function scopeWords(scope: { server?: string | null; world?: string | null; expiresAt?: string | null }): string {
  const server = scope.server?.trim();
  const world = scope.world?.trim();
  const parts = [server && `on server ${server}`, world && `in world ${world}`, scope.expiresAt && `until ${new Date(Date.parse(scope.expiresAt)).toISOString()}`];
  const text = parts.filter(Boolean).join(' ');
  return text ? ` ${text}` : '';
}

export const ok = (message: string) => ({ success: true as const, message });
