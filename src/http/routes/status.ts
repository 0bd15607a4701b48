import { t } from 'elysia';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';
import { holdsPlayers } from '../../core/players/tracker';

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
    }),
  ),
});

/** `3d 4h 5m`, `4h 5m`, `5m 6s`: an uptime a person reads at a glance. */
export function humanDuration(totalSeconds: number): string {
  const d = Math.floor(totalSeconds / 86_400);
  const h = Math.floor((totalSeconds % 86_400) / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (d > 0) return `${d}d ${h}h ${m}m`;
  if (h > 0) return `${h}h ${m}m`;
  return `${m}m ${s}s`;
}

export function statusRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/status',
      auth: 'service',
      tag: 'network',
      summary: 'The network at a glance: services, players, groups',
      response: { 200: StatusSchema },
      handler: () => {
        const uptimeSeconds = Math.floor((Date.now() - kernel.startedAt.getTime()) / 1000);
        const services = kernel.services.all();
        const groups = kernel.groups.list().map((group) => {
          const members = kernel.services.ofGroup(group.name);
          const instances = kernel.services.activeInstances(group.name);
          return {
            name: group.name,
            instances,
            maxInstances: group.maxInstances,
            players: members.reduce((sum, s) => sum + (holdsPlayers(s) ? s.playerCount : 0), 0),
            maxPlayers: group.maxPlayers * instances,
            software: group.software,
            version: group.version,
          };
        });
        return {
          networkName: kernel.config.network.name,
          online: services.some((s) => s.state === 'READY'),
          uptimeSeconds,
          uptimeHuman: humanDuration(uptimeSeconds),
          totalServices: services.length,
          totalPlayers: kernel.players.networkTotal(),
          groups,
        };
      },
    }),
  ];
}
