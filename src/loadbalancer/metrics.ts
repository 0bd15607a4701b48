import type { MetricsRegistry, Sample } from '../core/metrics/registry';
import type { LoadBalancer } from './load-balancer';

/**
 * The load balancer's series on GET /api/metrics, registered only when it is enabled (a
 * controller without one shows none). Per-backend gauges carry the proxy's service name;
 * a name listed twice (two backends named alike outside the controller) is shown once.
 */
export function registerLoadBalancerSeries(metrics: MetricsRegistry, lb: LoadBalancer): void {
  const perBackend = (value: (b: ReturnType<LoadBalancer['status']>['backends'][number]) => number) => (): Sample[] => {
    const seen = new Set<string>();
    const out: Sample[] = [];
    for (const backend of lb.status().backends) {
      if (seen.has(backend.name)) continue;
      seen.add(backend.name);
      out.push({ labels: { backend: backend.name }, value: value(backend) });
    }
    return out;
  };
  metrics.gauge('svc_loadbalancer_connections_active', 'client connections open through the load balancer', () => lb.activeConnections);
  metrics.counter('svc_loadbalancer_connections_total', 'client connections the load balancer accepted since it started', () => lb.totalConnections);
  metrics.counter('svc_loadbalancer_connections_rejected_total', 'client connections closed at once because max_connections were open', () => lb.rejectedConnections);
  metrics.counter('svc_loadbalancer_connections_failed_total', 'client connections closed because no healthy proxy could be connected', () => lb.failedConnections);
  metrics.gauge('svc_loadbalancer_buffered_bytes', 'bytes the load balancer holds for a slow side, all connections', () => lb.bufferedBytes);
  metrics.gauge('svc_loadbalancer_backend_healthy', 'whether the load balancer sends players to a proxy (1 healthy, 0 unhealthy), by proxy service', perBackend((b) => (b.health === 'healthy' ? 1 : 0)));
  metrics.gauge('svc_loadbalancer_backend_connections', 'load-balancer connections to a proxy now, by proxy service', perBackend((b) => b.connectionCount));
}
