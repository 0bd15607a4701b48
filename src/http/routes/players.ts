import { Type } from '@sinclair/typebox';
import { t } from '../t';
import type { Kernel } from '../../kernel';
import { pingServer } from '../../core/net/server-list-ping';
import { listOnlinePlayers, type Ping } from '../../core/players/online-players';
import { PLAYER_NAME_PATTERN } from '../../core/players/uuid';
import type { NetworkActions } from '../../core/proxy/network-actions';
import { TEXT_LIMITS } from '../../core/proxy/model';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';
import { requireWellFormedText } from '../well-formed';

const NameParams = t.Object({ name: t.String({ pattern: PLAYER_NAME_PATTERN, description: 'player name' }) });
const OneLine = (maxLength: number, minLength = 0) => Type.String({ minLength, maxLength, pattern: '^[^\\r\\n]*$' });
const ViaProxies = t.Object({ success: t.Literal(true), message: t.String(), proxies: t.Array(t.String()) });

const ListingSchema = t.Object({
  players: t.Array(
    t.Object({
      name: t.String(),
      uuid: t.String(),
      service: t.String(),
      server: t.String({ description: 'the same as service; the bridge plugin reads server' }),
      group: t.String(),
      source: t.Union([t.Literal('roster'), t.Literal('ping'), t.Literal('both')]),
      proxy: t.Union([t.String(), t.Null()], { description: 'the proxy carrying the player, when its own credential reported the connect' }),
    }),
  ),
  total: t.Integer({ description: 'players listed' }),
  count: t.Integer({ description: 'the same as total; the bridge plugin reads count' }),
  online: t.Integer({ description: 'players the servers report online; status samples may list fewer names' }),
  services: t.Array(
    t.Object({
      service: t.String(),
      group: t.String(),
      reachable: t.Boolean(),
      online: t.Integer(),
      max: t.Integer(),
      error: t.Optional(t.String()),
    }),
  ),
});

export function playerRoutes(kernel: Kernel, actions: NetworkActions, ping: Ping = pingServer): AnyRoute[] {
  const { services, players } = kernel;
  /** The proxy carrying a player, when one's own credential reported them (the roster keeps it). */
  const proxyOf = (uuid: string) => players.roster.get(uuid)?.proxy || null;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/players',
      auth: 'service',
      permission: 'svc.dashboard.players.view',
      tag: 'network',
      summary:
        'Who is online. With the players module: its canonical roster (no backend is pinged, services is empty). Without it: every READY backend pinged in parallel (3 s at most) and merged with the bridge roster; approximate',
      response: { 200: ListingSchema },
      handler: async () => {
        const directory = kernel.modules.lookup('players');
        if (directory) {
          const listed = directory
            .online()
            .map((p) => ({ name: p.name, uuid: p.uuid, service: p.service, server: p.service, group: p.group, source: 'roster' as const, proxy: proxyOf(p.uuid) }))
            .sort((a, b) => a.name.localeCompare(b.name));
          return { players: listed, total: listed.length, count: listed.length, online: listed.length, services: [] };
        }
        const backends = services.all().filter((s) => s.state === 'READY' && !s.isProxy);
        const listing = await listOnlinePlayers(backends, players.roster, ping, {
          observe: (service, online) => players.observe(service, online),
          groupOf: (service) => services.get(service)?.group,
        });
        return { ...listing, players: listing.players.map((p) => ({ ...p, server: p.service, proxy: proxyOf(p.uuid) })), count: listing.total };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/players/:name/send',
      auth: 'service',
      permission: 'svc.dashboard.players.manage',
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'network',
      summary: 'Move a player to a READY backend through the proxies (503 when no proxy is READY)',
      params: NameParams,
      body: Type.Object({ targetService: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }) }),
      response: { 200: ViaProxies, 503: ErrorBodySchema },
      handler: ({ params, body }) => {
        const proxies = actions.send(params.name, body.targetService);
        return { success: true as const, message: `${params.name} is being sent to ${body.targetService}`, proxies };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/players/:name/kick',
      auth: 'service',
      permission: 'svc.dashboard.players.manage',
      tag: 'network',
      summary: 'Kick a player off the network through the proxies (503 when no proxy is READY)',
      params: NameParams,
      body: Type.Object({ reason: OneLine(TEXT_LIMITS.short) }),
      response: { 200: ViaProxies, 503: ErrorBodySchema },
      handler: ({ params, body }) => {
        requireWellFormedText(body);
        const proxies = actions.kick(params.name, body.reason.trim());
        return { success: true as const, message: `${params.name} is being kicked`, proxies };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/broadcast',
      auth: 'service',
      permission: 'svc.dashboard.broadcast',
      tag: 'network',
      summary: 'A message to every READY service, or those of one group: the broadcast command on proxies, `say` on backends',
      body: Type.Object({ message: OneLine(TEXT_LIMITS.line, 1), group: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }),
      response: {
        200: t.Object({
          success: t.Literal(true),
          message: t.String(),
          services: t.Integer({ description: 'services the message was written to' }),
          targets: t.Array(t.String(), { description: 'the READY services it was meant for' }),
        }),
        503: ErrorBodySchema,
      },
      handler: ({ body }) => {
        requireWellFormedText(body);
        const { reached, targets } = actions.broadcast(body.message, body.group);
        const scope = body.group === undefined ? 'the network' : `group ${body.group}`;
        return { success: true as const, message: `broadcast written to ${reached.length}/${targets.length} READY services of ${scope}`, services: reached.length, targets };
      },
    }),
  ];
}
