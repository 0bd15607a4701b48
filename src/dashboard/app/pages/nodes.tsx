import { useQuery } from '@tanstack/preact-query';
import { api, ApiFailure } from '../api';
import { useLiveRefresh } from '../live-refresh';

interface NodeView {
  nodeId: string;
  host: string;
  maxMemory: string;
  maxServices: number;
  currentServices: number;
  cpuUsage: number;
  memoryUsedMb: number;
  memoryTotalMb: number;
  isConnected: boolean;
  agentVersion: string;
  lastHeartbeat: string;
  services: string[];
  system: { hostname: string; osName: string; osVersion: string; osArch: string; cpuModel: string; availableProcessors: number; systemCpuLoad: number; systemMemoryUsedMb: number; systemMemoryTotalMb: number; runtimeVersion: string };
  enrolment: string;
  lastSeen: string | null;
}

/** Events after which the node list is read again (connects, drops, enrolments, placements). */
const NODE_EVENTS = /^(NODE_|SERVICE_(STARTING|STOPPED|CRASHED))/;

const gib = (mb: number) => `${(mb / 1024).toFixed(1)} GiB`;

/** The agents: whether each is connected, its machine (system facts), its load and its services. */
export function Nodes() {
  const nodes = useQuery({ queryKey: ['nodes'], queryFn: () => api<{ nodes: NodeView[]; total: number }>('/api/nodes') });
  useLiveRefresh([['nodes']], (type) => NODE_EVENTS.test(type));
  if (nodes.isPending) return <p>Loading…</p>;
  if (nodes.isError) {
    const off = nodes.error instanceof ApiFailure && nodes.error.code === 'CLUSTER_NOT_ENABLED';
    return (
      <section>
        <h1>Nodes</h1>
        <p role={off ? 'status' : 'alert'}>{off ? 'This controller runs every service itself: the cluster is off. Set [cluster] enabled = true in svc.toml and restart to add agents on other machines.' : nodes.error.message}</p>
      </section>
    );
  }
  return (
    <section>
      <h1>Nodes</h1>
      {nodes.data.nodes.length === 0 && <p class="empty">No agent has joined yet: run `svc agent` on another machine with this controller's cluster token.</p>}
      <div class="node-cards">
        {nodes.data.nodes.map((n) => (
          <article key={n.nodeId} class="card node" aria-label={`Node ${n.nodeId}`}>
            <h2>
              {n.nodeId} <span class={n.isConnected ? 'badge ok' : 'badge'}>{n.isConnected ? 'connected' : 'away'}</span>
            </h2>
            <dl>
              <dt>Host</dt><dd>{n.host}</dd>
              <dt>Machine</dt><dd>{n.system.hostname || '–'} · {n.system.osName} {n.system.osVersion} {n.system.osArch}</dd>
              <dt>CPU</dt><dd>{n.system.cpuModel || '–'} ({n.system.availableProcessors} cores), load {(n.cpuUsage * 100).toFixed(0)} %</dd>
              <dt>Memory</dt><dd>{gib(n.memoryUsedMb)} of {gib(n.memoryTotalMb)} used; services may take {n.maxMemory}</dd>
              <dt>Services</dt><dd>{n.currentServices} of {n.maxServices}{n.services.length > 0 ? `: ${n.services.join(', ')}` : ''}</dd>
              <dt>Agent</dt><dd>{n.agentVersion || '–'}, enrolment {n.enrolment}{n.lastSeen ? `, last seen ${new Date(n.lastSeen).toLocaleString()}` : ''}</dd>
            </dl>
          </article>
        ))}
      </div>
    </section>
  );
}
