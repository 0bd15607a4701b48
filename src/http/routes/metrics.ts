import { t } from '../t';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';

export function metricsRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/metrics',
      auth: 'service',
      permission: 'svc.dashboard.metrics.view',
      tag: 'metrics',
      summary: 'Text exposition for metric scrapers',
      response: { 200: t.String() },
      handler: ({ set }) => {
        set.headers['content-type'] = 'text/plain; version=0.0.4; charset=utf-8';
        return kernel.metrics.render();
      },
    }),
  ];
}
