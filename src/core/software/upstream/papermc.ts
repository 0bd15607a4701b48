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

/** One downloadable build of a version. */
export interface PaperBuild {
  id: number;
  /** Published on the STABLE or RECOMMENDED channel (not ALPHA/BETA). */
  stable: boolean;
  /** Its server jar, with the SHA-256 the service publishes. */
  file: RemoteFile;
}

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
    const builds = await this.builds(project, version);
    const build = builds.find((b) => b.stable) ?? builds[0];
    if (!build) throw new UpstreamError(PAPERMC, this.buildsUrl(project, version), `it lists no downloadable build of ${project} ${version}`, 404);
    return build.file;
  }

  /** Every downloadable build of `version`, newest first; a version it does not know is a 404 UpstreamError. */
  async builds(project: PaperProject, version: string): Promise<PaperBuild[]> {
    const url = this.buildsUrl(project, version);
    const builds = await this.http.json(PAPERMC, url, BuildsSchema).catch((error: unknown) => {
      if (error instanceof UpstreamError && error.notFound) throw new UpstreamError(PAPERMC, url, `it has no ${project} ${version}`, 404);
      throw error;
    });
    return builds
      .filter((b) => b.downloads[SERVER_DOWNLOAD] !== undefined)
      .sort((a, b) => b.id - a.id)
      .map((build) => {
        const file = build.downloads[SERVER_DOWNLOAD]!;
        const stable = STABLE_CHANNELS.has(build.channel.toUpperCase());
        return {
          id: build.id,
          stable,
          file: {
            upstream: PAPERMC,
            url: file.url,
            label: `${project} ${version} build ${build.id}${stable ? '' : ` (${build.channel})`}`,
            checksum: { algorithm: 'sha256', hex: file.checksums.sha256.toLowerCase() },
            fileName: file.name,
          },
        };
      });
  }

  private buildsUrl(project: PaperProject, version: string): string {
    return `${trimBase(this.base())}/v3/projects/${project}/versions/${encodeURIComponent(version)}/builds`;
  }
}
