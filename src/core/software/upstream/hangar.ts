import { Type, type Static } from '@sinclair/typebox';
import { nullIfNotFound, trimBase, type UpstreamHttp } from './http';

/**
 * PaperMC's plugin repository Hangar, API v1 (https://hangar.papermc.io/api-docs,
 * `[software] hangar_url`):
 *
 *   GET /api/v1/projects?query=&limit=&offset=&platform=PAPER&version=1.21.4
 *       {pagination: {count, limit, offset}, result: [{id, name, namespace: {owner, slug},
 *        description, stats: {downloads, …}, …}]}
 *   GET /api/v1/projects/{slugOrId}               one project, same shape
 *   GET /api/v1/projects/{slugOrId}/versions?platform=PAPER&platformVersion=1.21.4&limit=
 *       {pagination, result: [{name, channel: {name}, downloads: {PAPER: {fileInfo: {name,
 *        sizeBytes, sha256Hash} | null, externalUrl, downloadUrl}}, pluginDependencies:
 *        {PAPER: [{name, projectId, required, externalUrl, platform}]}, …}]} newest first
 *
 * Platforms are PAPER, WATERFALL and VELOCITY.
 */

export const HANGAR = 'Hangar';

export type HangarPlatform = 'PAPER' | 'WATERFALL' | 'VELOCITY';

const ProjectSchema = Type.Object({
  id: Type.Optional(Type.Integer()),
  name: Type.String(),
  namespace: Type.Object({ owner: Type.String(), slug: Type.String() }),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  stats: Type.Object({ downloads: Type.Integer() }),
});
export type HangarProject = Static<typeof ProjectSchema>;

const DownloadSchema = Type.Object({
  fileInfo: Type.Optional(Type.Union([Type.Object({ name: Type.String(), sha256Hash: Type.String() }), Type.Null()])),
  downloadUrl: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  externalUrl: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
const DependencySchema = Type.Object({
  name: Type.String(),
  projectId: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  required: Type.Boolean(),
  externalUrl: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
const VersionSchema = Type.Object({
  name: Type.String(),
  channel: Type.Optional(Type.Object({ name: Type.String() })),
  downloads: Type.Record(Type.String(), DownloadSchema),
  pluginDependencies: Type.Optional(Type.Record(Type.String(), Type.Array(DependencySchema))),
});
export type HangarVersion = Static<typeof VersionSchema>;
export type HangarDependency = Static<typeof DependencySchema>;

const Paged = <S extends Parameters<typeof Type.Array>[0]>(item: S) => Type.Object({ result: Type.Array(item) });

export class HangarClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly base: () => string,
  ) {}

  private root(): string {
    return `${trimBase(this.base())}/api/v1`;
  }

  async search(query: string, platform: HangarPlatform, gameVersion: string | undefined, limit: number): Promise<HangarProject[]> {
    const params = new URLSearchParams({ query, limit: String(limit), offset: '0', platform });
    if (gameVersion) params.set('version', gameVersion);
    const body = await this.http.json(HANGAR, `${this.root()}/projects?${params}`, Paged(ProjectSchema));
    return body.result;
  }

  /** A download URL as Hangar gave it (absolute, on its CDN), resolved against the API base if it is relative. */
  absolute(url: string): string {
    return new URL(url, `${trimBase(this.base())}/`).toString();
  }

  /** The project by slug or numeric id, or null when Hangar does not know it. */
  async project(slugOrId: string): Promise<HangarProject | null> {
    return nullIfNotFound(this.http.json(HANGAR, `${this.root()}/projects/${encodeURIComponent(slugOrId)}`, ProjectSchema));
  }

  /** Versions for the platform and game version, newest first; null when the project is unknown. */
  async versions(slug: string, platform: HangarPlatform, gameVersion: string): Promise<HangarVersion[] | null> {
    const params = new URLSearchParams({ platform, platformVersion: gameVersion, limit: '25', offset: '0' });
    const body = await nullIfNotFound(this.http.json(HANGAR, `${this.root()}/projects/${encodeURIComponent(slug)}/versions?${params}`, Paged(VersionSchema)));
    return body?.result ?? null;
  }

}
