import { t } from '../../http/t';
import { ApiError } from '../../errors';
import { clamp } from '../../http/clamp';
import { normalizeUuid } from '../../core/players/uuid';
import { defineRoute, type AnyRoute } from '../../http/route';
import { ErrorBodySchema } from '../../http/schemas';
import { ALL_LIMIT, HISTORY_LIMIT, KnownPlayerSchema, OnlinePlayerSchema, PlayerInfoSchema, SessionSchema, StatsSchema, UuidParams } from './model';
import type { PlayerViews } from './views';

const VIEW = 'svc.dashboard.players.view';
const HISTORY = 'svc.dashboard.players.history';
const TAG = 'players';
const NotFound = { 400: ErrorBodySchema, 404: ErrorBodySchema };

/** The params pattern already holds; this gives the one spelling the tables use. */
const uuidOf = (raw: string) => normalizeUuid(raw)!;

export function playersModuleRoutes(views: PlayerViews): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/players/online',
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'The canonical online roster: every open session, as the proxies reported it',
      response: { 200: t.Array(OnlinePlayerSchema) },
      // Tens of thousands of players: the answer is serialised once per roster change (views.onlineJson).
      handler: () => new Response(views.onlineJson(), { headers: { 'content-type': 'application/json' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/players/online/:uuid',
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'One online player and their current session (404 PLAYER_NOT_ONLINE)',
      params: UuidParams,
      response: { 200: OnlinePlayerSchema, ...NotFound },
      handler: ({ params }) => {
        const player = views.onlineOne(uuidOf(params.uuid));
        if (!player) throw new ApiError('PLAYER_NOT_ONLINE', `player ${params.uuid} is not online`);
        return player;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/players/history/:uuid',
      auth: 'service',
      permission: HISTORY,
      tag: TAG,
      summary: 'A player’s sessions, newest first (an unknown player has none)',
      params: UuidParams,
      query: t.Object({ limit: t.Optional(t.Integer({ description: `clamped to ${HISTORY_LIMIT.min}..${HISTORY_LIMIT.max}, default ${HISTORY_LIMIT.default}` })) }),
      response: { 200: t.Array(SessionSchema), 400: ErrorBodySchema },
      handler: ({ params, query }) => views.history(uuidOf(params.uuid), clamp(query.limit ?? HISTORY_LIMIT.default, HISTORY_LIMIT.min, HISTORY_LIMIT.max)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/players/info/:uuid',
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'What is known of a player: first and last seen, playtime, whether and where they are online (404 PLAYER_NOT_FOUND)',
      params: UuidParams,
      response: { 200: PlayerInfoSchema, ...NotFound },
      handler: ({ params }) => {
        const info = views.info(uuidOf(params.uuid));
        if (!info) throw new ApiError('PLAYER_NOT_FOUND', `no player with uuid ${params.uuid} has been seen`);
        return info;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/players/all',
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'Known players whose name contains q (a plain substring, any case), or the most recently seen; values are strings',
      query: t.Object({
        q: t.Optional(t.String({ maxLength: 64, description: 'part of a name; % and _ match themselves' })),
        limit: t.Optional(t.Integer({ description: `clamped to ${ALL_LIMIT.min}..${ALL_LIMIT.max}, default ${ALL_LIMIT.default}` })),
      }),
      response: { 200: t.Array(KnownPlayerSchema), 400: ErrorBodySchema },
      handler: ({ query }) => views.known((query.q ?? '').trim(), clamp(query.limit ?? ALL_LIMIT.default, ALL_LIMIT.min, ALL_LIMIT.max)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/players/stats',
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'Players online, players ever seen, and the online players of each service',
      response: { 200: StatsSchema },
      handler: () => views.stats(),
    }),
  ];
}
