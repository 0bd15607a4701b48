import { Type } from '@sinclair/typebox';
import { t } from '../t';
import type { Kernel } from '../../kernel';
import { ApiError } from '../../errors';
import { SystemInfoSchema, withRuntimeAliases } from '../../core/info/system-facts';
import { formatMemory } from '../../core/software/memory';
import type { NodeOverview } from '../../cluster/cluster';
import type { NodeSystem } from '../../cluster/node';
import type { ClusterRuntime } from '../../cluster/runtime';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';

const ENROLMENT_STATES = ['confirmed', 'unconfirmed', 'revoked', 'none'] as const;

/**
 * A node as the dashboard reads it (the reference's fields), plus its enrolment. A node known
 * only from its enrolment (offline, its last facts expired) shows zeros and blank facts.
 * An agent does not report its own process load, so `system.processCpuLoad` is -1 (the
 * dashboard's "not available": it hides the row).
 */
const NodeSchema = t.Object({
  nodeId: t.String(),
  host: t.String({ description: 'where players and proxies reach it: fixed at enrolment (or by PUT /api/nodes/{nodeId}/host), never by a login' }),
  maxMemory: t.String({ description: 'the memory its services may take together, as svc.toml writes it: "8G", "1536M"' }),
  maxMemoryMb: t.Integer({ description: 'the same in MB' }),
  maxServices: t.Integer(),
  currentServices: t.Integer(),
  cpuUsage: t.Number(),
  memoryUsedMb: t.Integer(),
  memoryTotalMb: t.Integer(),
  isConnected: t.Boolean(),
  agentVersion: t.String(),
  lastHeartbeat: t.String({ description: 'ISO-8601; blank for a node known only from its enrolment' }),
  services: t.Array(t.String(), { description: 'the names of the services placed on it (GET /api/services?… has their records, with nodeId)' }),
  system: SystemInfoSchema,
  enrolment: t.UnionEnum(ENROLMENT_STATES, {
    description: 'confirmed: it logs in with its own secret; unconfirmed: it was handed a secret and has not logged in with it yet (an agent from before enrolment, or one just enrolled); revoked: its secret opens nothing; none: not enrolled',
  }),
  enrolledAt: t.Union([t.String(), t.Null()], { description: 'ISO-8601' }),
  lastSeen: t.Union([t.String(), t.Null()], { description: 'ISO-8601: its last login or disconnect' }),
  revokedAt: t.Union([t.String(), t.Null()], { description: 'ISO-8601' }),
});

const NodeParams = t.Object({ nodeId: t.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: 'a node id as agent.toml names it (node_name)' }) });
const Done = t.Object({ success: t.Literal(true), message: t.String(), nodeId: t.String() });
const errors = { 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema };

const NO_SYSTEM: NodeSystem = {
  hostname: '',
  osName: '',
  osVersion: '',
  osArch: '',
  cpuModel: '',
  availableProcessors: 0,
  systemCpuLoad: 0,
  systemMemoryUsedMb: 0,
  systemMemoryTotalMb: 0,
  runtimeVersion: '',
  runtimeVendor: '',
};

function requireCluster(kernel: Kernel): ClusterRuntime {
  if (!kernel.cluster) throw new ApiError('CLUSTER_NOT_ENABLED', 'the cluster is not enabled: set [cluster] enabled = true and restart');
  return kernel.cluster;
}

function enrolmentState(entry: NodeOverview): (typeof ENROLMENT_STATES)[number] {
  if (!entry.enrolment) return 'none';
  if (entry.enrolment.revokedAt) return 'revoked';
  return entry.enrolment.confirmed ? 'confirmed' : 'unconfirmed';
}

function nodeView(entry: NodeOverview, services: string[]) {
  const { node, enrolment } = entry;
  const maxMemoryMb = node?.maxMemoryMb ?? 0;
  return {
    nodeId: entry.nodeId,
    host: node?.host ?? enrolment?.host ?? '',
    maxMemory: formatMemory(maxMemoryMb),
    maxMemoryMb,
    maxServices: node?.maxServices ?? 0,
    currentServices: services.length,
    cpuUsage: node?.cpuUsage ?? 0,
    memoryUsedMb: node?.memoryUsedMb ?? 0,
    memoryTotalMb: node?.memoryTotalMb ?? 0,
    isConnected: node?.connected ?? false,
    agentVersion: node?.agentVersion ?? '',
    lastHeartbeat: node ? new Date(node.lastHeartbeat).toISOString() : '',
    services,
    system: withRuntimeAliases({ ...(node?.system ?? NO_SYSTEM), processCpuLoad: -1 }),
    enrolment: enrolmentState(entry),
    enrolledAt: enrolment?.enrolledAt ?? null,
    lastSeen: enrolment?.lastSeenAt ?? null,
    revokedAt: enrolment?.revokedAt ?? null,
  };
}

/** The nodes: listed with their enrolment, revoked, forgotten, and where players reach them. */
export function nodeRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/nodes',
      auth: 'admin',
      permission: 'svc.dashboard.nodes.view',
      tag: 'cluster',
      summary: 'Every agent node (connected, away, or known from its enrolment) with its system facts, its services and its enrolment',
      response: { 200: t.Object({ nodes: t.Array(NodeSchema), total: t.Integer() }), 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema },
      handler: () => {
        const runtime = requireCluster(kernel);
        const all = kernel.services.all();
        const nodes = runtime.cluster.overview().map((entry) => nodeView(entry, all.filter((s) => s.nodeId === entry.nodeId).map((s) => s.name)));
        return { nodes, total: nodes.length };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/nodes/:nodeId/revoke',
      auth: 'admin',
      permission: 'svc.dashboard.nodes.manage',
      scopes: ['cluster:write'],
      tag: 'cluster',
      summary: "Revoke a node: its secret stops working at once, its session is closed, its services count as failed (restart-on-crash ones are placed again); the id cannot enrol again until it is forgotten",
      params: NodeParams,
      response: { 200: Done, ...errors },
      handler: ({ params, actor }) => {
        const { services, already } = requireCluster(kernel).cluster.revoke(params.nodeId, actor);
        const message = already ? `node ${params.nodeId} was revoked already` : `node ${params.nodeId} revoked; ${services} service(s) on it are treated as failed`;
        return { success: true as const, message, nodeId: params.nodeId };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/nodes/:nodeId',
      auth: 'admin',
      permission: 'svc.dashboard.nodes.manage',
      scopes: ['cluster:write'],
      tag: 'cluster',
      summary: 'Forget a revoked or offline node: its enrolment goes, and the id may enrol again with the cluster token (409 NODE_ONLINE while it is connected)',
      params: NodeParams,
      response: { 200: Done, ...errors, 409: ErrorBodySchema },
      handler: ({ params, actor }) => {
        requireCluster(kernel).cluster.forget(params.nodeId, actor);
        return { success: true as const, message: `node ${params.nodeId} forgotten: it may enrol again with the cluster token (its agent deletes data/node.json first)`, nodeId: params.nodeId };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/nodes/:nodeId/host',
      auth: 'admin',
      permission: 'svc.dashboard.nodes.manage',
      scopes: ['cluster:write'],
      tag: 'cluster',
      summary: 'Where players and proxies reach an enrolled node (its publicHost at enrolment until set here); services started on it afterwards carry it',
      params: NodeParams,
      body: Type.Object({ host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9._:-]+$', description: 'a host name or an IP address' }) }),
      response: { 200: Done, ...errors },
      handler: ({ params, body, actor }) => {
        requireCluster(kernel).cluster.setHost(params.nodeId, body.host, actor);
        return { success: true as const, message: `node ${params.nodeId}: players are routed to ${body.host}`, nodeId: params.nodeId };
      },
    }),
  ];
}
