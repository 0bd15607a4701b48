import { t } from '../t';
import type { Kernel } from '../../kernel';
import { ManifestSchema } from '../../cluster/state-sync/manifest';
import { MAX_REL_PATH } from '../../core/files/rel-path';
import { ApiError } from '../../errors';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';
import { SERVER_BODY_CEILING } from '../api-handler';
import type { Principal } from '../../core/auth';
import { MAX_PUSHES_PER_NODE, type SyncCaller } from '../../cluster/state-sync/store';

/** `<Group>-<N>`: a group name (GROUP_NAME) and an instance number from 1. */
const SERVICE_NAME = '^[a-zA-Z0-9_-]{1,64}-[1-9][0-9]{0,8}$';
const Name = t.Object({ name: t.String({ pattern: SERVICE_NAME, description: 'an instance of a STATIC group with sync.enabled' }) });
/**
 * The rest of the path arrives as the route table's `*` parameter, percent-encoded. It is not
 * declared here: the object stays open (so validation keeps it) and the handler reads `*`
 * itself (checked by confinedFile). The OpenAPI
 * document declares it as `{path}`.
 */
const FileParams = t.Object({ name: Name.properties.name }, { additionalProperties: true });
const PushResponse = t.Object({
  success: t.Literal(true),
  filesReceived: t.Integer({ description: 'files uploaded in this push' }),
  bytesReceived: t.Integer({ description: 'bytes of the uploaded files' }),
  filesInManifest: t.Integer({ description: 'files of the committed canonical copy' }),
});
const Err = ErrorBodySchema;

/** Who calls: a node (its own secret) reaches its own instances only; operators every one. */
const callerOf = (principal: Principal | null, actor: SyncCaller['actor']): SyncCaller => (principal?.kind === 'node' && principal.node ? { actor, node: principal.node } : { actor });

/**
 * State sync: the canonical copy of a STATIC service's work dir on the controller, so the
 * service can move between nodes. Agents read the manifest, download files, and push their dir
 * (see src/cluster/state-sync/client.ts) with their own node secret (bearer, or `?token=`),
 * on the cluster's TLS port (cluster/data-path.ts) as on the API port; a node reaches the
 * instances the registry says it runs or last ran. The cluster token does not open these
 * routes (it only enrols a node); the master token and admins reach every instance.
 */
export function stateSyncRoutes(kernel: Kernel): AnyRoute[] {
  const { stateSync } = kernel;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/services/:name/state/manifest',
      auth: 'cluster',
      machineOnly: true,
      queryToken: true,
      tag: 'cluster',
      summary: "Manifest of the service's canonical state copy: {files: {path: {sha256, size}}}, empty before the first push; sync.excludes never listed",
      params: Name,
      response: { 200: ManifestSchema, 400: Err, 403: Err, 404: Err },
      handler: ({ params, principal, actor }) => stateSync.manifest(params.name, callerOf(principal, actor)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/services/:name/state/file/*',
      auth: 'cluster',
      machineOnly: true,
      queryToken: true,
      tag: 'cluster',
      summary: 'Raw bytes of one file of the canonical state copy; PATH_TRAVERSAL for paths leaving it, PATH_NOT_FOUND when missing',
      params: FileParams,
      response: { 200: t.String({ contentMediaType: 'application/octet-stream', description: 'the file' }), 400: Err, 403: Err, 404: Err },
      handler: async ({ params, principal, actor }) => {
        const { stream, size } = await stateSync.openFile(params.name, decodePath((params as { '*'?: unknown })['*']), callerOf(principal, actor));
        return new Response(stream, { headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) } });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/services/:name/state/sync',
      auth: 'cluster',
      machineOnly: true,
      queryToken: true,
      tag: 'cluster',
      summary:
        `Push the state: multipart/form-data with a "manifest" part (the full desired manifest, at most 32 MiB) first, then a "file:<path>" part per file the controller lacks; committed atomically and audited with the caller. 403/404 for an instance the calling node does not run, 409 while another push for the service is in flight, 429 past ${MAX_PUSHES_PER_NODE} pushes in flight from one node, 507 over [cluster] sync_disk_quota_bytes`,
      params: Name,
      bodyLimit: SERVER_BODY_CEILING,
      rawBody: { contentType: 'multipart/form-data' },
      response: { 200: PushResponse, 400: Err, 403: Err, 404: Err, 409: Err, 413: Err, 429: Err, 507: Err },
      handler: ({ params, request, principal, actor }) => stateSync.push(params.name, request.body, request.headers.get('content-type'), callerOf(principal, actor)),
    }),
  ];
}

/** The wildcard's raw text, percent-decoded; a malformed escape is a VALIDATION_FAILED. */
function decodePath(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length > MAX_REL_PATH * 3) throw new ApiError('VALIDATION_FAILED', `the file path must be 1 to ${MAX_REL_PATH} bytes`);
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError('VALIDATION_FAILED', 'the file path has a malformed percent-escape');
  }
}
