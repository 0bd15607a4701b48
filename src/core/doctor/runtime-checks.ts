import type { ServiceRegistry } from '../services/registry';
import { HEALTHY_TPS } from '../services/view';
import { fail, info, ok, warn, type Finding } from './model';
import { runningSeconds } from '../services/uptime';

const STUCK_MS = 10 * 60 * 1000;

/** Crashed, unhealthy, stuck on the way up, or restarting again and again. */
export function serviceFindings(registry: ServiceRegistry, now = Date.now()): Finding[] {
  const findings: Finding[] = [];
  const all = registry.all();
  for (const s of all) {
    if (s.state === 'CRASHED') findings.push(warn(`${s.name} crashed${s.diagnosis ? `: ${s.diagnosis}` : ''}`, `GET /api/services/${s.name}/logs?source=stdout shows its last lines`));
    if (s.state === 'READY' && s.tps !== null && s.tps < HEALTHY_TPS) findings.push(warn(`${s.name} runs at ${s.tps.toFixed(1)} TPS`, 'the server is overloaded: fewer players per instance or more memory'));
    const ranSeconds = runningSeconds(s, now);
    if ((s.state === 'PREPARING' || s.state === 'STARTING') && !s.pooled && ranSeconds !== null && ranSeconds * 1000 > STUCK_MS) {
      findings.push(warn(`${s.name} has been ${s.state} for ${Math.round(ranSeconds / 60)} min`, 'its log tells what it waits for; a ready pattern that never matches keeps it here'));
    }
    if (s.restartCount >= 3) findings.push(warn(`${s.name} was restarted ${s.restartCount} times`, 'a crash loop: read its diagnosis and last lines'));
  }
  if (findings.length === 0) findings.push(ok(all.length === 0 ? 'no services run' : `${all.length} service(s), none in trouble`));
  return findings;
}

/** What the cluster check needs of the cluster: its nodes, whether each is connected, how it isolates its services, and the enrolments. */
export interface NodeList {
  list(): { nodeId: string; connected: boolean; isolation?: string | null }[];
  overview?(): { nodeId: string; node: { connected: boolean } | null; enrolment: { confirmed: boolean; revokedAt: string | null; lastSeenAt: string | null } | null }[];
}

export function clusterFindings(cluster: NodeList | null): Finding[] {
  if (!cluster) return [info('the cluster is not enabled: every service runs on this machine')];
  const nodes = cluster.list();
  const online = nodes.filter((n) => n.connected);
  const findings =
    online.length === 0
      ? [fail('the cluster is enabled but no node is online', 'start `svc agent` on a node and check its log for the reason it cannot connect')]
      : [ok(`${online.length} of ${nodes.length} node(s) online`)];
  for (const node of nodes.filter((n) => !n.connected)) findings.push(warn(`node ${node.nodeId} is away`, 'its services are failed if it does not return within node_timeout'));
  for (const node of nodes) {
    if (node.isolation === 'none') {
      findings.push(warn(`node ${node.nodeId} runs its services without isolation: any game server there can read the agent's cluster token and every other service's files`, 'run the agent as root (a uid per service), or install bubblewrap there; its log says why neither applied'));
    } else if (node.isolation) {
      findings.push(info(`node ${node.nodeId} isolates its services: ${node.isolation}`));
    }
  }
  return [...findings, ...enrolmentFindings(cluster)];
}

/** Enrolments the operator should know about: unconfirmed ones, revoked ones, enrolled nodes long gone. */
function enrolmentFindings(cluster: NodeList): Finding[] {
  const entries = cluster.overview?.() ?? [];
  const findings = registryFindings(entries.flatMap((e) => (e.enrolment ? [{ nodeId: e.nodeId, ...e.enrolment }] : [])));
  for (const entry of entries) {
    if (!entry.enrolment || entry.enrolment.revokedAt || entry.node) continue;
    findings.push(warn(`node ${entry.nodeId} is enrolled but offline${entry.enrolment.lastSeenAt ? ` (last seen ${entry.enrolment.lastSeenAt})` : ''}`, `start its agent, or \`nodes revoke ${entry.nodeId}\` and \`nodes forget ${entry.nodeId}\` if it is gone for good`));
  }
  return findings;
}

/** What the node registry alone says (the offline doctor reads it from data/cluster/nodes.json): unconfirmed and revoked enrolments. */
export function registryFindings(enrolments: readonly { nodeId: string; confirmed: boolean; revokedAt: string | null }[]): Finding[] {
  const findings: Finding[] = [];
  const unconfirmed = enrolments.filter((e) => !e.confirmed && !e.revokedAt).map((e) => e.nodeId);
  if (unconfirmed.length > 0) {
    findings.push(
      warn(
        `enrolment unconfirmed for node(s) ${unconfirmed.join(', ')}: they have not logged in with their own secret yet`,
        'a node just enrolled confirms at its next login; an agent older than enrolment does once it has updated itself (agent.auto_update and a release feed). Until then, while such a node is offline, a holder of the cluster token can enrol under its id',
      ),
    );
  }
  for (const e of enrolments) {
    if (e.revokedAt) findings.push(info(`node ${e.nodeId} is revoked (since ${e.revokedAt})`, `\`nodes forget ${e.nodeId}\` lets the id enrol again`));
  }
  return findings;
}
