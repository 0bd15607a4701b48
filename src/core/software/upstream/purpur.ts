import { Type } from '@sinclair/typebox';
import { trimBase, UpstreamError, type UpstreamHttp } from './http';
import type { RemoteFile } from './model';

/**
 * Purpur's downloads API v2 (https://api.purpurmc.org, documented in PurpurMC/Purpur's README),
 * on `[software] purpur_url`:
 *
 *   GET /v2/purpur                            {project, versions: ["1.14.1", …]} oldest first
 *   GET /v2/purpur/{version}                  {project, version, builds: {latest: "2388", all: [...]}}
 *   GET /v2/purpur/{version}/{build}          {project, version, build, result, timestamp, md5, …}
 *   GET /v2/purpur/{version}/{build}/download the jar
 *
 * A build's `md5` is the only checksum Purpur publishes; svc verifies it.
 */

export const PURPUR = 'Purpur API';

const ProjectSchema = Type.Object({ versions: Type.Array(Type.String()) });
const VersionSchema = Type.Object({ builds: Type.Object({ latest: Type.Union([Type.String(), Type.Null()]) }) });
const BuildSchema = Type.Object({
  build: Type.String(),
  result: Type.Optional(Type.String()),
  md5: Type.Optional(Type.String()),
});

export class PurpurClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly base: () => string,
  ) {}

  async versions(): Promise<string[]> {
    const body = await this.http.json(PURPUR, `${trimBase(this.base())}/v2/purpur`, ProjectSchema);
    return body.versions;
  }

  /** The latest build of `version` with its MD5. */
  async latestBuild(version: string): Promise<RemoteFile> {
    const root = `${trimBase(this.base())}/v2/purpur/${encodeURIComponent(version)}`;
    const listed = await this.http.json(PURPUR, root, VersionSchema).catch((error: unknown) => {
      if (error instanceof UpstreamError && error.notFound) throw new UpstreamError(PURPUR, root, `it has no Purpur ${version}`, 404);
      throw error;
    });
    const latest = listed.builds.latest;
    if (!latest) throw new UpstreamError(PURPUR, root, `it lists no build of Purpur ${version}`, 404);
    const build = await this.http.json(PURPUR, `${root}/${encodeURIComponent(latest)}`, BuildSchema);
    return {
      upstream: PURPUR,
      url: `${root}/${encodeURIComponent(build.build)}/download`,
      label: `Purpur ${version} build ${build.build}`,
      checksum: build.md5 ? { algorithm: 'md5', hex: build.md5.toLowerCase() } : null,
      fileName: `purpur-${version}-${build.build}.jar`,
    };
  }
}
