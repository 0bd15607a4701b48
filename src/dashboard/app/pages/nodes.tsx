import { useQuery } from '@tanstack/preact-query';
import { api, ApiFailure } from '../api';
import { useLiveRefresh } from '../live-refresh';
import { BootstrapCard } from './nodes/bootstrap-card';
import { LoadBalancerCard } from './nodes/loadbalancer-card';
import './nodes/nodes.css';

interface NodeView {
  nodeId: string;
  host: string;
  /** svc answers "8G" (as svc.toml writes it) beside maxMemoryMb; 0.13.0 answered the MB as a number. */
  maxMemory: string | number;
  maxMemoryMb?: number;
  maxServices: number;
  currentServices: number;
  cpuUsage: number;
  memoryUsedMb: number;
  memoryTotalMb: number;
  isConnected: boolean;
  agentVersion: string;
  lastHeartbeat: string;
  services: string[];
  system: {
    hostname: string;
    osName: string;
    osVersion: string;
    osArch: string;
    cpuModel: string;
    availableProcessors: number;
    systemCpuLoad: number;
    /** -1 where it is not reported (agents do not report their own process). */
    processCpuLoad?: number;
    systemMemoryUsedMb: number;
    systemMemoryTotalMb: number;
    runtimeVersion: string;
    runtimeVendor?: string;
  };
  enrolment: string;
  lastSeen: string | null;
}

/** Events after which the node list is read again (connects, drops, enrolments, placements). */
const NODE_EVENTS = /^(NODE_|SERVICE_(STARTING|STOPPED|CRASHED))/;

const gib = (mb: number) => `${(mb / 1024).toFixed(1)} GiB`;
const percent = (fraction: number) => `${(fraction * 100).toFixed(0)} %`;

/** The node's memory budget in MB, whichever form the controller answered it in. */
function budgetMb(node: Pick<NodeView, 'maxMemory' | 'maxMemoryMb'>): number {
  if (typeof node.maxMemory === 'number') return node.maxMemory;
  if (typeof node.maxMemoryMb === 'number') return node.maxMemoryMb;
  const match = /^(\d+)([MG])$/i.exec(node.maxMemory.trim());
  if (!match) return 0;
  return Number(match[1]) * (match[2]!.toUpperCase() === 'G' ? 1024 : 1);
}

/** "8192 MB (8.0 GiB)"; "–" for a node known only from its enrolment. */
function budgetText(mb: number): string {
  if (mb <= 0) return '–';
  return mb >= 1024 ? `${mb} MB (${gib(mb)})` : `${mb} MB`;
}

function NodeCard({ n }: { n: NodeView }) {
  const processCpu = n.system.processCpuLoad;
  const runtime = [n.system.runtimeVersion, n.system.runtimeVendor ? `(${n.system.runtimeVendor})` : ''].filter(Boolean).join(' ');
  return (
    <article class="card node" aria-label={`Node ${n.nodeId}`}>
      <h2>
        {n.nodeId} <span class={n.isConnected ? 'badge ok' : 'badge'}>{n.isConnected ? 'connected' : 'away'}</span>
      </h2>
      <dl>
        <dt>Host</dt><dd>{n.host}</dd>
        <dt>Machine</dt><dd>{n.system.hostname || '–'} · {n.system.osName} {n.system.osVersion} {n.system.osArch}</dd>
        <dt>CPU</dt><dd>{n.system.cpuModel || '–'} ({n.system.availableProcessors} cores), load {percent(n.cpuUsage)}</dd>
        {typeof processCpu === 'number' && processCpu >= 0 && (
          <>
            <dt>Process CPU</dt><dd>{percent(processCpu)}</dd>
          </>
        )}
        <dt>Memory</dt><dd>{gib(n.memoryUsedMb)} of {gib(n.memoryTotalMb)} used</dd>
        <dt>Budget</dt><dd>services may take {budgetText(budgetMb(n))}</dd>
        <dt>Services</dt><dd>{n.currentServices} of {n.maxServices}{n.services.length > 0 ? `: ${n.services.join(', ')}` : ''}</dd>
        <dt>Runtime</dt><dd>{runtime || '–'}</dd>
        <dt>Agent</dt><dd>{n.agentVersion || '–'}, enrolment {n.enrolment}{n.lastSeen ? `, last seen ${new Date(n.lastSeen).toLocaleString()}` : ''}</dd>
      </dl>
    </article>
  );
}

/** The agents and how to add one: while the cluster is off, how to turn it on. */
function Cluster() {
  const nodes = useQuery({ queryKey: ['nodes'], queryFn: () => api<{ nodes: NodeView[]; total: number }>('/api/nodes') });
  useLiveRefresh([['nodes']], (type) => NODE_EVENTS.test(type));
  if (nodes.isPending) return <p>Loading…</p>;
  if (nodes.isError) {
    const off = nodes.error instanceof ApiFailure && nodes.error.code === 'CLUSTER_NOT_ENABLED';
    return (
      <p role={off ? 'status' : 'alert'}>{off ? 'This controller runs every service itself: the cluster is off. Set [cluster] enabled = true in svc.toml and restart to add agents on other machines.' : nodes.error.message}</p>
    );
  }
  return (
    <>
      <h2 class="nd-heading">Agents</h2>
      {nodes.data.nodes.length === 0 && <p class="empty">No agent has joined yet: see below how to add one.</p>}
      <div class="node-cards">
        {nodes.data.nodes.map((n) => (
          <NodeCard key={n.nodeId} n={n} />
        ))}
      </div>
      <BootstrapCard nodeNames={nodes.data.nodes.map((n) => n.nodeId)} />
    </>
  );
}

/**
 * The Nodes page: the load balancer in front of the proxies (when it runs), the agents (each
 * connected or not, with its machine, load, budget and services) and what an operator needs to
 * join another one.
 */
export function Nodes() {
  return (
    <section class="nd-page">
      <h1>Nodes</h1>
      <LoadBalancerCard />
      <Cluster />
    </section>
  );
}
