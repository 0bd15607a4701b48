import type { MetricsRegistry, Sample } from '../core/metrics/registry';
import { monotonicNow } from '../core/time/monotonic';
import type { ServiceRegistry } from '../core/services/registry';
import type { Cluster } from './cluster';

/**
 * The cluster's series on GET /api/metrics, registered only with `[cluster] enabled`: nodes
 * by connection state, and per node its heartbeat figures and the services placed on it.
 */
export function registerClusterSeries(metrics: MetricsRegistry, cluster: Cluster, registry: ServiceRegistry): void {
  const perNode = (value: (node: ReturnType<Cluster['list']>[number]) => number) => (): Sample[] => cluster.list().map((node) => ({ labels: { node: node.nodeId }, value: value(node) }));
  metrics.gauge('svc_cluster_nodes', 'cluster nodes known to the controller, by connection state', () => {
    const nodes = cluster.list();
    const connected = nodes.filter((n) => n.connected).length;
    return [
      { labels: { state: 'connected' }, value: connected },
      { labels: { state: 'disconnected' }, value: nodes.length - connected },
    ];
  });
  metrics.gauge('svc_node_services', 'services placed on a cluster node', () => {
    const counts = new Map<string, number>(cluster.list().map((n) => [n.nodeId, 0]));
    for (const record of registry.all()) if (counts.has(record.nodeId)) counts.set(record.nodeId, counts.get(record.nodeId)! + 1);
    return [...counts].map(([node, value]) => ({ labels: { node }, value }));
  });
  metrics.gauge('svc_node_cpu_usage', 'the node\'s load per core from its last heartbeat (0..1)', perNode((n) => n.cpuUsage));
  metrics.gauge('svc_node_memory_used_bytes', 'system memory in use on the node from its last heartbeat, in bytes (reported to the MiB)', perNode((n) => n.memoryUsedMb * 1048576));
  metrics.gauge('svc_node_memory_used_mb', 'deprecated: use svc_node_memory_used_bytes. System memory in use on the node from its last heartbeat, in MiB', perNode((n) => n.memoryUsedMb));
  metrics.gauge('svc_node_heartbeat_age_seconds', 'seconds since the node\'s last heartbeat', perNode((n) => Math.max(0, (monotonicNow() - n.heardMono) / 1000)));
}
