import { Type } from '@sinclair/typebox';
import { trimBase, UpstreamError, type UpstreamHttp } from './http';
import type { RemoteFile } from './model';
import { newestFirstOrder } from './version-order';

/**
 * Pufferfish has no downloads API: its builds are artifacts of its Jenkins
 * (`[software] pufferfish_url`, ci.pufferfish.host), one job per Minecraft line
 * (`Pufferfish-1.21`, …; `Pufferfish-Purpur-*` jobs are another product). Jenkins' JSON API:
 *
 *   GET /api/json?tree=jobs[name,builds[number,result,artifacts[fileName,relativePath]]{0,50}]
 *       {jobs: [{name, builds: [{number, result, artifacts: [{fileName, relativePath}]}]}]}
 *   GET /job/{job}/{number}/artifact/{relativePath}       the jar
 *
 * The exact Minecraft version is only in the artifact's name
 * (`pufferfish-paperclip-1.21.3-R0.1-SNAPSHOT-mojmap.jar`). Jenkins publishes no checksum.
 */

export const PUFFERFISH = 'Pufferfish Jenkins';

const TREE = 'jobs[name,builds[number,result,artifacts[fileName,relativePath]]{0,50}]';

const JobsSchema = Type.Object({
  jobs: Type.Array(
    Type.Object({
      name: Type.String(),
      builds: Type.Optional(
        Type.Array(
          Type.Object({
            number: Type.Integer(),
            result: Type.Union([Type.String(), Type.Null()]),
            artifacts: Type.Array(Type.Object({ fileName: Type.String(), relativePath: Type.String() })),
          }),
        ),
      ),
    }),
  ),
});

const JOB = /^Pufferfish-(\d+\.\d+)$/;
const PAPERCLIP = /^pufferfish-paperclip-(\d+\.\d+(?:\.\d+)?)-R[\d.]+-SNAPSHOT(?:-(mojmap|reobf))?\.jar$/;

interface Candidate {
  job: string;
  number: number;
  mcVersion: string;
  relativePath: string;
  fileName: string;
  mojmap: boolean;
}

export class PufferfishClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly base: () => string,
  ) {}

  async versions(): Promise<string[]> {
    return [...new Set((await this.candidates()).map((c) => c.mcVersion))];
  }

  /** The newest successful build whose server jar is for exactly `version`. */
  async latestBuild(version: string): Promise<RemoteFile> {
    const found = (await this.candidates())
      .filter((c) => c.mcVersion === version)
      .sort((a, b) => b.number - a.number || Number(b.mojmap) - Number(a.mojmap))[0];
    if (!found) throw new UpstreamError(PUFFERFISH, this.jobsUrl(), `no successful build of Pufferfish ${version} is listed`, 404);
    const path = found.relativePath.split('/').map(encodeURIComponent).join('/');
    return {
      upstream: PUFFERFISH,
      url: `${trimBase(this.base())}/job/${encodeURIComponent(found.job)}/${found.number}/artifact/${path}`,
      label: `Pufferfish ${version} build ${found.number}`,
      checksum: null,
      fileName: found.fileName,
    };
  }

  private jobsUrl(): string {
    return `${trimBase(this.base())}/api/json?tree=${encodeURIComponent(TREE)}`;
  }

  private async candidates(): Promise<Candidate[]> {
    const body = await this.http.json(PUFFERFISH, this.jobsUrl(), JobsSchema);
    const out: Candidate[] = [];
    for (const job of body.jobs) {
      if (!JOB.test(job.name)) continue;
      for (const build of job.builds ?? []) {
        if (build.result !== 'SUCCESS') continue;
        for (const artifact of build.artifacts) {
          const match = PAPERCLIP.exec(artifact.fileName);
          if (!match) continue;
          out.push({ job: job.name, number: build.number, mcVersion: match[1]!, relativePath: artifact.relativePath, fileName: artifact.fileName, mojmap: match[2] === 'mojmap' });
        }
      }
    }
    return out.sort((a, b) => newestFirstOrder(a.mcVersion, b.mcVersion));
  }
}
