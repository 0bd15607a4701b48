import type { Kernel } from '../../kernel';
import { ApiError } from '../../errors';
import { LoadBalancerStatusSchema } from '../../loadbalancer/model';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';

/** The TCP load balancer's state (admin); 404 LOAD_BALANCER_NOT_ENABLED when it is not running. */
export function loadBalancerRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/loadbalancer',
      auth: 'admin',
      permission: 'svc.dashboard.nodes.view',
      tag: 'loadbalancer',
      summary: 'Load balancer: strategy, connection counters and every READY proxy with its health and connections',
      response: { 200: LoadBalancerStatusSchema, 404: ErrorBodySchema },
      handler: () => {
        const lb = kernel.loadBalancer;
        if (lb) return lb.status();
        if (kernel.config.loadbalancer.enabled) {
          const { bind, port } = kernel.config.loadbalancer;
          throw new ApiError('LOAD_BALANCER_NOT_ENABLED', `[loadbalancer] is enabled but not running: ${bind}:${port} could not be bound (see the controller log)`);
        }
        throw new ApiError('LOAD_BALANCER_NOT_ENABLED', 'the load balancer is not enabled ([loadbalancer] enabled = false)');
      },
    }),
  ];
}
