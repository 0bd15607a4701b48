import { Type as T } from '@sinclair/typebox';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';

const ModuleSchema = T.Object({
  id: T.String(),
  name: T.String(),
  version: T.String(),
  description: T.String(),
  status: T.Union([T.Literal('active'), T.Literal('available')]),
  dashboard: T.Union([
    T.Object({ title: T.String(), icon: T.Optional(T.String()), pages: T.Array(T.Object({ path: T.String(), title: T.String() })) }),
    T.Null(),
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
      response: { 200: T.Object({ modules: T.Array(ModuleSchema) }) },
      handler: () => ({ modules: kernel.modules.list() }),
    }),
  ];
}
