import { t } from '../t';
import { Type } from '@sinclair/typebox';
import type { Kernel } from '../../kernel';
import { ApiError } from '../../errors';
import { SOFTWARE_NAMES } from '../../core/software/kinds';
import { ServiceViewSchema, serviceView } from '../../core/services/view';
import { LOCAL_NODE } from '../../core/services/registry';
import type { ClusterRuntime } from '../../cluster/runtime';
import { templateArchiveHash, templateFiles } from '../../cluster/template-archive';
import { digestFiles } from '../../cluster/template-digest';
import { defineRoute, type AnyRoute } from '../route';
import { nodeRoutes } from './nodes';
import { ErrorBodySchema } from '../schemas';

const BootstrapSchema = t.Object({
  fingerprint: t.String({ description: 'SHA-256 of the certificate, colon-separated hex pairs' }),
  certPem: t.String(),
  wsUrl: t.String(),
  validUntil: t.String({ description: 'ISO-8601' }),
  sans: t.Array(t.String()),
});

const TemplateQuery = t.Object({
  token: t.Optional(t.String({ description: "the node's own secret (legacy; the bearer header works too); the cluster token only enrols a node and opens no template route" })),
  software: t.Optional(t.Union(SOFTWARE_NAMES.map((kind) => t.Literal(kind)), { description: 'decides the global overlay laid over the template; default PAPER' })),
});
const TemplateParams = t.Object({ name: t.String({ minLength: 1, maxLength: 255 }) });

function requireCluster(kernel: Kernel): ClusterRuntime {
  if (!kernel.cluster) throw new ApiError('CLUSTER_NOT_ENABLED', 'the cluster is not enabled: set [cluster] enabled = true and restart');
  return kernel.cluster;
}

export function clusterRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/cluster/bootstrap',
      auth: 'cluster',
      enrolment: true,
      machineOnly: true,
      tag: 'cluster',
      summary: 'The cluster certificate and channel address agents pin before their first secure handshake',
      response: { 200: BootstrapSchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema },
      handler: () => {
        const runtime = requireCluster(kernel);
        if (kernel.config.cluster.token === '') throw new ApiError('CLUSTER_TOKEN_MISSING', 'no cluster token is configured: set [cluster] token (or SVC_CLUSTER_TOKEN) so agents can authenticate');
        return runtime.bootstrap();
      },
    }),
    // The nodes: listing, revocation, forgetting, hosts (nodes.ts).
    ...nodeRoutes(kernel),
    defineRoute({
      method: 'POST',
      path: '/api/services/:name/migrate',
      auth: 'service',
      permission: 'svc.dashboard.nodes.manage',
      tag: 'services',
      summary: 'Move a running instance to another node (the target, or the placement strategy\'s choice)',
      params: t.Object({ name: t.String() }),
      body: t.Optional(Type.Object({ target: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { description: `a node id, "${LOCAL_NODE}" for this machine; omitted or null lets the strategy choose` })) })),
      response: { 200: t.Object({ success: t.Literal(true), message: t.String(), service: ServiceViewSchema }), 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema },
      handler: async ({ params, body, actor }) => {
        requireCluster(kernel);
        const from = kernel.services.get(params.name)?.nodeId ?? LOCAL_NODE;
        const record = await kernel.manager.migrate(params.name, actor, body?.target ?? undefined);
        return { success: true as const, message: `${params.name} moved from node ${from} to node ${record.nodeId}`, service: serviceView(record) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/templates/:name/download',
      auth: 'cluster',
      machineOnly: true,
      queryToken: true,
      tag: 'cluster',
      summary: 'ZIP of one template with the global overlay for the software laid over it (agents)',
      params: TemplateParams,
      query: TemplateQuery,
      response: { 200: t.Unknown({ description: 'application/zip' }), 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema },
      handler: async ({ params, query }) => {
        const software = query.software ?? 'PAPER';
        const files = templateFiles(kernel.paths.templates, params.name, software);
        // The digest START_SERVICE names (template-digest.ts): an agent learns early that the template changed since.
        const hash = await digestFiles(files);
        // The zip writer loads on the first template served, not at start.
        const { zipStream } = await import('../../cluster/template-zip');
        return new Response(zipStream(files), {
          headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${params.name}.zip"`, 'x-template-hash': hash },
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/templates/:name/hash',
      auth: 'cluster',
      machineOnly: true,
      queryToken: true,
      tag: 'cluster',
      summary: 'SHA-256 over the same files as the download (agents compare it with their cache)',
      params: TemplateParams,
      query: TemplateQuery,
      response: { 200: t.Object({ name: t.String(), software: t.String(), hash: t.String() }), 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema },
      handler: async ({ params, query }) => {
        const software = query.software ?? 'PAPER';
        return { name: params.name, software, hash: await templateArchiveHash(kernel.paths.templates, params.name, software) };
      },
    }),
  ];
}
