import { Type } from '@sinclair/typebox';
import { trimBase, type UpstreamHttp } from './http';

/**
 * NeoForge's maven (`[software] neoforge_url`, maven.neoforged.net), its Reposilite API:
 *
 *   GET /api/maven/versions/releases/net/neoforged/neoforge   {isSnapshot: false, versions: ["20.2.3-beta", …, "21.1.77"]}
 *
 * A NeoForge version names the game version it is for: `21.1.77` is for 1.21.1, `21.0.x`
 * for 1.21, and from Minecraft's year-based numbering on the first parts are the game
 * version itself (`26.1.2.71` for 26.1.2, `26.3.0.31-beta` for 26.3). Versions below 20
 * (`0.25w14craftmine.3-beta`, experiments on snapshots) and NeoForge for 1.20.1 (published as
 * `net/neoforged/forge`) are left out.
 */

export const NEOFORGE = 'NeoForge maven';

const VersionsSchema = Type.Object({ versions: Type.Array(Type.String()) });

export interface NeoForgeBuild {
  mcVersion: string;
  neoforgeVersion: string;
  /** `-beta`/`-alpha` builds. */
  beta: boolean;
}

export class NeoForgeClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly base: () => string,
  ) {}

  async builds(): Promise<NeoForgeBuild[]> {
    const body = await this.http.json(NEOFORGE, `${trimBase(this.base())}/api/maven/versions/releases/net/neoforged/neoforge`, VersionsSchema);
    const builds: NeoForgeBuild[] = [];
    for (const version of body.versions) {
      const mcVersion = neoforgeGameVersion(version);
      if (mcVersion) builds.push({ mcVersion, neoforgeVersion: version, beta: /-(beta|alpha)/i.test(version) });
    }
    return builds;
  }
}

/** The game version a NeoForge version is for, or null when it cannot tell. */
export function neoforgeGameVersion(version: string): string | null {
  const parts = version.split('-')[0]!.split('.');
  const [major, minor, patch] = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
  if (major === undefined || minor === undefined || Number.isNaN(major) || Number.isNaN(minor) || major < 20) return null;
  if (major >= 26) {
    // Year-based game versions: 26.1.2.71 → 26.1.2, 26.3.0.31 → 26.3.
    if (parts.length < 4 || patch === undefined || Number.isNaN(patch)) return null;
    return patch === 0 ? `${major}.${minor}` : `${major}.${minor}.${patch}`;
  }
  return minor === 0 ? `1.${major}` : `1.${major}.${minor}`;
}
