import type { Static } from '@sinclair/typebox';
import { t } from '../t';
import type { Kernel } from '../../kernel';
import { DedicatedSchema } from '../../core/dedicated/model';
import { GROUP_FIELDS } from '../../core/groups/model';
import { UPLOAD_ID_PATTERN } from '../../core/modpacks/chunked-uploads';
import { finalizeChoiceOf } from '../../core/modpacks/finalize-params';
import { MAX_CHUNK_BYTES, MAX_PACK_BYTES, RECOMMENDED_CHUNK_BYTES } from '../../core/modpacks/limits';
import {
  AcceptedSchema,
  AnyFinalizeBodySchema,
  ChunkAcceptedSchema,
  DedicatedFinalizeBodySchema,
  DedicatedImportBodySchema,
  ImportBodySchema,
  ImportResultSchema,
  JobViewSchema,
  NewDedicatedImportBodySchema,
  ResolveAnswerSchema,
  ResolveBodySchema,
  UploadStartedSchema,
  type AnyFinalizeBody,
} from '../../core/modpacks/model';
import type { ImportAnswer } from '../../core/modpacks/modpacks';
import { ApiError } from '../../errors';
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
/** The dashboard spells the file name `fileName`; either is taken. */
const fileNames = { filename: t.Optional(Filename), fileName: t.Optional(t.String({ minLength: 1, maxLength: 255, description: 'the same as filename (the dashboard spells it so)' })) };
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
const GroupUploadQuery = t.Object({ ...fileNames, ...groupQuery });
const dedicatedQuery = {
  name: t.String({ pattern: DedicatedSchema.properties.name.pattern, description: 'the new dedicated service' }),
  port: t.Integer({ minimum: 1, maximum: 65_535 }),
  memory: t.Optional(t.String({ pattern: G.memory.schema.pattern, description: 'heap; default 4G' })),
  proxyEnabled: t.Optional(Flag('listed in the proxies (default true)')),
  software: t.Optional(Modded),
  version: t.Optional(Version),
};
const DedicatedUploadQuery = t.Object({ ...fileNames, ...dedicatedQuery });
const IntoQuery = t.Object({
  ...fileNames,
  replaceMods: t.Optional(Flag('empty mods/ before the pack is laid in (default true)')),
});
const InitQuery = t.Object({
  target: t.Optional(
    t.Union([t.Literal('group'), t.Literal('dedicated')], {
      description: 'what finalize makes: a group or a dedicated service. Left out: the upload shows "group" and either finalize may take it (the dashboard names no target)',
    }),
  ),
  ...fileNames,
  size: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PACK_BYTES, description: 'total bytes, when known: finalize then insists on exactly this many' })),
  totalChunks: t.Optional(t.Integer({ minimum: 1, maximum: 1_000_000, description: 'chunks to come, when known: no chunk past it is taken, and finalize insists on all of them' })),
});
/** Finalize's parameters in the query, with no body (the dashboard's HTTPS path): both kinds, told apart by finalizeChoiceOf. */
const FinalizeQuery = t.Object({
  ...fileNames,
  ...groupQuery,
  ...dedicatedQuery,
  uploadId: t.Optional(t.String({ pattern: UPLOAD_ID_PATTERN, description: 'from init; required' })),
  groupName: t.Optional(groupQuery.groupName),
  name: t.Optional(dedicatedQuery.name),
  port: t.Optional(dedicatedQuery.port),
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
      permission: 'svc.dashboard.groups.view',
      tag: 'modpacks',
      summary:
        'Look a pack up (JSON body {url} or {id, source?: "modrinth" | "curseforge"}, or the dashboard\'s {source: slug | page URL | curseforge:slug | CurseForge id}): ' +
        'name, versions (newest first), and the dashboard\'s fields version, mcVersion, modloader, modloaderVersion, totalFiles, serverFiles and source (MODRINTH | CURSEFORGE_API | SERVER_PACK), ' +
        'read from the pack file itself (downloaded and hash-checked) when it can be within a few seconds, else from the host listing (inspected false, counts null, note says why). ' +
        'MODPACK_NOT_FOUND when the host does not know it; MODPACK_INVALID when the pack cannot be imported',
      body: ResolveBodySchema,
      response: { 200: ResolveAnswerSchema, 400: Err, 404: Err, 409: Err, 502: Err },
      handler: ({ body }) => modpacks.resolve(body),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/import',
      auth: 'admin',
      permission: 'svc.dashboard.groups.edit',
      tag: 'modpacks',
      summary:
        'Import a pack from Modrinth or CurseForge into a new group (JSON body: source "modrinth" | "curseforge" with projectId or slug, or source the pack itself as the dashboard sends it; versionId, groupName, type, memory, minInstances, maxInstances): ' +
        'mods (server-side only) and overrides in templates/<groupName>, every download hash-checked, software and version from the pack. 201 when done (with groupName, filesDownloaded, filesFailed), 202 with a job while it runs',
      body: ImportBodySchema,
      response: { ...Created, ...IMPORT_ERRORS },
      handler: async (ctx) => send(ctx, await modpacks.importToGroup(ctx.body, ctx.actor)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/upload',
      auth: 'admin',
      permission: 'svc.dashboard.groups.edit',
      tag: 'modpacks',
      summary:
        'One-shot upload into a new group: the raw body is the pack (.mrpack, CurseForge zip or server-pack zip), parameters in the query (filename or fileName, groupName, type, memory, minInstances, maxInstances; software/version/modloaderVersion override the pack)',
      query: GroupUploadQuery,
      bodyLimit: SERVER_BODY_CEILING,
      rawBody: RAW,
      response: { ...Created, ...UPLOAD_ERRORS },
      handler: async (ctx) => {
        const { query } = ctx;
        requireFilename(query);
        const target = { kind: 'group' as const, group: query };
        return send(ctx, await modpacks.upload(ctx.request, target, { software: query.software, version: query.version, modloaderVersion: query.modloaderVersion }, ctx.actor));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/upload/init',
      auth: 'admin',
      permission: 'svc.dashboard.groups.edit',
      tag: 'modpacks',
      summary:
        `Start a chunked upload (query target=group|dedicated; filename or fileName, size and totalChunks optional): returns uploadId. Without target either finalize may take it. ` +
        `Send ${RECOMMENDED_CHUNK_BYTES / 1024 / 1024} MiB chunks; an upload idle for an hour is removed`,
      query: InitQuery,
      response: { 201: UploadStartedSchema, 400: Err, 413: Err, 507: Err },
      handler: async ({ query, set }) => {
        const view = await modpacks.startUpload(query.target ?? null, query.filename ?? query.fileName ?? 'modpack.zip', query.size ?? null, query.totalChunks ?? null);
        set.status = 201;
        return { success: true as const, uploadId: view.uploadId, target: view.target, chunkBytes: RECOMMENDED_CHUNK_BYTES, maxChunkBytes: MAX_CHUNK_BYTES, maxBytes: MAX_PACK_BYTES, expiresAt: view.expiresAt };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/upload/chunk',
      auth: 'admin',
      permission: 'svc.dashboard.groups.edit',
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
      permission: 'svc.dashboard.groups.edit',
      tag: 'modpacks',
      summary:
        'Commit a chunked upload. Parameters in a JSON body, or with no body in the query (the dashboard\'s form). With groupName: into a new group (uploadId, groupName, type, memory, minInstances, maxInstances; ' +
        'software/version/modloaderVersion override the pack). With name instead: into a new dedicated service, as POST /api/dedicated/modpack/upload/finalize (uploadId, name, port, memory, proxyEnabled; software/version), ' +
        'which the dashboard\'s dedicated page sends here. An upload started for the other target is refused with 400 CHUNKED_UPLOAD_INVALID; a refused finalize keeps the upload',
      query: FinalizeQuery,
      body: t.Optional(AnyFinalizeBodySchema),
      response: { ...Created, ...IMPORT_ERRORS },
      handler: async (ctx) => {
        const { query, body } = ctx;
        const choice = body === undefined ? finalizeChoiceOf(fromQuery(query), 'query parameter') : finalizeChoiceOf(body, 'body field');
        const target = choice.kind === 'group' ? { kind: 'group' as const, group: choice.params } : { kind: 'dedicated' as const, dedicated: choice.params };
        return send(ctx, await modpacks.finalize(choice.params, target, ctx.actor));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/modpack/upload/finalize',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.manage',
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
      permission: 'svc.dashboard.dedicated.manage',
      tag: 'modpacks',
      summary: 'One-shot upload into a new dedicated service: the raw body is the pack, parameters in the query (filename or fileName, name, port, memory, proxyEnabled; software/version override the pack)',
      query: DedicatedUploadQuery,
      bodyLimit: SERVER_BODY_CEILING,
      rawBody: RAW,
      response: { ...Created, ...UPLOAD_ERRORS },
      handler: async (ctx) => {
        const { query } = ctx;
        requireFilename(query);
        const dedicated = { name: query.name, port: query.port, memory: query.memory, proxyEnabled: query.proxyEnabled === undefined ? undefined : query.proxyEnabled === 'true' };
        return send(ctx, await modpacks.upload(ctx.request, { kind: 'dedicated', dedicated }, { software: query.software, version: query.version }, ctx.actor));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/modpack/import',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.manage',
      tag: 'modpacks',
      summary:
        'Import a pack from Modrinth or CurseForge into a new dedicated service (JSON body: source, as for POST /api/modpacks/import; versionId; name, port, memory, proxyEnabled): ' +
        'its own directory, every download hash-checked, software and version from the pack. 201 when done (with groupName = the service, filesDownloaded, filesFailed), 202 with a job while it runs',
      body: NewDedicatedImportBodySchema,
      response: { ...Created, ...IMPORT_ERRORS },
      handler: async (ctx) => send(ctx, await modpacks.importToNewDedicated(ctx.body, ctx.actor)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/:name/modpack/import',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.manage',
      tag: 'modpacks',
      summary:
        'Import a pack from Modrinth or CurseForge into an existing, stopped dedicated service (JSON body: source with projectId or slug, or source the pack itself; versionId, replaceMods): files replaced, worlds kept, software and version taken from the pack',
      params: NameParams,
      body: DedicatedImportBodySchema,
      response: { ...Updated, ...IMPORT_ERRORS },
      handler: async (ctx) => send(ctx, await modpacks.importToDedicated(ctx.params.name, ctx.body, ctx.actor)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/:name/modpack/upload',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.manage',
      tag: 'modpacks',
      summary: 'Upload a pack (raw body; usually a server-pack zip) into an existing, stopped dedicated service; query filename (or fileName), replaceMods',
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
      permission: 'svc.dashboard.groups.view',
      tag: 'modpacks',
      summary: 'An import job: running, succeeded (with the outcome) or failed (with the error); kept an hour after it ends',
      params: JobParams,
      response: { 200: JobViewSchema, 400: Err, 404: Err },
      handler: ({ params }) => modpacks.job(params.id),
    }),
  ];
}

/** The one-shot uploads name the file `filename` (ours) or `fileName` (the dashboard's); one is required, checked before the body is read. */
function requireFilename(query: { filename?: string; fileName?: string }): void {
  if (query.filename === undefined && query.fileName === undefined) throw new ApiError('VALIDATION_FAILED', 'query parameter "filename" (or "fileName") is required');
}

/** Finalize's query as its body would be: the flag as a boolean, the file name dropped (it is for messages). */
function fromQuery(query: Static<typeof FinalizeQuery>): AnyFinalizeBody {
  const { filename: _f, fileName: _n, uploadId, proxyEnabled, ...rest } = query;
  if (uploadId === undefined) throw new ApiError('VALIDATION_FAILED', 'query parameter "uploadId" is required (or send the parameters as a JSON body)');
  return { ...rest, uploadId, proxyEnabled: proxyEnabled === undefined ? undefined : proxyEnabled === 'true' };
}
