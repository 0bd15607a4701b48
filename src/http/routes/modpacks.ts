import { t } from 'elysia';
import type { Kernel } from '../../kernel';
import { DedicatedSchema } from '../../core/dedicated/model';
import { GROUP_FIELDS } from '../../core/groups/model';
import { UPLOAD_ID_PATTERN } from '../../core/modpacks/chunked-uploads';
import { MAX_CHUNK_BYTES, MAX_PACK_BYTES, RECOMMENDED_CHUNK_BYTES } from '../../core/modpacks/limits';
import {
  AcceptedSchema,
  ChunkAcceptedSchema,
  DedicatedFinalizeBodySchema,
  DedicatedImportBodySchema,
  FinalizeBodySchema,
  ImportBodySchema,
  ImportResultSchema,
  JobViewSchema,
  ResolveAnswerSchema,
  ResolveBodySchema,
  UploadStartedSchema,
} from '../../core/modpacks/model';
import type { ImportAnswer } from '../../core/modpacks/modpacks';
import { defineRoute, type AnyRoute, type RouteContext } from '../route';
import { ErrorBodySchema } from '../schemas';
import { SERVER_BODY_CEILING } from '../server';

const Err = ErrorBodySchema;
/** What an import can answer besides its outcome: refusals, the hosts' trouble (502), a full disk (507), a stop (503). */
const IMPORT_ERRORS = { 400: Err, 404: Err, 409: Err, 422: Err, 502: Err, 503: Err, 507: Err };
const UPLOAD_ERRORS = { ...IMPORT_ERRORS, 413: Err };
const Created = { 201: ImportResultSchema, 202: AcceptedSchema };
const Updated = { 200: ImportResultSchema, 202: AcceptedSchema };
const RAW = { contentType: 'application/octet-stream' };
const G = GROUP_FIELDS;

// Query parameters of the raw-body routes (the body is the pack itself, so parameters ride in the URL).
const Filename = t.String({ minLength: 1, maxLength: 255, description: 'the uploaded file name (.mrpack or .zip), for messages; the content decides what it is' });
const Modded = t.Union([t.Literal('FABRIC'), t.Literal('FORGE'), t.Literal('NEOFORGE')], { description: 'overrides the loader the pack names; required for a server pack that shows none' });
const Version = t.String({ pattern: G.version.schema.pattern, maxLength: 32, description: 'Minecraft version; overrides the pack' });
const Flag = (description: string) => t.Union([t.Literal('true'), t.Literal('false')], { description });
const groupQuery = {
  groupName: t.String({ pattern: G.name.schema.pattern, description: 'the new group; its template is templates/<groupName>' }),
  type: t.Optional(t.Union([t.Literal('DYNAMIC'), t.Literal('STATIC'), t.Literal('LOBBY')])),
  memory: t.Optional(t.String({ pattern: G.memory.schema.pattern, description: 'heap per instance; default 4G' })),
  minInstances: t.Optional(t.Integer({ minimum: 0, maximum: 1000 })),
  maxInstances: t.Optional(t.Integer({ minimum: 0, maximum: 1000 })),
  software: t.Optional(Modded),
  version: t.Optional(Version),
  modloaderVersion: t.Optional(t.String({ maxLength: 64 })),
};
const GroupUploadQuery = t.Object({ filename: Filename, ...groupQuery });
const DedicatedUploadQuery = t.Object({
  filename: Filename,
  name: t.String({ pattern: DedicatedSchema.properties.name.pattern, description: 'the new dedicated service' }),
  port: t.Integer({ minimum: 1, maximum: 65_535 }),
  memory: t.Optional(t.String({ pattern: G.memory.schema.pattern, description: 'heap; default 4G' })),
  proxyEnabled: t.Optional(Flag('listed in the proxies (default true)')),
  software: t.Optional(Modded),
  version: t.Optional(Version),
});
const IntoQuery = t.Object({
  filename: t.Optional(Filename),
  replaceMods: t.Optional(Flag('empty mods/ before the pack is laid in (default true)')),
});
const InitQuery = t.Object({
  target: t.Optional(t.Union([t.Literal('group'), t.Literal('dedicated')], { description: 'what finalize makes: a group (default) or a dedicated service' })),
  filename: t.Optional(Filename),
  size: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PACK_BYTES, description: 'total bytes, when known: finalize then insists on exactly this many' })),
});
const ChunkQuery = t.Object({
  uploadId: t.String({ pattern: UPLOAD_ID_PATTERN }),
  index: t.Integer({ minimum: 0, maximum: 1_000_000, description: 'from 0, one after another; a repeated or skipped index is CHUNKED_UPLOAD_INVALID' }),
});
const NameParams = t.Object({ name: t.String({ pattern: DedicatedSchema.properties.name.pattern }) });
const JobParams = t.Object({ id: t.String({ pattern: '^[a-f0-9]{24}$' }) });

type Ctx = Pick<RouteContext<unknown, unknown, unknown>, 'set'>;
function send({ set }: Ctx, answer: ImportAnswer): ImportAnswer['body'] {
  set.status = answer.status;
  return answer.body;
}

/**
 * Modpacks (admin): look packs up on Modrinth and CurseForge, import them into a new group
 * (templates/<group> + the group), a new dedicated service, or an existing dedicated
 * directory, from a host by id or from an upload (one-shot raw body, or chunked: init, chunk
 * by chunk, finalize). Imports run as jobs: answered with the outcome when done within a few
 * seconds, else 202 with a job to poll; the group or service appears only once complete.
 */
export function modpackRoutes(kernel: Kernel): AnyRoute[] {
  const { modpacks } = kernel;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/resolve',
      auth: 'admin',
      tag: 'modpacks',
      summary: 'Look a pack up by page URL or id (JSON body {url} or {id, source?}): name, versions (newest first), game version and loader; MODPACK_NOT_FOUND when the host does not know it',
      body: ResolveBodySchema,
      response: { 200: ResolveAnswerSchema, 400: Err, 404: Err, 409: Err, 502: Err },
      handler: ({ body }) => modpacks.resolve(body),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/import',
      auth: 'admin',
      tag: 'modpacks',
      summary:
        'Import a pack from Modrinth or CurseForge into a new group (JSON body): mods (server-side only) and overrides in templates/<groupName>, every download hash-checked, software and version from the pack. 201 when done, 202 with a job while it runs',
      body: ImportBodySchema,
      response: { ...Created, ...IMPORT_ERRORS },
      handler: async (ctx) => send(ctx, await modpacks.importToGroup(ctx.body, ctx.actor)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/upload',
      auth: 'admin',
      tag: 'modpacks',
      summary:
        'One-shot upload into a new group: the raw body is the pack (.mrpack, CurseForge zip or server-pack zip), parameters in the query (filename, groupName, type, memory, minInstances, maxInstances; software/version/modloaderVersion override the pack)',
      query: GroupUploadQuery,
      bodyLimit: SERVER_BODY_CEILING,
      rawBody: RAW,
      response: { ...Created, ...UPLOAD_ERRORS },
      handler: async (ctx) => {
        const { query } = ctx;
        const target = { kind: 'group' as const, group: query };
        return send(ctx, await modpacks.upload(ctx.request, target, { software: query.software, version: query.version, modloaderVersion: query.modloaderVersion }, ctx.actor));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/upload/init',
      auth: 'admin',
      tag: 'modpacks',
      summary: `Start a chunked upload (query target=group|dedicated, default group; filename, size optional): returns uploadId. Send ${RECOMMENDED_CHUNK_BYTES / 1024 / 1024} MiB chunks; an upload idle for an hour is removed`,
      query: InitQuery,
      response: { 201: UploadStartedSchema, 400: Err, 413: Err, 507: Err },
      handler: async ({ query, set }) => {
        const view = await modpacks.startUpload(query.target ?? 'group', query.filename ?? 'modpack.zip', query.size ?? null);
        set.status = 201;
        return { success: true as const, uploadId: view.uploadId, target: view.target, chunkBytes: RECOMMENDED_CHUNK_BYTES, maxChunkBytes: MAX_CHUNK_BYTES, maxBytes: MAX_PACK_BYTES, expiresAt: view.expiresAt };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/upload/chunk',
      auth: 'admin',
      budget: 'bulk',
      tag: 'modpacks',
      summary:
        'Append one chunk (raw body) to a chunked upload: query uploadId and index (0, 1, 2... in order). A repeated, skipped or concurrent index is CHUNKED_UPLOAD_INVALID; a chunk that breaks off is dropped whole (send it again)',
      query: ChunkQuery,
      bodyLimit: MAX_CHUNK_BYTES,
      rawBody: RAW,
      response: { 200: ChunkAcceptedSchema, 400: Err, 404: Err, 413: Err, 422: Err, 507: Err },
      handler: async ({ query, request }) => {
        const view = await modpacks.uploads.append(query.uploadId, query.index, request);
        return { success: true as const, uploadId: view.uploadId, chunks: view.chunks, bytes: view.bytes, expiresAt: view.expiresAt };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/upload/finalize',
      auth: 'admin',
      tag: 'modpacks',
      summary:
        'Commit a chunked "group" upload into a new group (JSON body: uploadId, groupName, type, memory, minInstances, maxInstances; software/version/modloaderVersion override the pack). A "dedicated" upload is refused with 400 CHUNKED_UPLOAD_INVALID; a refused finalize keeps the upload',
      body: FinalizeBodySchema,
      response: { ...Created, ...IMPORT_ERRORS },
      handler: async (ctx) => send(ctx, await modpacks.finalize(ctx.body, { kind: 'group', group: ctx.body }, ctx.actor)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/modpack/upload/finalize',
      auth: 'admin',
      tag: 'modpacks',
      summary:
        'Commit a chunked "dedicated" upload into a new dedicated service (JSON body: uploadId, name, port, memory, proxyEnabled; software/version override the pack). A "group" upload is refused with 400 CHUNKED_UPLOAD_INVALID',
      body: DedicatedFinalizeBodySchema,
      response: { ...Created, ...IMPORT_ERRORS },
      handler: async (ctx) => send(ctx, await modpacks.finalize(ctx.body, { kind: 'dedicated', dedicated: ctx.body }, ctx.actor)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/modpack/upload',
      auth: 'admin',
      tag: 'modpacks',
      summary: 'One-shot upload into a new dedicated service: the raw body is the pack, parameters in the query (filename, name, port, memory, proxyEnabled; software/version override the pack)',
      query: DedicatedUploadQuery,
      bodyLimit: SERVER_BODY_CEILING,
      rawBody: RAW,
      response: { ...Created, ...UPLOAD_ERRORS },
      handler: async (ctx) => {
        const { query } = ctx;
        const dedicated = { name: query.name, port: query.port, memory: query.memory, proxyEnabled: query.proxyEnabled === undefined ? undefined : query.proxyEnabled === 'true' };
        return send(ctx, await modpacks.upload(ctx.request, { kind: 'dedicated', dedicated }, { software: query.software, version: query.version }, ctx.actor));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/:name/modpack/import',
      auth: 'admin',
      tag: 'modpacks',
      summary:
        'Import a pack from Modrinth or CurseForge into an existing, stopped dedicated service (JSON body: source, projectId or slug, versionId, replaceMods): files replaced, worlds kept, software and version taken from the pack',
      params: NameParams,
      body: DedicatedImportBodySchema,
      response: { ...Updated, ...IMPORT_ERRORS },
      handler: async (ctx) => send(ctx, await modpacks.importToDedicated(ctx.params.name, ctx.body, ctx.actor)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/:name/modpack/upload',
      auth: 'admin',
      tag: 'modpacks',
      summary: 'Upload a pack (raw body; usually a server-pack zip) into an existing, stopped dedicated service; query filename, replaceMods',
      params: NameParams,
      query: IntoQuery,
      bodyLimit: SERVER_BODY_CEILING,
      rawBody: RAW,
      response: { ...Updated, ...UPLOAD_ERRORS },
      handler: async (ctx) => {
        const target = { kind: 'dedicated-update' as const, name: ctx.params.name, replaceMods: ctx.query.replaceMods !== 'false' };
        return send(ctx, await modpacks.upload(ctx.request, target, {}, ctx.actor));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/modpacks/jobs/:id',
      auth: 'admin',
      tag: 'modpacks',
      summary: 'An import job: running, succeeded (with the outcome) or failed (with the error); kept an hour after it ends',
      params: JobParams,
      response: { 200: JobViewSchema, 400: Err, 404: Err },
      handler: ({ params }) => modpacks.job(params.id),
    }),
  ];
}
