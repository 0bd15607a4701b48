import { t } from 'elysia';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';

const ModuleSchema = t.Object({
  id: t.String(),
  name: t.String(),
  version: t.String(),
  description: t.String(),
  status: t.Union([t.Literal('active'), t.Literal('available')]),
  dashboard: t.Union([
    t.Object({ title: t.String(), icon: t.Optional(t.String()), pages: t.Array(t.Object({ path: t.String(), title: t.String() })) }),
    t.Null(),
  ]),
});

export function moduleRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/modules',
      auth: 'admin',
      tag: 'modules',
      summary: 'Modules of this controller with their status and dashboard manifest',
      response: { 200: t.Object({ modules: t.Array(ModuleSchema) }) },
      handler: () => ({ modules: kernel.modules.list() }),
    }),
  ];
}
