import type { Kernel } from '../kernel';
import type { ServiceRegistry } from '../core/services/registry';
import { LoadBalancer, type LoadBalancerTiming } from './load-balancer';
import { registerLoadBalancerSeries } from './metrics';
import type { Backend } from './model';

/** The load balancer's backends in the controller: the READY proxy services, wherever they run. */
export function readyProxies(services: ServiceRegistry): Backend[] {
  return services
    .all()
    .filter((s) => s.isProxy && s.state === 'READY')
    .map((s) => ({ name: s.name, host: s.host, port: s.port, playerCount: s.playerCount }));
}

/**
 * Starts the `[loadbalancer]` in front of the READY proxies and registers its metrics.
 * A port that cannot be bound is the operator's problem, not a reason to stop the
 * controller: it is logged as an error and published as API_WARNING, and undefined is
 * returned (GET /api/loadbalancer then says why it is not running).
 */
export function startLoadBalancer(kernel: Kernel, timing?: Partial<LoadBalancerTiming>): LoadBalancer | undefined {
  const { config, log, bus, services, metrics } = kernel;
  const { bind, port } = config.loadbalancer;
  const lb = new LoadBalancer({ config: config.loadbalancer, backends: () => readyProxies(services), bus, log: log.child({ area: 'loadbalancer' }), timing });
  try {
    lb.start();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const message = `[loadbalancer] cannot listen on ${bind}:${port} (${reason}): the load balancer is off until the controller restarts`;
    log.error({ area: 'loadbalancer', err: error }, message);
    bus.publish('API_WARNING', { message });
    return undefined;
  }
  registerLoadBalancerSeries(metrics, lb);
  return lb;
}
