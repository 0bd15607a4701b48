import { Type } from '@sinclair/typebox';
import { trimBase, UpstreamError, type UpstreamHttp } from './http';
import { mavenChecksum } from './maven-checksum';
import type { ChecksumAlgorithm, InstallerFile } from './model';
import { newestFirstOrder } from './version-order';

/**
 * NeoForge's maven (`[software] neoforge_url`, maven.neoforged.net), its Reposilite API:
 *
 *   GET /api/maven/versions/releases/net/neoforged/neoforge   {isSnapshot: false, versions: ["20.2.3-beta", …, "21.1.77"]}
 *   GET /releases/net/neoforged/neoforge/{v}/neoforge-{v}-installer.jar   (+ .sha1, .sha256, .sha512)
 *   GET /releases/net/neoforged/forge/1.20.1-{v}/forge-1.20.1-{v}-installer.jar   NeoForge for 1.20.1
 *
 * A NeoForge version names the game version it is for: `21.1.77` is for 1.21.1, `21.0.x`
 * for 1.21, and from Minecraft's year-based numbering on the first parts are the game
 * version itself (`26.1.2.71` for 26.1.2, `26.3.0.31-beta` for 26.3). Versions below 20
 * (`0.25w14craftmine.3-beta`, experiments on snapshots) and NeoForge for 1.20.1 (published as
 * `net/neoforged/forge`) are left out.
 */

export const NEOFORGE = 'NeoForge maven';

const VersionsSchema = Type.Object({ versions: Type.Array(Type.String()) });
/** Sidecars the NeoForge maven (Reposilite) publishes next to every file, strongest first. */
const NEOFORGE_CHECKSUMS: readonly ChecksumAlgorithm[] = ['sha512', 'sha256', 'sha1'];
/** The one game version whose NeoForge is the `net.neoforged:forge` artifact, numbered like Forge. */
const LEGACY_GAME_VERSION = '1.20.1';

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

  private versionsUrl(): string {
    return `${trimBase(this.base())}/api/maven/versions/releases/net/neoforged/neoforge`;
  }

  async builds(): Promise<NeoForgeBuild[]> {
    const body = await this.http.json(NEOFORGE, this.versionsUrl(), VersionsSchema);
    const builds: NeoForgeBuild[] = [];
    for (const version of body.versions) {
      const mcVersion = neoforgeGameVersion(version);
      if (mcVersion) builds.push({ mcVersion, neoforgeVersion: version, beta: /-(beta|alpha)/i.test(version) });
    }
    return builds;
  }

  /**
   * The installer of NeoForge `version` for `mcVersion`; blank picks the newest release for it
   * (the newest beta when it has only betas). Minecraft 1.20.1 is not in the version list, so
   * its build must be named (47.1.106).
   */
  async installer(mcVersion: string, version: string): Promise<InstallerFile> {
    const releases = `${trimBase(this.base())}/releases/net/neoforged`;
    if (mcVersion === LEGACY_GAME_VERSION) {
      if (version === '') {
        throw new UpstreamError(NEOFORGE, `${releases}/forge`, `NeoForge for Minecraft ${LEGACY_GAME_VERSION} is the net.neoforged:forge artifact, which svc does not list: set the group's modloaderVersion (47.1.106, …)`, 404);
      }
      const full = `${LEGACY_GAME_VERSION}-${version}`;
      return this.file(`${releases}/forge/${encodeURIComponent(full)}`, `forge-${full}-installer.jar`, version, `NeoForge ${version} installer for Minecraft ${mcVersion}`);
    }
    const builds = (await this.builds()).filter((b) => b.mcVersion === mcVersion).sort((a, b) => newestFirstOrder(a.neoforgeVersion, b.neoforgeVersion));
    const build = version === '' ? (builds.find((b) => !b.beta) ?? builds[0]) : builds.find((b) => b.neoforgeVersion === version);
    if (!build) {
      throw new UpstreamError(NEOFORGE, this.versionsUrl(), version === '' ? `it lists no NeoForge for Minecraft ${mcVersion}` : `it lists no NeoForge ${version} for Minecraft ${mcVersion}`, 404);
    }
    const v = build.neoforgeVersion;
    return this.file(`${releases}/neoforge/${encodeURIComponent(v)}`, `neoforge-${v}-installer.jar`, v, `NeoForge ${v}${build.beta ? ' (beta)' : ''} installer for Minecraft ${mcVersion}`);
  }

  private async file(folder: string, fileName: string, loaderVersion: string, label: string): Promise<InstallerFile> {
    const url = `${folder}/${encodeURIComponent(fileName)}`;
    return { upstream: NEOFORGE, url, label, checksum: await mavenChecksum(this.http, NEOFORGE, url, NEOFORGE_CHECKSUMS), fileName, loaderVersion };
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
