import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../../errors';
import type { ExpectedFile } from './download';
import { packHostJson } from './pack-host-http';
import type { PackProject, PackSource, PackVersion } from './source';

/**
 * Modrinth's API v2 on `[software] modrinth_url` (https://docs.modrinth.com/api):
 *
 *   GET /v2/project/{id|slug}           {id, slug, title, description, project_type: "modpack", ...}
 *   GET /v2/project/{id|slug}/version   [{id, name, version_number, game_versions, loaders,
 *                                         date_published, files: [{url, filename, primary, size,
 *                                         hashes: {sha1, sha512}}]}], newest first
 *
 * A modpack version's primary file is its `.mrpack`. Only the fields read here are declared.
 */

const MODRINTH = 'Modrinth';

const ProjectSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  project_type: Type.String(),
});

const VersionSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version_number: Type.String(),
  game_versions: Type.Array(Type.String()),
  loaders: Type.Array(Type.String()),
  date_published: Type.String(),
  files: Type.Array(
    Type.Object({
      url: Type.String(),
      filename: Type.String(),
      primary: Type.Optional(Type.Boolean()),
      size: Type.Optional(Type.Integer()),
      hashes: Type.Object({ sha1: Type.Optional(Type.String()), sha512: Type.Optional(Type.String()) }),
    }),
  ),
});
type ModrinthVersion = Static<typeof VersionSchema>;

export class ModrinthSource implements PackSource {
  readonly name = 'modrinth' as const;
  /** Versions as last read per project id, for packFile (the same import, moments later). */
  private readonly versionFiles = new Map<string, ModrinthVersion[]>();

  constructor(private readonly base: () => string) {}

  async project(ref: string, signal?: AbortSignal): Promise<PackProject> {
    const root = `${trimBase(this.base())}/v2/project/${encodeURIComponent(ref)}`;
    const project = await packHostJson({ host: MODRINTH, url: root, signal }, ProjectSchema);
    if (!project) throw new ApiError('MODPACK_NOT_FOUND', `Modrinth has no project "${ref}"`);
    if (project.project_type !== 'modpack') throw new ApiError('MODPACK_NOT_FOUND', `Modrinth project "${ref}" is a ${project.project_type}, not a modpack`);
    const versions = (await packHostJson({ host: MODRINTH, url: `${root}/version`, signal }, Type.Array(VersionSchema))) ?? [];
    // Newest first, whatever order the host used.
    versions.sort((a, b) => Date.parse(b.date_published) - Date.parse(a.date_published));
    this.versionFiles.delete(project.id);
    this.versionFiles.set(project.id, versions);
    // A handful of recent projects is all packFile needs.
    for (const key of this.versionFiles.keys()) if (this.versionFiles.size > 16) this.versionFiles.delete(key);
    return {
      source: 'modrinth',
      projectId: project.id,
      slug: project.slug,
      name: project.title,
      summary: project.description ?? '',
      versions: versions.map(toVersion),
    };
  }

  async packFile(project: PackProject, version: string | undefined, signal?: AbortSignal): Promise<{ version: PackVersion; file: ExpectedFile }> {
    if (!this.versionFiles.has(project.projectId)) await this.project(project.projectId, signal);
    const versions = this.versionFiles.get(project.projectId) ?? [];
    const chosen = version === undefined ? versions[0] : versions.find((v) => v.id === version || v.version_number === version);
    if (!chosen) {
      throw new ApiError('MODPACK_NOT_FOUND', version === undefined ? `Modrinth pack "${project.slug}" has no version` : `Modrinth pack "${project.slug}" has no version "${version}"`);
    }
    const file = chosen.files.find((f) => f.primary && f.filename.endsWith('.mrpack')) ?? chosen.files.find((f) => f.filename.endsWith('.mrpack'));
    if (!file) throw new ApiError('MODPACK_NOT_FOUND', `version ${chosen.version_number} of Modrinth pack "${project.slug}" has no .mrpack file`);
    return {
      version: toVersion(chosen),
      file: { label: file.filename, url: file.url, hashes: { sha1: file.hashes.sha1, sha512: file.hashes.sha512 }, size: file.size ?? null },
    };
  }
}

function toVersion(v: ModrinthVersion): PackVersion {
  return { id: v.id, name: v.name || v.version_number, gameVersions: v.game_versions, loaders: v.loaders.map((l) => l.toLowerCase()), published: v.date_published };
}

export function trimBase(base: string): string {
  return base.replace(/\/+$/, '');
}
