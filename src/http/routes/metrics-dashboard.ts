import { t } from '../t';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';

const PlayerSampleSchema = t.Object({
  timestamp: t.String({ description: 'ISO-8601 UTC time of the sample' }),
  totalPlayers: t.Integer({ description: 'players on the network, the figure GET /api/status shows' }),
  byGroup: t.Record(t.String(), t.Integer(), { description: 'group (a dedicated service: its name) → players; every configured one, 0 included' }),
});

const GroupPerformanceSchema = t.Object({
  groupName: t.String(),
  isDedicated: t.Boolean({ description: 'a dedicated service, listed as its own group' }),
  crashesLast24h: t.Integer(),
  averageStartupSeconds: t.Number({ description: 'STARTING to READY, over the starts of the last 7 days; 0 without any' }),
  averageMemoryPercent: t.Number({ description: 'resident memory over the memory limit, averaged over the services with a process' }),
  averageTps: t.Number({ description: 'averaged over READY services that reported a TPS; 0 when none did' }),
  playerCount: t.Integer(),
  maxPlayers: t.Integer({ description: 'capacity of the active instances (as GET /api/status); 0 for a dedicated service' }),
  serviceCount: t.Integer(),
  readyServiceCount: t.Integer(),
});

const PerformanceSchema = t.Object({
  crashesLast24h: t.Integer(),
  crashesLast7d: t.Integer(),
  averageStartupSeconds: t.Number({ description: 'STARTING to READY, over the starts of the last 7 days; 0 without any' }),
  uptimePercent: t.Number({ description: 'service availability over the last 24 h, sampled every 10 s: up / (up + crashed and not back)' }),
  totalMemoryUsedMb: t.Integer(),
  totalMemoryMaxMb: t.Integer(),
  networkPlayers: t.Integer({ description: 'the figure GET /api/status shows' }),
  serviceCount: t.Integer(),
  readyServiceCount: t.Integer(),
  groups: t.Array(GroupPerformanceSchema, { description: 'every configured group and dedicated service, zeros when nothing runs' }),
});

/** The network-wide figures the dashboard's overview and performance pages read. */
export function metricsDashboardRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/metrics/players/history',
      auth: 'service',
      permission: 'svc.dashboard.metrics.view',
      tag: 'metrics',
      summary: 'Network players over the last `minutes` (a sample every 10 s, at most 2000), in total and by group',
      query: t.Object({ minutes: t.Optional(t.Integer({ description: 'clamped to 5..1440, default 60' })) }),
      response: { 200: t.Object({ samples: t.Array(PlayerSampleSchema) }) },
      handler: ({ query }) => ({ samples: kernel.dashboardMetrics.playerHistory(query.minutes) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/metrics/performance',
      auth: 'service',
      permission: 'svc.dashboard.metrics.view',
      tag: 'metrics',
      summary: 'Crashes, startup times, uptime, memory and players: network-wide and per group',
      response: { 200: PerformanceSchema },
      handler: () => kernel.dashboardMetrics.performance(),
    }),
  ];
}
