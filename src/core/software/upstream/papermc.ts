import { Type } from '@sinclair/typebox';
import { trimBase, UpstreamError, type UpstreamHttp } from './http';
import type { RemoteFile } from './model';

/**
 * PaperMC's downloads service, "Fill" API v3 (https://docs.papermc.io/misc/downloads-service),
 * for Paper, Folia and Velocity. The older api.papermc.io v2 ("Bibliothek", downloads keyed
 * `application`) is being retired; svc targets v3 only, on `[software] papermc_url`:
 *
 *   GET /v3/projects/{project}                           {project, versions: {"1.21": ["1.21.4", …], …}}
 *                                                        grouped by family, newest first
 *   GET /v3/projects/{project}/versions/{version}/builds [{id, channel, downloads: {"server:default":
 *                                                        {name, checksums: {sha256}, size, url}}}, …]
 *                                                        newest first; channel ALPHA|BETA|STABLE|RECOMMENDED
 *
 * The download URL is the `url` the build names (a CDN), verified against its SHA-256.
 */

export const PAPERMC = 'PaperMC downloads service';

export type PaperProject = 'paper' | 'folia' | 'velocity';

const ProjectSchema = Type.Object({
  versions: Type.Record(Type.String(), Type.Array(Type.String())),
});

const DownloadSchema = Type.Object({
  name: Type.String(),
  url: Type.String(),
  checksums: Type.Object({ sha256: Type.String() }),
});

const BuildsSchema = Type.Array(
  Type.Object({
    id: Type.Integer(),
    channel: Type.String(),
    downloads: Type.Record(Type.String(), DownloadSchema),
  }),
);

/** The `downloads` key of the runnable server jar. */
const SERVER_DOWNLOAD = 'server:default';
const STABLE_CHANNELS = new Set(['STABLE', 'RECOMMENDED']);

export class PaperMcClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly base: () => string,
  ) {}

  /** Every version of the project, in no particular order. */
  async versions(project: PaperProject): Promise<string[]> {
    const body = await this.http.json(PAPERMC, `${trimBase(this.base())}/v3/projects/${project}`, ProjectSchema);
    return Object.values(body.versions).flat();
  }

  /**
   * The newest STABLE (or RECOMMENDED) build of `version`; a version with only ALPHA/BETA
   * builds (a brand-new Minecraft release) gets its newest build, named as such in the label.
   */
  async latestBuild(project: PaperProject, version: string): Promise<RemoteFile> {
    const url = `${trimBase(this.base())}/v3/projects/${project}/versions/${encodeURIComponent(version)}/builds`;
    const builds = await this.http.json(PAPERMC, url, BuildsSchema).catch((error: unknown) => {
      if (error instanceof UpstreamError && error.notFound) throw new UpstreamError(PAPERMC, url, `it has no ${project} ${version}`, 404);
      throw error;
    });
    const usable = builds.filter((b) => b.downloads[SERVER_DOWNLOAD] !== undefined).sort((a, b) => b.id - a.id);
    const build = usable.find((b) => STABLE_CHANNELS.has(b.channel.toUpperCase())) ?? usable[0];
    if (!build) throw new UpstreamError(PAPERMC, url, `it lists no downloadable build of ${project} ${version}`, 404);
    const file = build.downloads[SERVER_DOWNLOAD]!;
    const channel = STABLE_CHANNELS.has(build.channel.toUpperCase()) ? '' : ` (${build.channel})`;
    return {
      upstream: PAPERMC,
      url: file.url,
      label: `${project} ${version} build ${build.id}${channel}`,
      checksum: { algorithm: 'sha256', hex: file.checksums.sha256.toLowerCase() },
      fileName: file.name,
    };
  }
}
