import { Type, type Static } from '@sinclair/typebox';
import { nullIfNotFound, trimBase, type UpstreamHttp } from './http';
import type { Checksum } from './model';

/**
 * Modrinth's API v2 (https://docs.modrinth.com, `[software] modrinth_url`, api.modrinth.com):
 *
 *   GET /v2/search?query=&limit=&facets=[["project_type:plugin"],["versions:1.21.4"],["categories:paper","categories:spigot"]]
 *       {hits: [{project_id, slug, title, description, author, downloads, …}], offset, limit, total_hits}
 *       (facets: one JSON array; inner arrays are OR, the outer one AND; loaders are `categories`)
 *   GET /v2/project/{id|slug}                       {id, slug, title, …}
 *   GET /v2/project/{id|slug}/version?loaders=["paper"]&game_versions=["1.21.4"]
 *       [{id, project_id, name, version_number, version_type, files: [{url, filename, primary,
 *         hashes: {sha512, sha1}}], dependencies: [{version_id, project_id, file_name,
 *         dependency_type: required|optional|incompatible|embedded}]}] newest first
 *   GET /v2/version/{id}                            one version, same shape
 */

export const MODRINTH = 'Modrinth';

const HitSchema = Type.Object({
  project_id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  description: Type.String(),
  author: Type.String(),
  downloads: Type.Integer(),
});
const SearchSchema = Type.Object({ hits: Type.Array(HitSchema), total_hits: Type.Optional(Type.Integer()) });
export type ModrinthHit = Static<typeof HitSchema>;

const ProjectSchema = Type.Object({ id: Type.String(), slug: Type.String(), title: Type.String() });
export type ModrinthProject = Static<typeof ProjectSchema>;

const FileSchema = Type.Object({
  url: Type.String(),
  filename: Type.String(),
  primary: Type.Boolean(),
  hashes: Type.Object({ sha512: Type.Optional(Type.String()), sha1: Type.Optional(Type.String()) }),
});
const VersionSchema = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  version_number: Type.String(),
  version_type: Type.String(),
  files: Type.Array(FileSchema),
  dependencies: Type.Array(
    Type.Object({
      version_id: Type.Union([Type.String(), Type.Null()]),
      project_id: Type.Union([Type.String(), Type.Null()]),
      dependency_type: Type.String(),
    }),
  ),
});
export type ModrinthVersion = Static<typeof VersionSchema>;
export type ModrinthFile = Static<typeof FileSchema>;

export interface ModrinthSearch {
  query: string;
  /** `project_type` facet: `plugin`, `mod`, `modpack`. */
  projectType: string;
  gameVersion?: string;
  /** Loader categories; any one matches. */
  loaders?: readonly string[];
  limit: number;
}

export class ModrinthClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly base: () => string,
  ) {}

  private root(): string {
    return `${trimBase(this.base())}/v2`;
  }

  async search(search: ModrinthSearch): Promise<ModrinthHit[]> {
    const facets: string[][] = [[`project_type:${search.projectType}`]];
    if (search.gameVersion) facets.push([`versions:${search.gameVersion}`]);
    if (search.loaders && search.loaders.length > 0) facets.push(search.loaders.map((l) => `categories:${l}`));
    const params = new URLSearchParams({ query: search.query, limit: String(search.limit), facets: JSON.stringify(facets) });
    const body = await this.http.json(MODRINTH, `${this.root()}/search?${params}`, SearchSchema);
    return body.hits;
  }

  /** The project, or null when Modrinth does not know it. */
  async project(idOrSlug: string): Promise<ModrinthProject | null> {
    return nullIfNotFound(this.http.json(MODRINTH, `${this.root()}/project/${encodeURIComponent(idOrSlug)}`, ProjectSchema));
  }

  /** Versions for these loaders and game version, newest first; null when the project is unknown. */
  async versions(idOrSlug: string, loaders: readonly string[], gameVersion: string): Promise<ModrinthVersion[] | null> {
    const params = new URLSearchParams({ loaders: JSON.stringify(loaders), game_versions: JSON.stringify([gameVersion]) });
    return nullIfNotFound(this.http.json(MODRINTH, `${this.root()}/project/${encodeURIComponent(idOrSlug)}/version?${params}`, Type.Array(VersionSchema)));
  }

  async version(id: string): Promise<ModrinthVersion | null> {
    return nullIfNotFound(this.http.json(MODRINTH, `${this.root()}/version/${encodeURIComponent(id)}`, VersionSchema));
  }

}

/** The file to install: the primary one, else the first. */
export function primaryFile(version: ModrinthVersion): ModrinthFile | undefined {
  return version.files.find((f) => f.primary) ?? version.files[0];
}

/** SHA-512 when published, else SHA-1. */
export function modrinthChecksum(file: ModrinthFile): Checksum | null {
  if (file.hashes.sha512) return { algorithm: 'sha512', hex: file.hashes.sha512.toLowerCase() };
  if (file.hashes.sha1) return { algorithm: 'sha1', hex: file.hashes.sha1.toLowerCase() };
  return null;
}
