import { t } from '../t';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';
import { networkStatus } from '../../core/network-status';

const StatusSchema = t.Object({
  networkName: t.String(),
  online: t.Boolean({ description: 'at least one service is READY' }),
  uptimeSeconds: t.Integer(),
  uptimeHuman: t.String(),
  totalServices: t.Integer(),
  totalPlayers: t.Integer({ description: 'players on the network: the larger of what backends and proxies count' }),
  groups: t.Array(
    t.Object({
      name: t.String(),
      instances: t.Integer({ description: 'active instances' }),
      maxInstances: t.Integer(),
      players: t.Integer({ description: 'live: SDK reports moved by the proxy events since' }),
      maxPlayers: t.Integer({ description: 'capacity of the active instances' }),
      software: t.String(),
      version: t.String(),
      quarantined: t.Boolean({ description: 'svc: the crash-loop breaker stopped the group; nothing starts it until an operator lifts it (GET /api/groups/{name} says why and how)' }),
    }),
  ),
});

export function statusRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/status',
      auth: 'service',
      permission: 'svc.dashboard.overview',
      tag: 'network',
      summary: 'The network at a glance: services, players, groups',
      response: { 200: StatusSchema },
      handler: () => networkStatus(kernel),
    }),
  ];
}
