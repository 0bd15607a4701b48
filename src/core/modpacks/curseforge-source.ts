import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ApiError } from '../../errors';
import type { ExpectedFile, HashName } from './download';
import { trimBase } from './modrinth-source';
import { packHostJson } from './pack-host-http';
import type { PackProject, PackSource, PackVersion } from './source';

/**
 * CurseForge's Core API v1 on `[software] curseforge_url` (https://docs.curseforge.com), every
 * request with the `x-api-key` header (`[packhost] api_key`); answers are `{data: ...}`:
 *
 *   GET /v1/mods/{modId}                          the mod (a modpack has classId 4471)
 *   GET /v1/mods/search?gameId=432&classId=4471&slug={slug}   a modpack by its URL slug
 *   GET /v1/mods/{modId}/files?pageSize=50        its files (the pack's versions)
 *   GET /v1/mods/{modId}/files/{fileId}           one file: fileName, downloadUrl, hashes
 *                                                 [{value, algo: 1 sha1 | 2 md5}], fileLength
 *   GET /v1/mods/{modId}/files/{fileId}/download-url   {data: url} when downloadUrl is null
 *
 * A null download URL everywhere means the author does not allow third-party downloads.
 */

const CURSEFORGE = 'CurseForge';
const MINECRAFT = 432;
const MODPACKS = 4471;
const LOADER_NAMES = new Map([
  ['forge', 'forge'],
  ['neoforge', 'neoforge'],
  ['fabric', 'fabric'],
  ['quilt', 'quilt'],
]);

const FileSchema = Type.Object({
  id: Type.Integer(),
  modId: Type.Integer(),
  displayName: Type.String(),
  fileName: Type.String(),
  fileDate: Type.String(),
  downloadUrl: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  hashes: Type.Array(Type.Object({ value: Type.String(), algo: Type.Integer() })),
  fileLength: Type.Optional(Type.Integer()),
  gameVersions: Type.Array(Type.String()),
  isServerPack: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
});
export type CurseForgeFile = Static<typeof FileSchema>;

const ModSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  slug: Type.String(),
  summary: Type.Optional(Type.String()),
  classId: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
});

const ModAnswer = Type.Object({ data: ModSchema });
const FileAnswer = Type.Object({ data: FileSchema });

export class CurseForgeSource implements PackSource {
  readonly name = 'curseforge' as const;
  private readonly fileLists = new Map<string, CurseForgeFile[]>();

  constructor(
    private readonly base: () => string,
    private readonly apiKey: () => string,
  ) {}

  /** PACKHOST_API_KEY_MISSING unless `[packhost] api_key` is set: CurseForge answers nothing without one. */
  requireKey(): string {
    const key = this.apiKey().trim();
    if (!key) throw new ApiError('PACKHOST_API_KEY_MISSING', 'CurseForge needs an API key: set [packhost] api_key in svc.toml (a key from the CurseForge for Studios console), then retry');
    return key;
  }

  hasKey(): boolean {
    return this.apiKey().trim() !== '';
  }

  async project(ref: string, signal?: AbortSignal): Promise<PackProject> {
    const mod = /^\d{1,10}$/.test(ref) ? await this.get(`/v1/mods/${ref}`, ModAnswer, signal).then((r) => r?.data ?? null) : await this.bySlug(ref, signal);
    if (!mod) throw new ApiError('MODPACK_NOT_FOUND', `CurseForge has no modpack "${ref}"`);
    if (mod.classId != null && mod.classId !== MODPACKS) throw new ApiError('MODPACK_NOT_FOUND', `CurseForge project "${ref}" (${mod.name}) is not a modpack`);
    const listed = await this.get(`/v1/mods/${mod.id}/files?pageSize=50`, Type.Object({ data: Type.Array(FileSchema) }), signal);
    // Server packs hang off a client pack's file; the versions are the client packs, newest first.
    const files = (listed?.data ?? []).filter((f) => !f.isServerPack).sort((a, b) => Date.parse(b.fileDate) - Date.parse(a.fileDate));
    this.fileLists.delete(String(mod.id));
    this.fileLists.set(String(mod.id), files);
    for (const key of this.fileLists.keys()) if (this.fileLists.size > 16) this.fileLists.delete(key);
    return { source: 'curseforge', projectId: String(mod.id), slug: mod.slug, name: mod.name, summary: mod.summary ?? '', versions: files.map(toVersion) };
  }

  async packFile(project: PackProject, version: string | undefined, signal?: AbortSignal): Promise<{ version: PackVersion; file: ExpectedFile }> {
    let file = version === undefined ? this.fileLists.get(project.projectId)?.[0] : this.fileLists.get(project.projectId)?.find((f) => String(f.id) === version);
    if (!file && version !== undefined && /^\d{1,10}$/.test(version)) file = (await this.modFile(Number(project.projectId), Number(version), signal)) ?? undefined;
    if (!file) throw new ApiError('MODPACK_NOT_FOUND', version === undefined ? `CurseForge pack "${project.slug}" has no file` : `CurseForge pack "${project.slug}" has no file ${version}`);
    return { version: toVersion(file), file: await this.expected(file, file.fileName, signal) };
  }

  /** One file of a mod (a manifest's projectID/fileID), or null when CurseForge does not know it. */
  async modFile(modId: number, fileId: number, signal?: AbortSignal): Promise<CurseForgeFile | null> {
    const answer = await this.get(`/v1/mods/${modId}/files/${fileId}`, FileAnswer, signal);
    return answer?.data ?? null;
  }

  /** Where a file downloads from and what it hashes to; MODPACK_UPLOAD_FAILED when its author allows no third-party download. */
  async expected(file: CurseForgeFile, label: string, signal?: AbortSignal): Promise<ExpectedFile> {
    let url = file.downloadUrl ?? null;
    if (!url) {
      const answer = await this.get(`/v1/mods/${file.modId}/files/${file.id}/download-url`, Type.Object({ data: Type.Union([Type.String(), Type.Null()]) }), signal);
      url = answer?.data ?? null;
    }
    if (!url) {
      throw new ApiError(
        'MODPACK_UPLOAD_FAILED',
        `${label}: CurseForge gives no download for ${file.fileName} (project ${file.modId}, file ${file.id}): its author does not allow third-party downloads; use the pack's server pack instead`,
      );
    }
    const hashes: Partial<Record<HashName, string>> = {};
    for (const h of file.hashes) {
      if (h.algo === 1) hashes.sha1 = h.value.toLowerCase();
      if (h.algo === 2) hashes.md5 = h.value.toLowerCase();
    }
    return { label, url, hashes, size: file.fileLength ?? null };
  }

  private async bySlug(slug: string, signal?: AbortSignal): Promise<Static<typeof ModSchema> | null> {
    const query = new URLSearchParams({ gameId: String(MINECRAFT), classId: String(MODPACKS), slug });
    const found = await this.get(`/v1/mods/search?${query}`, Type.Object({ data: Type.Array(ModSchema) }), signal);
    return found?.data.find((m) => m.slug === slug) ?? found?.data[0] ?? null;
  }

  private get<S extends TSchema>(path: string, schema: S, signal?: AbortSignal): Promise<Static<S> | null> {
    const key = this.requireKey();
    return packHostJson(
      { host: CURSEFORGE, url: `${trimBase(this.base())}${path}`, headers: { 'x-api-key': key }, signal, refusedHint: 'check [packhost] api_key in svc.toml' },
      schema,
    );
  }
}

function toVersion(file: CurseForgeFile): PackVersion {
  return {
    id: String(file.id),
    name: file.displayName || file.fileName,
    gameVersions: file.gameVersions.filter((v) => /^\d+\.\d+/.test(v)),
    loaders: file.gameVersions.map((v) => LOADER_NAMES.get(v.toLowerCase())).filter((l): l is string => l !== undefined),
    published: file.fileDate,
  };
}
