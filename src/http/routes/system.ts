import { t } from '../t';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';
import { OkSchema } from '../schemas';
import { secondsSinceMono } from '../../core/time/monotonic';

export const HealthSchema = t.Object({
  status: t.String(),
  version: t.String(),
  uptimeSeconds: t.Integer(),
  services: t.Integer(),
  apiEnabled: t.Boolean(),
});

export function systemRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/health',
      auth: 'public',
      tag: 'system',
      summary: 'Liveness and version; 200 whenever the controller answers',
      response: { 200: HealthSchema },
      handler: () => ({
        status: 'ok',
        version: kernel.version,
        uptimeSeconds: secondsSinceMono(kernel.startedMono),
        services: kernel.services.size,
        apiEnabled: kernel.config.api.enabled,
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/shutdown',
      auth: 'admin',
      permission: 'svc.dashboard.shutdown',
      tag: 'system',
      summary: 'Stop the controller: answers 202, exits after 250 ms',
      response: { 202: OkSchema },
      handler: ({ set, actor }) => {
        kernel.requestShutdown('shutdown requested through the API', actor);
        set.status = 202;
        return { success: true as const, message: 'shutting down' };
      },
    }),
  ];
}
