import { t } from '../t';
import type { Kernel } from '../../kernel';
import { dedicatedChanges } from '../../core/dedicated/changes';
import { dedicatedBodyValues, dedicatedDefaults, DedicatedBodySchema, DedicatedPatchSchema, DedicatedSchema, DedicatedViewSchema, type Dedicated, type DedicatedView } from '../../core/dedicated/model';
import { changedHostFields, requireAdminForHostFields } from '../../core/tenancy/host-fields';
import { holdsAdmin } from '../../core/auth';
import { ACTIVE_STATES } from '../../core/services/lifecycle';
import type { ServiceRecord } from '../../core/services/registry';
import { formatUptime, runningSeconds } from '../../core/services/uptime';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema, OkSchema } from '../schemas';

const NameParams = t.Object({ name: t.String({ pattern: DedicatedSchema.properties.name.pattern }) });
const WithService = t.Object({ success: t.Literal(true), message: t.String(), service: DedicatedViewSchema });
const Err = ErrorBodySchema;

/**
 * Dedicated services (admin): single-instance servers on fixed ports in their own directories.
 * Config changes apply at the next start; deleting a config never deletes its directory.
 */
export function dedicatedRoutes(kernel: Kernel): AnyRoute[] {
  const { dedicated, services, manager } = kernel;
  /** Every create, update and delete goes through it: the file written, then the event published. */
  const changes = dedicatedChanges(kernel);

  /** The registry record of a dedicated service, when it has one (running, crashed, stopping). */
  const recordOf = (name: string): ServiceRecord | undefined => {
    const record = services.get(name);
    return record?.isDedicated ? record : undefined;
  };
  const isActive = (record: ServiceRecord | undefined): record is ServiceRecord => record !== undefined && ACTIVE_STATES.has(record.state);

  /**
   * A STOPPED record (or none) is "not running": state, playerCount and uptime null. A record in
   * another state keeps its state (CRASHED included); playerCount and uptime only while active.
   */
  function view(config: Dedicated, now = Date.now()): DedicatedView {
    const record = recordOf(config.name);
    const active = isActive(record);
    const seconds = active ? runningSeconds(record, now) : null;
    return {
      ...config,
      directory: dedicated.directoryOf(config.name),
      state: record === undefined || record.state === 'STOPPED' ? null : record.state,
      pid: record?.pid ?? null,
      playerCount: active ? record.playerCount : null,
      uptime: seconds === null ? null : formatUptime(seconds),
      uptimeSeconds: seconds ?? 0,
    };
  }
  const answer = (message: string, config: Dedicated) => ({ success: true as const, message, service: view(config) });

  return [
    defineRoute({
      method: 'GET',
      path: '/api/dedicated',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.view',
      tag: 'dedicated',
      summary: 'Every dedicated service: its config, directory and runtime status',
      response: { 200: t.Object({ services: t.Array(DedicatedViewSchema), total: t.Integer() }) },
      handler: () => {
        const list = dedicated.list().map((config) => view(config));
        return { services: list, total: list.length };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/dedicated/:name',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.view',
      tag: 'dedicated',
      summary: 'One dedicated service',
      params: NameParams,
      response: { 200: DedicatedViewSchema, 400: Err, 404: Err },
      handler: ({ params }) => view(dedicated.require(params.name)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.manage',
      tag: 'dedicated',
      summary: 'Create a dedicated service: writes config/dedicated/<name>.toml and provisions its directory (eula, server-port); a port another dedicated config uses is refused',
      body: DedicatedBodySchema,
      response: { 201: WithService, 400: Err, 409: Err },
      handler: ({ body, set, actor, principal }) => {
        requireAdminForHostFields(holdsAdmin(principal), changedHostFields(dedicatedDefaults(), dedicatedBodyValues(body)), `dedicated service ${body.name}`);
        const config = changes.create(body, actor);
        set.status = 201;
        return answer(`dedicated service ${config.name} created in ${dedicated.directoryOf(config.name)}`, config);
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/dedicated/:name',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.manage',
      tag: 'dedicated',
      summary: 'Update a dedicated config: fields the body carries change, every other field keeps its value; the name cannot change; a running service picks it up at its next start',
      params: NameParams,
      body: DedicatedPatchSchema,
      response: { 200: WithService, 400: Err, 404: Err, 409: Err },
      handler: ({ params, body, principal }) => {
        requireAdminForHostFields(holdsAdmin(principal), changedHostFields(dedicated.require(params.name), dedicatedBodyValues(body)), `dedicated service ${params.name}`);
        const config = changes.update(params.name, body);
        const running = recordOf(config.name);
        const message = isActive(running)
          ? `dedicated service ${config.name} updated; it is ${running.state}: the change applies at its next start (restart it to apply now)`
          : `dedicated service ${config.name} updated`;
        return answer(message, config);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/dedicated/:name',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.manage',
      tag: 'dedicated',
      summary: 'Delete a dedicated config; refused while it runs; its directory (the world) is kept',
      params: NameParams,
      response: { 200: OkSchema, 400: Err, 404: Err, 409: Err },
      handler: async ({ params, actor }) => {
        const { name } = params;
        await changes.delete(name, actor);
        return { success: true as const, message: `dedicated service ${name} deleted; its directory ${dedicated.directoryOf(name)} was kept (a config delete never deletes a world)` };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/:name/start',
      auth: 'admin',
      permission: 'svc.dashboard.services.start',
      tag: 'dedicated',
      summary: 'Start a dedicated service on its fixed port; 409 when it runs or the port is held, 404 when its directory is gone',
      params: NameParams,
      response: { 200: WithService, 400: Err, 404: Err, 409: Err },
      handler: async ({ params, actor }) => {
        const config = dedicated.require(params.name);
        await manager.startDedicated(config.name, actor);
        return answer(`${config.name} is starting on port ${config.port}`, config);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/:name/stop',
      auth: 'admin',
      permission: 'svc.dashboard.services.stop',
      tag: 'dedicated',
      summary: 'Graceful stop (drain, `stop`, kill after the timeout); stopping a stopped service is a no-op',
      params: NameParams,
      response: { 200: WithService, 400: Err, 404: Err },
      handler: async ({ params, actor }) => {
        const config = dedicated.require(params.name);
        const record = recordOf(config.name);
        if (!record) return answer(`${config.name} is not running; nothing to stop`, config);
        const { state } = record;
        const wasActive = isActive(record);
        await manager.stop(config.name, actor);
        return answer(wasActive ? `${config.name} stopped` : `${config.name} was ${state} and is cleared; nothing was running`, config);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/:name/restart',
      auth: 'admin',
      permission: 'svc.dashboard.services.restart',
      tag: 'dedicated',
      summary: 'Stop (if running), then start with the current config',
      params: NameParams,
      response: { 200: WithService, 400: Err, 404: Err, 409: Err },
      handler: async ({ params, actor }) => {
        const config = dedicated.require(params.name);
        const record = recordOf(config.name);
        if (record) await manager.restart(config.name, actor);
        else await manager.startDedicated(config.name, actor);
        return answer(record ? `${config.name} restarted` : `${config.name} was not running; starting it`, config);
      },
    }),
  ];
}
