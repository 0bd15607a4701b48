import { Type, type Static } from '@sinclair/typebox';
import { DEDICATED_FIELDS, DedicatedSchema } from '../dedicated/model';
import { GROUP_FIELDS, GroupSchema } from '../groups/model';
import { UPLOAD_ID_PATTERN } from './chunked-uploads';
import { CLIENT_PACK_SOURCES } from './pack-summary';
import { PACK_SOURCES } from './source';

/**
 * The bodies and answers of the modpack routes (the flat API form). Group and dedicated
 * fields reuse their own schemas, so an import validates a name or a memory size exactly as
 * POST /api/groups and POST /api/dedicated do.
 */

const G = GROUP_FIELDS;
const D = DEDICATED_FIELDS;
const Ref = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });

export const PackSourceSchema = Type.Union(
  PACK_SOURCES.map((s) => Type.Literal(s)),
  { description: 'modrinth, or curseforge (needs [packhost] api_key)' },
);
/** `source` as the dashboard sends it, or ours: decided by the value (see pack-ref.ts). */
const PackTextSchema = (ours: string) =>
  Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      `"modrinth" or "curseforge" (${ours} then names the pack), or the pack itself as free text: a Modrinth slug or id, a Modrinth or CurseForge modpack page URL, ` +
      'curseforge:<slug>, modrinth:<slug>, or a CurseForge project id (digits). A bare name is looked up on Modrinth, then on CurseForge when [packhost] api_key is set',
  });

export const ModdedSoftwareSchema = Type.Union([Type.Literal('FABRIC'), Type.Literal('FORGE'), Type.Literal('NEOFORGE')], {
  description: 'overrides the loader the pack names; required for a server pack that shows none',
});

export const ResolveBodySchema = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'a pack page: https://modrinth.com/modpack/<slug> or https://www.curseforge.com/minecraft/modpacks/<slug>' })),
  id: Type.Optional(Ref('a Modrinth project id or slug, or a CurseForge project id (digits); used when url is absent')),
  source: Type.Optional(PackTextSchema('"url" or "id"')),
});
export type ResolveBody = Static<typeof ResolveBodySchema>;

export const PackVersionSchema = Type.Object({
  id: Type.String({ description: 'what versionId takes: a Modrinth version id, a CurseForge file id' }),
  name: Type.String(),
  gameVersions: Type.Array(Type.String()),
  loaders: Type.Array(Type.String()),
  published: Type.String(),
});

export const ResolveAnswerSchema = Type.Object({
  success: Type.Literal(true),
  source: Type.Union(
    CLIENT_PACK_SOURCES.map((s) => Type.Literal(s)),
    { description: 'what the pack is: MODRINTH (.mrpack), CURSEFORGE_API (a CurseForge pack, files resolved through its API) or SERVER_PACK (a server directory)' },
  ),
  host: PackSourceSchema,
  projectId: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  summary: Type.String(),
  version: Type.String({ description: "the pack's own version (the host's version name when the pack was not read)" }),
  mcVersion: Type.String({ description: 'the Minecraft version it runs' }),
  modloader: Type.String({ description: 'FABRIC, FORGE or NEOFORGE: the software a group or service gets; "" when unknown' }),
  modloaderVersion: Type.String({ description: 'the loader version; "" when the pack was not read' }),
  totalFiles: Type.Union([Type.Integer(), Type.Null()], { description: 'files the pack lists; null when the pack was not read' }),
  serverFiles: Type.Union([Type.Integer(), Type.Null()], { description: 'of them, the ones a server takes (client-only left out); null when the pack was not read' }),
  inspected: Type.Boolean({ description: 'the pack file itself was downloaded (hash-checked) and read, as an import would; false: only the host listing answered (see note)' }),
  note: Type.Optional(Type.String({ description: 'why the pack file was not read' })),
  gameVersion: Type.Union([Type.String(), Type.Null()], { description: 'of the newest version (or the one the URL names)' }),
  loader: Type.Union([Type.String(), Type.Null()], { description: 'of the newest version (or the one the URL names)' }),
  versions: Type.Array(PackVersionSchema, { description: 'newest first, at most 50' }),
});
export type ResolveAnswer = Static<typeof ResolveAnswerSchema>;

const projectFields = {
  source: PackTextSchema('"projectId" or "slug"'),
  projectId: Type.Optional(Ref('Modrinth project id or slug, or CurseForge project id')),
  slug: Type.Optional(Ref('used when projectId is absent')),
  versionId: Type.Optional(Ref('a version id (Modrinth) or file id (CurseForge); default the newest')),
};

export const groupTargetFields = {
  groupName: Type.String({ pattern: G.name.schema.pattern, description: 'the new group; its template is templates/<groupName>' }),
  type: Type.Optional(G.type.schema),
  memory: Type.Optional(Type.String({ pattern: G.memory.schema.pattern, description: 'heap per instance; default 4G' })),
  minInstances: Type.Optional(G.minInstances.schema),
  maxInstances: Type.Optional(G.maxInstances.schema),
};

const runtimeFields = {
  software: Type.Optional(ModdedSoftwareSchema),
  version: Type.Optional(Type.String({ pattern: G.version.schema.pattern, maxLength: 32, description: 'Minecraft version; overrides the pack' })),
  modloaderVersion: Type.Optional(Type.String({ maxLength: 64, description: 'loader version; overrides the pack' })),
};

const uploadId = Type.String({ pattern: UPLOAD_ID_PATTERN, description: 'from POST /api/modpacks/upload/init' });

export const ImportBodySchema = Type.Object({ ...projectFields, ...groupTargetFields });
export type ImportBody = Static<typeof ImportBodySchema>;

export const FinalizeBodySchema = Type.Object({ uploadId, ...groupTargetFields, ...runtimeFields });
export type FinalizeBody = Static<typeof FinalizeBodySchema>;

export const dedicatedTargetFields = {
  name: Type.String({ pattern: D.name.schema.pattern, description: 'the new dedicated service; its directory is <[paths] dedicated>/<name>' }),
  port: D.port.schema,
  memory: Type.Optional(Type.String({ pattern: D.memory.schema.pattern, description: 'heap; default 4G' })),
  proxyEnabled: Type.Optional(D.proxyEnabled.schema),
};

export const DedicatedFinalizeBodySchema = Type.Object({ uploadId, ...dedicatedTargetFields, software: runtimeFields.software, version: runtimeFields.version });
export type DedicatedFinalizeBody = Static<typeof DedicatedFinalizeBodySchema>;

/** POST /api/dedicated/modpack/import: a pack from a host into a new dedicated service. */
export const NewDedicatedImportBodySchema = Type.Object({ ...projectFields, ...dedicatedTargetFields });
export type NewDedicatedImportBody = Static<typeof NewDedicatedImportBodySchema>;

/**
 * POST /api/modpacks/upload/finalize takes either finalize: a group's fields (groupName...) or
 * a dedicated service's (name, port...); the handler tells them apart (finalize-params.ts).
 */
export const AnyFinalizeBodySchema = Type.Object({
  uploadId,
  groupName: Type.Optional(groupTargetFields.groupName),
  type: groupTargetFields.type,
  minInstances: groupTargetFields.minInstances,
  maxInstances: groupTargetFields.maxInstances,
  modloaderVersion: runtimeFields.modloaderVersion,
  name: Type.Optional(dedicatedTargetFields.name),
  port: Type.Optional(dedicatedTargetFields.port),
  proxyEnabled: dedicatedTargetFields.proxyEnabled,
  memory: groupTargetFields.memory,
  software: runtimeFields.software,
  version: runtimeFields.version,
});
export type AnyFinalizeBody = Static<typeof AnyFinalizeBodySchema>;

export const DedicatedImportBodySchema = Type.Object({
  ...projectFields,
  replaceMods: Type.Optional(Type.Boolean({ description: 'empty mods/ before the pack is laid in (default true: a pack’s mods must match each other)' })),
});
export type DedicatedImportBody = Static<typeof DedicatedImportBodySchema>;

const SkippedSchema = Type.Object({ path: Type.String(), reason: Type.String() });

export const ImportResultSchema = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  jobId: Type.String(),
  groupName: Type.String({ description: 'the group (or the dedicated service) the pack went into' }),
  filesDownloaded: Type.Integer({ description: 'files fetched from the pack host (files.downloaded)' }),
  filesFailed: Type.Integer({ description: 'always 0: a download that fails fails the whole import, and nothing is left' }),
  pack: Type.Object({
    source: Type.Union([PackSourceSchema, Type.Literal('upload')]),
    kind: Type.Union([Type.Literal('mrpack'), Type.Literal('curseforge'), Type.Literal('server')]),
    name: Type.String(),
    version: Type.String(),
    gameVersion: Type.String(),
    software: Type.String(),
    loaderVersion: Type.String(),
  }),
  files: Type.Object({
    downloaded: Type.Integer({ description: 'files fetched from the pack host, each hash-verified' }),
    downloadedBytes: Type.Integer(),
    extracted: Type.Integer({ description: 'files unpacked from the archive (overrides, server overrides, a server pack)' }),
    skipped: Type.Array(SkippedSchema, { description: 'files left out, with why (client-only, not required...); at most 500' }),
  }),
  group: Type.Optional(GroupSchema),
  dedicated: Type.Optional(
    Type.Composite([DedicatedSchema, Type.Object({ directory: Type.String(), configUpdated: Type.Boolean({ description: 'software/version taken from the pack' }) })]),
  ),
});
export type ImportResult = Static<typeof ImportResultSchema>;

export const AcceptedSchema = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  jobId: Type.String(),
  state: Type.Literal('running'),
  poll: Type.String({ description: 'GET this for the outcome; the group (or dedicated service) appears only once complete' }),
});
export type Accepted = Static<typeof AcceptedSchema>;

export const JobViewSchema = Type.Object({
  jobId: Type.String(),
  target: Type.String({ description: 'group, dedicated (a new service) or dedicated-update (into an existing one)' }),
  name: Type.String(),
  state: Type.Union([Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
  startedAt: Type.String(),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
  result: Type.Union([ImportResultSchema, Type.Null()]),
  error: Type.Union([Type.Object({ error: Type.String(), message: Type.String(), status: Type.Integer() }), Type.Null()]),
});

export const UploadStartedSchema = Type.Object({
  success: Type.Literal(true),
  uploadId: Type.String(),
  target: Type.Union([Type.Literal('group'), Type.Literal('dedicated')]),
  chunkBytes: Type.Integer({ description: 'recommended chunk size (4 MiB)' }),
  maxChunkBytes: Type.Integer(),
  maxBytes: Type.Integer({ description: 'largest modpack' }),
  expiresAt: Type.String({ description: 'the upload is removed if no chunk arrives before this (renewed by each chunk)' }),
});

export const ChunkAcceptedSchema = Type.Object({
  success: Type.Literal(true),
  uploadId: Type.String(),
  chunks: Type.Integer({ description: 'chunks received; the next index' }),
  bytes: Type.Integer({ description: 'bytes received in all' }),
  expiresAt: Type.String(),
});
