import { t } from '../t';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';

const ModuleParams = t.Object({ id: t.String({ pattern: '^[a-z][a-z0-9-]{0,31}$' }) });
const Changed = t.Object({ success: t.Literal(true), message: t.String(), restartRequired: t.Boolean() });

const ModuleSchema = t.Object({
  id: t.String(),
  name: t.String(),
  version: t.String(),
  description: t.String(),
  status: t.Union([t.Literal('active'), t.Literal('available'), t.Literal('failed')], { description: 'failed: installed, but its start failed this run (see error)' }),
  error: t.Union([t.String(), t.Null()], { description: 'why its start failed this run, or null' }),
  loaded: t.Boolean({ description: 'loaded by this run (status active); the dashboard reads this name' }),
  installed: t.Boolean({ description: 'its module file is present: it loads on the next start' }),
  restartRequired: t.Boolean({ description: 'installed or uninstalled since this start' }),
  dashboard: t.Union([
    t.Object({
      title: t.String(),
      icon: t.Optional(t.String({ description: 'a lucide icon name; the dashboard reads this for the sidebar entry' })),
      apiPrefix: t.Optional(t.String({ description: 'where the module routes live, e.g. /api/players' })),
      sections: t.Optional(t.Array(t.Object({ title: t.String(), type: t.Literal('table'), endpoint: t.String({ description: 'relative to apiPrefix' }) }))),
      pages: t.Array(t.Object({ path: t.String(), title: t.String() })),
    }),
    t.Null(),
  ]),
});

export function moduleRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/modules',
      auth: 'admin',
      permission: 'svc.dashboard.admin',
      tag: 'modules',
      summary: 'Modules of this controller with their status and dashboard manifest',
      response: { 200: t.Object({ modules: t.Array(ModuleSchema) }) },
      handler: () => ({ modules: kernel.modules.list() }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modules/install/:id',
      auth: 'admin',
      permission: 'svc.dashboard.admin',
      tag: 'modules',
      summary: 'Install a module of this build (its file in modules/); it loads on the next start',
      params: ModuleParams,
      response: { 200: Changed, 201: Changed, 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema },
      handler: ({ params, set, actor }) => {
        const changed = kernel.modules.install(params.id);
        const info = kernel.modules.list().find((m) => m.id === params.id)!;
        if (!changed) return { success: true as const, message: `module ${params.id} is already installed`, restartRequired: info.restartRequired };
        kernel.audit.record({ actor, action: 'MODULE_INSTALLED', target: params.id });
        set.status = 201;
        return { success: true as const, message: `module ${params.id} installed${info.restartRequired ? '; restart the controller to load it' : ''}`, restartRequired: info.restartRequired };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modules/uninstall/:id',
      auth: 'admin',
      permission: 'svc.dashboard.admin',
      tag: 'modules',
      summary: 'Uninstall a module (its file removed from modules/); it stays loaded until the next start',
      params: ModuleParams,
      response: { 200: Changed, 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema },
      handler: ({ params, actor }) => {
        const changed = kernel.modules.uninstall(params.id);
        const info = kernel.modules.list().find((m) => m.id === params.id)!;
        if (changed) kernel.audit.record({ actor, action: 'MODULE_UNINSTALLED', target: params.id });
        const message = changed ? `module ${params.id} uninstalled${info.restartRequired ? '; restart the controller to unload it' : ''}` : `module ${params.id} is not installed`;
        return { success: true as const, message, restartRequired: info.restartRequired };
      },
    }),
  ];
}
