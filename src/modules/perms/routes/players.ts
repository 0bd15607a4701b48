import { t } from '../../../http/t';
import { clamp } from '../../../http/clamp';
import { OkSchema } from '../../../http/schemas';
import { defineRoute, type AnyRoute } from '../../../http/route';
import {
  AddMembershipBody,
  MetaBody,
  MetaSchema,
  PlayerListItemSchema,
  PlayerMetaParams,
  PlayerParams,
  PlayerSchema,
  PLAYERS_LIMIT,
  PlayersQuery,
  RegisterBody,
  RemoveMembershipBody,
  WhereQuery,
} from '../model';
import type { PermsRuntime } from '../runtime';
import { ADMIN_GRANTS, authorOf, MANAGE, ok, PREFIX, Refusals, scopeWords, TAG, uuidOf, VIEW, whereOf, WithNotFound } from './common';

/** Players: what the proxy and backends read on join, memberships and meta. */
export function playerRoutes(runtime: PermsRuntime): AnyRoute[] {
  const { state, players } = runtime;
  const nameOf = (uuid: string) => state.player(uuid)?.name ?? uuid;
  return [
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/players`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'Known players whose name contains q (any case), in the order they were first seen: a bare array of {uuid, name, groups, displayGroup, prefix}',
      query: PlayersQuery,
      response: { 200: t.Array(PlayerListItemSchema), ...Refusals },
      handler: ({ query }) => players.search((query.q ?? '').trim(), clamp(query.limit ?? PLAYERS_LIMIT.default, PLAYERS_LIMIT.min, PLAYERS_LIMIT.max)),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/players/:uuid`,
      auth: 'service',
      permission: VIEW,
      tenants: { proxy: 'any' },
      tag: TAG,
      summary: 'A player’s groups, effective permissions and display on a server/world (never 404: an unseen player is "unknown" with the default group)',
      params: PlayerParams,
      query: WhereQuery,
      response: { 200: PlayerSchema, ...Refusals },
      handler: ({ params, query }) => players.view(uuidOf(params.uuid), whereOf(query)),
    }),
    defineRoute({
      method: 'PUT',
      path: `${PREFIX}/players/:uuid`,
      auth: 'service',
      // The bridge's and backends' join-time call; the dashboard edits players through the
      // group and meta routes, so a session has no business registering names for any uuid.
      machineOnly: true,
      tenants: { proxy: 'any', backend: 'any' },
      tag: TAG,
      summary: 'Register a player or save their new name (the proxy and backends call it on join): a new player gets the default group. Answers P; publishes nothing',
      params: PlayerParams,
      query: WhereQuery,
      body: RegisterBody,
      response: { 200: PlayerSchema, ...Refusals },
      handler: ({ params, query, body, actor, principal }) => players.register(uuidOf(params.uuid), body.name, whereOf(query), authorOf(actor, principal)),
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/players/:uuid/groups`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Put a player in a group, optionally only on a server or world, optionally until expiresAt (an unseen player is stored under name, or "unknown"). ' +
        'The same server and world again only sets the new expiry. Publishes PLAYER_PERMISSIONS_UPDATED' + ADMIN_GRANTS,
      params: PlayerParams,
      body: AddMembershipBody,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, body, actor, principal }) => {
        const uuid = uuidOf(params.uuid);
        players.addGroup(uuid, body.group, body, body.name ?? undefined, authorOf(actor, principal));
        return ok(`added ${nameOf(uuid)} to ${state.group(body.group).name}${scopeWords(body)}`);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/players/:uuid/groups`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Take a player out of a group (JSON body): with server or world only that membership, without it every membership of the group. Not a member: still 200, saying nothing was removed (404 PLAYER_NOT_FOUND)',
      params: PlayerParams,
      body: RemoveMembershipBody,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, body, actor, principal }) => {
        const uuid = uuidOf(params.uuid);
        const removed = players.removeGroup(uuid, body.group, body, authorOf(actor, principal));
        const who = nameOf(uuid);
        const group = state.group(body.group).name;
        const where = scopeWords(body);
        return ok(removed ? `removed ${who} from ${group}${where}` : `${who} is not in ${group}${where}; nothing was removed`);
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/players/:uuid/meta`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'A player’s meta: {meta: {key: value}} (empty for an unseen player)',
      params: PlayerParams,
      response: { 200: MetaSchema, ...Refusals },
      handler: ({ params }) => ({ meta: players.meta(uuidOf(params.uuid)) }),
    }),
    defineRoute({
      method: 'PUT',
      path: `${PREFIX}/players/:uuid/meta`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Set one meta key of a known player (404 PLAYER_NOT_FOUND); publishes PLAYER_PERMISSIONS_UPDATED',
      params: PlayerParams,
      body: MetaBody,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, body, actor, principal }) => {
        const uuid = uuidOf(params.uuid);
        players.setMeta(uuid, body.key, body.value, authorOf(actor, principal));
        return ok(`set meta ${body.key} of ${nameOf(uuid)}`);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/players/:uuid/meta/:key`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Remove one meta key of a known player (404 PLAYER_NOT_FOUND; an absent key is still 200, saying nothing was removed)',
      params: PlayerMetaParams,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, actor, principal }) => {
        const uuid = uuidOf(params.uuid);
        const removed = players.removeMeta(uuid, params.key, authorOf(actor, principal));
        return ok(removed ? `removed meta ${params.key} from ${nameOf(uuid)}` : `${nameOf(uuid)} has no meta ${params.key}; nothing was removed`);
      },
    }),
  ];
}
