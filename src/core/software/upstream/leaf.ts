import { Type } from '@sinclair/typebox';
import { trimBase, UpstreamError, type UpstreamHttp } from './http';
import type { RemoteFile } from './model';

/**
 * Leaf's own downloads API on `[software] leaf_url` (api.leafmc.one), shaped like PaperMC's
 * retired v2 "Bibliothek" API (Leaf's server checks it the same way, LeafVersionFetcher):
 *
 *   GET /v2/projects/leaf                                  {project_id, versions: [...]} not sorted
 *   GET /v2/projects/leaf/versions/{version}/builds        {builds: [{build, channel, downloads:
 *                                                          {primary: {name, sha256}}}]} oldest first
 *   GET /v2/projects/leaf/versions/{version}/builds/{build}/downloads/{name}   the jar
 *
 * Leaf names its jar download `primary` (Bibliothek's own name is `application`; both are read).
 */

export const LEAF = 'Leaf API';

const ProjectSchema = Type.Object({ versions: Type.Array(Type.String()) });
const FileSchema = Type.Object({ name: Type.String(), sha256: Type.Optional(Type.String()) });
const BuildsSchema = Type.Object({
  builds: Type.Array(
    Type.Object({
      build: Type.Integer(),
      channel: Type.Optional(Type.String()),
      downloads: Type.Record(Type.String(), FileSchema),
    }),
  ),
});

const STABLE_CHANNELS = new Set(['default', 'stable']);

export class LeafClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly base: () => string,
  ) {}

  async versions(): Promise<string[]> {
    const body = await this.http.json(LEAF, `${trimBase(this.base())}/v2/projects/leaf`, ProjectSchema);
    return body.versions;
  }

  /** The newest stable build of `version` (else the newest of any channel), with its SHA-256. */
  async latestBuild(version: string): Promise<RemoteFile> {
    const root = `${trimBase(this.base())}/v2/projects/leaf/versions/${encodeURIComponent(version)}`;
    const url = `${root}/builds`;
    const body = await this.http.json(LEAF, url, BuildsSchema).catch((error: unknown) => {
      if (error instanceof UpstreamError && error.notFound) throw new UpstreamError(LEAF, url, `it has no Leaf ${version}`, 404);
      throw error;
    });
    const builds = body.builds.filter((b) => jarOf(b.downloads) !== undefined).sort((a, b) => b.build - a.build);
    const build = builds.find((b) => STABLE_CHANNELS.has((b.channel ?? 'default').toLowerCase())) ?? builds[0];
    if (!build) throw new UpstreamError(LEAF, url, `it lists no downloadable build of Leaf ${version}`, 404);
    const file = jarOf(build.downloads)!;
    return {
      upstream: LEAF,
      url: `${root}/builds/${build.build}/downloads/${encodeURIComponent(file.name)}`,
      label: `Leaf ${version} build ${build.build}`,
      checksum: file.sha256 ? { algorithm: 'sha256', hex: file.sha256.toLowerCase() } : null,
      fileName: file.name,
    };
  }
}

function jarOf(downloads: Record<string, { name: string; sha256?: string }>): { name: string; sha256?: string } | undefined {
  return downloads.primary ?? downloads.application;
}
