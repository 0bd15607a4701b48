import { Type } from '@sinclair/typebox';
import { t } from '../t';
import { ApiError } from '../../errors';
import type { Kernel } from '../../kernel';
import { SERVICE_STATES } from '../../core/services/lifecycle';
import type { ServiceManager } from '../../core/services/manager';
import { ServiceViewSchema, serviceView } from '../../core/services/view';
import { serviceLogLines } from '../../core/services/log-lines';
import { defineRoute, type AnyRoute } from '../route';
import { clamp } from '../clamp';
import { TIMELINE_MAX_STEPS } from '../../core/metrics/timeline';
import { supervisorRunDir } from '../../core/isolation';

const Name = t.Object({ name: t.String({ minLength: 1, maxLength: 128 }) });
const Ok = t.Object({ success: t.Literal(true), message: t.String() });
const WithService = t.Object({ success: t.Literal(true), message: t.String(), service: ServiceViewSchema });
/** The custom state as clients read it: null when unset, never ''. */
const CustomState = t.Union([t.String(), t.Null()]);

export function serviceRoutes(kernel: Kernel, manager: ServiceManager): AnyRoute[] {
  const { services, bus } = kernel;
  /** State-sync facts for services of STATIC groups with sync enabled. */
  const syncOf = (s: { name: string; group: string }) => kernel.stateSync.viewOf(s);
  const record = (name: string) => {
    const found = services.get(name);
    if (!found) throw new ApiError('SERVICE_NOT_FOUND', `service "${name}" does not exist`);
    return found;
  };

  return [
    defineRoute({
      method: 'GET',
      path: '/api/services',
      auth: 'service',
      permission: 'svc.dashboard.services.view',
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'services',
      summary: 'Every service, optionally filtered by group, state and custom state',
      query: t.Object({
        group: t.Optional(t.String({ maxLength: 64 })),
        state: t.Optional(t.Union(SERVICE_STATES.map((s) => t.Literal(s)))),
        customState: t.Optional(t.String({ maxLength: 256 })),
      }),
      response: { 200: t.Object({ services: t.Array(ServiceViewSchema), total: t.Integer(), count: t.Integer({ description: 'the same as total; the bridge plugin reads count' }) }) },
      handler: ({ query }) => {
        const list = services
          .all()
          .filter((s) => (query.group === undefined || s.group === query.group) && (query.state === undefined || s.state === query.state) && (query.customState === undefined || s.customState === query.customState))
          .map((s) => serviceView(s, Date.now(), syncOf, manager.isQuarantined(s.group)));
        return { services: list, total: list.length, count: list.length };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/services/health',
      auth: 'service',
      permission: 'svc.dashboard.services.view',
      tag: 'services',
      summary: 'Totals: services, READY, healthy, average TPS over READY, memory',
      response: {
        200: t.Object({
          total: t.Integer(),
          ready: t.Integer(),
          healthy: t.Integer(),
          averageTps: t.Union([t.Number(), t.Null()]),
          memoryUsedMb: t.Integer(),
          memoryMaxMb: t.Integer(),
        }),
      },
      handler: () => {
        const views = services.all().map((s) => serviceView(s));
        const ready = views.filter((v) => v.state === 'READY');
        const tps = ready.map((v) => v.tps).filter((v): v is number => v !== undefined);
        return {
          total: views.length,
          ready: ready.length,
          healthy: views.filter((v) => v.healthy).length,
          averageTps: tps.length ? Math.round((tps.reduce((a, b) => a + b, 0) / tps.length) * 100) / 100 : null,
          memoryUsedMb: views.reduce((a, v) => a + v.memoryUsedMb, 0),
          memoryMaxMb: views.reduce((a, v) => a + v.memoryMaxMb, 0),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/services/:name',
      auth: 'service',
      permission: 'svc.dashboard.services.view',
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'services',
      summary: 'One service',
      params: Name,
      response: { 200: ServiceViewSchema },
      handler: ({ params }) => {
        const found = record(params.name);
        return serviceView(found, Date.now(), syncOf, manager.isQuarantined(found.group));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/services/:name/start',
      auth: 'service',
      permission: 'svc.dashboard.services.start',
      tag: 'services',
      summary: 'Start a new instance of the GROUP named in the path; 409 at the group maximum',
      params: Name,
      response: { 201: WithService },
      handler: async ({ params, set, actor }) => {
        const started = await manager.start(params.name, actor);
        set.status = 201;
        return { success: true as const, message: `${started.name} is starting`, service: serviceView(started) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/services/:name/stop',
      auth: 'service',
      permission: 'svc.dashboard.services.stop',
      tag: 'services',
      summary: 'Graceful stop: drain, `stop`, kill after 30 s',
      params: Name,
      response: { 200: Ok },
      handler: async ({ params, actor }) => {
        record(params.name);
        await manager.stop(params.name, actor);
        return { success: true as const, message: `${params.name} stopped` };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/services/:name/restart',
      auth: 'service',
      permission: 'svc.dashboard.services.restart',
      tag: 'services',
      summary: 'Stop, then start a fresh instance of the same group',
      params: Name,
      response: { 200: WithService },
      handler: async ({ params, actor }) => {
        record(params.name);
        const started = await manager.restart(params.name, actor);
        return { success: true as const, message: `${params.name} restarted as ${started.name}`, service: serviceView(started) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/services/:name/exec',
      auth: 'service',
      permission: 'svc.dashboard.services.console',
      tenants: { backend: 'own' },
      tag: 'services',
      summary: 'Write a command line to the service console (stdin)',
      params: Name,
      body: Type.Object({ command: Type.String({ minLength: 1, maxLength: 4096, pattern: '^[^\\r\\n]*$' }) }),
      response: { 200: Ok },
      handler: ({ params, body }) => {
        record(params.name);
        manager.exec(params.name, body.command);
        return { success: true as const, message: `sent to ${params.name}` };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/services/:name/state',
      auth: 'service',
      // The SDK's reports about its own service (state, health, players): the picture the
      // controller keeps of the network is fed by machines, never by a browser.
      machineOnly: true,
      tenants: { proxy: 'own', backend: 'own' },
      tag: 'services',
      summary: 'Set the free-text custom state, or clear it with {}, null or "" (READY services only)',
      params: Name,
      body: Type.Object({ customState: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])) }),
      response: { 200: t.Object({ success: t.Literal(true), message: t.String(), service: t.String(), customState: CustomState }) },
      handler: ({ params, body, actor }) => {
        record(params.name);
        const customState = body.customState || null;
        manager.setCustomState(params.name, customState, actor);
        const message = customState === null ? `custom state of ${params.name} cleared` : `custom state of ${params.name} set`;
        return { success: true as const, message, service: params.name, customState };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/services/:name/state',
      auth: 'service',
      permission: 'svc.dashboard.services.view',
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'services',
      summary: 'The current custom state',
      params: Name,
      response: { 200: t.Object({ service: t.String(), state: t.String(), customState: CustomState }) },
      handler: ({ params }) => {
        const found = record(params.name);
        return { service: found.name, state: found.state, customState: found.customState || null };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/services/:name/health',
      auth: 'service',
      machineOnly: true,
      tenants: { proxy: 'own', backend: 'own' },
      tag: 'services',
      summary: 'SDK health report (TPS); memory fields are accepted and ignored',
      params: Name,
      body: Type.Object({ tps: Type.Number({ minimum: 0, maximum: 1000 }) }),
      response: { 200: Ok },
      handler: ({ params, body }) => {
        record(params.name);
        manager.reportTps(params.name, body.tps);
        return { success: true as const, message: 'health recorded' };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/services/:name/players',
      auth: 'service',
      machineOnly: true,
      tenants: { proxy: 'own', backend: 'own' },
      tag: 'services',
      summary: 'SDK player-count report',
      params: Name,
      body: Type.Object({ playerCount: Type.Integer({ minimum: 0, maximum: 1_000_000 }) }),
      response: { 200: Ok },
      handler: ({ params, body }) => {
        record(params.name);
        manager.reportPlayers(params.name, body.playerCount);
        return { success: true as const, message: 'player count recorded' };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/services/:name/logs',
      auth: 'service',
      permission: 'svc.dashboard.services.console',
      tag: 'services',
      summary: 'Log tail: source=app (logs/latest.log, default) or stdout (captured process output)',
      params: Name,
      query: t.Object({
        lines: t.Optional(t.Integer({ description: 'clamped to 1..1000, default 100' })),
        source: t.Optional(t.Union([t.Literal('app'), t.Literal('stdout')])),
      }),
      response: { 200: t.Object({ service: t.String(), source: t.String(), lines: t.Array(t.String()) }) },
      handler: ({ params, query }) => {
        const found = record(params.name);
        const count = clamp(query.lines ?? 100, 1, 1000);
        const source = query.source ?? 'app';
        return { service: found.name, source, lines: serviceLogLines(found, manager.handleOf(found.name), source, count, supervisorRunDir(kernel.paths.data)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/services/:name/metrics/history',
      auth: 'service',
      permission: 'svc.dashboard.services.view',
      tag: 'services',
      summary: 'Memory and player samples (every 10 s) of the last `minutes`, at most 2000',
      params: Name,
      query: t.Object({ minutes: t.Optional(t.Integer({ description: 'clamped to 5..1440, default 60' })) }),
      response: {
        200: t.Object({
          service: t.String(),
          samples: t.Array(t.Object({ timestamp: t.String(), memoryUsedMb: t.Integer(), memoryMaxMb: t.Integer(), playerCount: t.Integer() })),
        }),
      },
      handler: ({ params, query }) => {
        const found = record(params.name);
        return { service: found.name, samples: kernel.history.history(found.name, clamp(query.minutes ?? 60, 5, 1440)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/services/:name/timeline',
      auth: 'service',
      permission: 'svc.dashboard.services.view',
      tag: 'services',
      summary: 'What happened to the service, newest first: starts, READY, crashes, stops, deploys, pushes, backups, with who or what caused each',
      params: Name,
      query: t.Object({ limit: t.Optional(t.Integer({ description: `clamped to 1..${TIMELINE_MAX_STEPS}, default 100` })) }),
      response: {
        200: t.Object({
          service: t.String(),
          steps: t.Array(
            t.Object({
              timestamp: t.String(),
              type: t.String(),
              actor: t.String({ description: 'api:admin, api:<token>, dashboard:<name>, console, system (the controller), autoscaler, scheduler' }),
              data: t.Record(t.String(), t.String()),
            }),
          ),
        }),
      },
      handler: ({ params, query }) => {
        const found = record(params.name);
        return { service: found.name, steps: kernel.dashboardMetrics.timeline.steps(found.name, clamp(query.limit ?? 100, 1, TIMELINE_MAX_STEPS)) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/services/:name/message',
      auth: 'service',
      // Plugin-to-plugin messaging: `from` is whatever the caller says it is.
      machineOnly: true,
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'services',
      summary: 'Publish SERVICE_MESSAGE to a service or to the virtual target "controller"',
      params: Name,
      body: Type.Object({
        from: Type.String({ minLength: 1, maxLength: 128 }),
        channel: Type.String({ minLength: 1, maxLength: 128 }),
        data: Type.Record(Type.String({ maxLength: 128 }), Type.Union([Type.String({ maxLength: 4096 }), Type.Number(), Type.Boolean()]), { maxProperties: 64 }),
      }),
      response: { 200: Ok },
      handler: ({ params, body, actor, principal }) => {
        // A server's own credential says who sends: it cannot pose as another service.
        if (principal?.kind === 'tenant' && body.from !== principal.tenant?.service) {
          throw new ApiError('FORBIDDEN', `"from" must be your own service name (${principal.tenant?.service}) with this credential`);
        }
        if (params.name !== 'controller') record(params.name);
        const reserved = ['from', 'to', 'channel'].find((key) => key in body.data);
        if (reserved) throw new ApiError('VALIDATION_FAILED', `body "data" may not carry the key "${reserved}" (it is part of the message envelope)`);
        bus.publish('SERVICE_MESSAGE', { ...body.data, from: body.from, to: params.name, channel: body.channel }, actor);
        return { success: true as const, message: `message sent to ${params.name}` };
      },
    }),
  ];
}
