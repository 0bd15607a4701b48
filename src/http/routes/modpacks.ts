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
import type { ImportAnswer, Modpacks, PackRequest } from '../../core/modpacks/modpacks';
import type { RuntimeOverrides } from '../../core/modpacks/runtime';
import { intoDedicated, intoNewDedicated, intoNewGroup, type ModpackTarget } from '../../core/modpacks/targets';
import { ApiError } from '../../errors';
import { defineRoute, type AnyRoute, type RouteContext } from '../route';
import { ErrorBodySchema } from '../schemas';
import { SERVER_BODY_CEILING } from '../api-handler';

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
type FileNames = { filename?: string; fileName?: string };
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

type Ctx = Pick<RouteContext<unknown, unknown, unknown>, 'set' | 'actor'>;
function send({ set }: Ctx, answer: ImportAnswer): ImportAnswer['body'] {
  set.status = answer.status;
  return answer.body;
}

/**
 * The handlers behind the import paths, one per way a pack arrives. The paths of a kind (into a
 * new group, a new dedicated service, an existing one) are one implementation in Modpacks; a
 * route only says where the pack goes (and, for an upload, what overrides the pack).
 */
function importHandlers(modpacks: Modpacks) {
  return {
    /** An import by id from a host (or by the pack's own text in `source`). */
    async fromHost(ctx: Ctx & { body: PackRequest }, target: ModpackTarget) {
      return send(ctx, await modpacks.importFromHost(ctx.body, target, ctx.actor));
    },
    /** A one-shot upload: the raw body is the pack, its parameters are in the query. */
    async upload(ctx: Ctx & { request: Request }, target: ModpackTarget, overrides: RuntimeOverrides) {
      return send(ctx, await modpacks.upload(ctx.request, target, overrides, ctx.actor));
    },
  };
}

/** Where an import's pack goes, as the route's declaration and summary say it. */
interface ImportPath {
  path: string;
  permission: string;
  /** What the pack goes into, for the summary. */
  into: string;
  /** The parameters that say so. */
  fields: string;
  /** What a finished import did, for the summary; by default its answers. */
  outcome?: string;
  /** Created (201) for a new group or service, the default; Updated (200) for an existing one. */
  answers?: typeof Created | typeof Updated;
}

const ANSWERS = '201 when done, 202 with a job while it runs';

/**
 * What an import route declares besides its input and handler: by id from a host (a JSON body),
 * or a one-shot upload (the raw body is the pack, parameters in the query).
 */
function importRoute(way: 'host' | 'upload', { path, permission, into, fields, outcome = ANSWERS, answers = Created }: ImportPath) {
  const declared = { method: 'POST' as const, path, auth: 'admin' as const, permission, tag: 'modpacks' };
  if (way === 'host') {
    const summary = `Import a pack from Modrinth or CurseForge into ${into} (JSON body: source "modrinth" | "curseforge" with projectId or slug, or source the pack itself as the dashboard sends it; versionId; ${fields}): ${outcome}`;
    return { ...declared, summary, response: { ...answers, ...IMPORT_ERRORS } };
  }
  const summary = `One-shot upload into ${into}: the raw body is the pack (.mrpack, CurseForge zip or server-pack zip), parameters in the query (${fields}): ${outcome}`;
  return { ...declared, summary, bodyLimit: SERVER_BODY_CEILING, rawBody: RAW, response: { ...answers, ...UPLOAD_ERRORS } };
}

const GROUPS_EDIT = 'svc.dashboard.groups.edit';
const DEDICATED_MANAGE = 'svc.dashboard.dedicated.manage';
const NEW_GROUP = 'a new group';
const NEW_DEDICATED = 'a new dedicated service';
const EXISTING_DEDICATED = 'an existing, stopped dedicated service';

/**
 * Modpacks (admin): look packs up on Modrinth and CurseForge, import them into a new group
 * (templates/<group> + the group), a new dedicated service, or an existing dedicated
 * directory, from a host by id or from an upload (one-shot raw body, or chunked: init, chunk
 * by chunk, finalize). Imports run as jobs: answered with the outcome when done within a few
 * seconds, else 202 with a job to poll; the group or service appears only once complete.
 */
export function modpackRoutes(kernel: Kernel): AnyRoute[] {
  const { modpacks } = kernel;
  const imports = importHandlers(modpacks);
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
      ...importRoute('host', {
        path: '/api/modpacks/import',
        permission: GROUPS_EDIT,
        into: NEW_GROUP,
        fields: 'groupName, type, memory, minInstances, maxInstances',
        outcome: 'mods (server-side only) and overrides in templates/<groupName>, every download hash-checked, software and version from the pack. 201 when done (with groupName, filesDownloaded, filesFailed), 202 with a job while it runs',
      }),
      body: ImportBodySchema,
      handler: (ctx) => imports.fromHost(ctx, intoNewGroup(ctx.body)),
    }),
    defineRoute({
      ...importRoute('upload', {
        path: '/api/modpacks/upload',
        permission: GROUPS_EDIT,
        into: NEW_GROUP,
        fields: 'filename or fileName, groupName, type, memory, minInstances, maxInstances; software/version/modloaderVersion override the pack',
      }),
      query: GroupUploadQuery,
      handler: (ctx) => imports.upload(named(ctx), intoNewGroup(ctx.query), overridesOf(ctx.query)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/modpacks/upload/init',
      auth: 'admin',
      permission: GROUPS_EDIT,
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
      permission: GROUPS_EDIT,
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
      permission: GROUPS_EDIT,
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
        const target = choice.kind === 'group' ? intoNewGroup(choice.params) : intoNewDedicated(choice.params);
        return send(ctx, await modpacks.finalize(choice.params, target, ctx.actor));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/dedicated/modpack/upload/finalize',
      auth: 'admin',
      permission: DEDICATED_MANAGE,
      tag: 'modpacks',
      summary:
        'Commit a chunked "dedicated" upload into a new dedicated service (JSON body: uploadId, name, port, memory, proxyEnabled; software/version override the pack). A "group" upload is refused with 400 CHUNKED_UPLOAD_INVALID',
      body: DedicatedFinalizeBodySchema,
      response: { ...Created, ...IMPORT_ERRORS },
      handler: async (ctx) => send(ctx, await modpacks.finalize(ctx.body, intoNewDedicated(ctx.body), ctx.actor)),
    }),
    defineRoute({
      ...importRoute('upload', {
        path: '/api/dedicated/modpack/upload',
        permission: DEDICATED_MANAGE,
        into: NEW_DEDICATED,
        fields: 'filename or fileName, name, port, memory, proxyEnabled; software/version override the pack',
      }),
      query: DedicatedUploadQuery,
      handler: (ctx) => imports.upload(named(ctx), intoNewDedicated({ ...ctx.query, proxyEnabled: flagOf(ctx.query.proxyEnabled) }), overridesOf(ctx.query)),
    }),
    defineRoute({
      ...importRoute('host', {
        path: '/api/dedicated/modpack/import',
        permission: DEDICATED_MANAGE,
        into: NEW_DEDICATED,
        fields: 'name, port, memory, proxyEnabled',
        outcome: 'its own directory, every download hash-checked, software and version from the pack. 201 when done (with groupName = the service, filesDownloaded, filesFailed), 202 with a job while it runs',
      }),
      body: NewDedicatedImportBodySchema,
      handler: (ctx) => imports.fromHost(ctx, intoNewDedicated(ctx.body)),
    }),
    defineRoute({
      ...importRoute('host', {
        path: '/api/dedicated/:name/modpack/import',
        permission: DEDICATED_MANAGE,
        into: EXISTING_DEDICATED,
        fields: 'replaceMods',
        outcome: 'files replaced, worlds kept, software and version taken from the pack',
        answers: Updated,
      }),
      params: NameParams,
      body: DedicatedImportBodySchema,
      handler: (ctx) => imports.fromHost(ctx, intoDedicated(ctx.params.name, ctx.body.replaceMods)),
    }),
    defineRoute({
      ...importRoute('upload', {
        path: '/api/dedicated/:name/modpack/upload',
        permission: DEDICATED_MANAGE,
        into: EXISTING_DEDICATED,
        fields: 'filename or fileName, replaceMods; usually a server-pack zip',
        outcome: 'files replaced, worlds kept',
        answers: Updated,
      }),
      params: NameParams,
      query: IntoQuery,
      handler: (ctx) => imports.upload(ctx, intoDedicated(ctx.params.name, flagOf(ctx.query.replaceMods)), {}),
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

/**
 * An upload into a new group or service names the file `filename` (ours) or `fileName` (the
 * dashboard's); one is required, checked before the body is read. Answers `ctx`.
 */
function named<C extends { query: FileNames }>(ctx: C): C {
  if (ctx.query.filename === undefined && ctx.query.fileName === undefined) throw new ApiError('VALIDATION_FAILED', 'query parameter "filename" (or "fileName") is required');
  return ctx;
}

/** What an upload's query says over the pack's own runtime. */
function overridesOf({ software, version, modloaderVersion }: RuntimeOverrides): RuntimeOverrides {
  return { software, version, modloaderVersion };
}

/** Finalize's query as its body would be: the flag as a boolean, the file name dropped (it is for messages). */
function fromQuery(query: Static<typeof FinalizeQuery>): AnyFinalizeBody {
  const { filename: _f, fileName: _n, uploadId, proxyEnabled, ...rest } = query;
  if (uploadId === undefined) throw new ApiError('VALIDATION_FAILED', 'query parameter "uploadId" is required (or send the parameters as a JSON body)');
  return { ...rest, uploadId, proxyEnabled: flagOf(proxyEnabled) };
}

/** A 'true' | 'false' query flag as a boolean; undefined when it is not given. */
function flagOf(flag: 'true' | 'false' | undefined): boolean | undefined {
  return flag === undefined ? undefined : flag === 'true';
}
