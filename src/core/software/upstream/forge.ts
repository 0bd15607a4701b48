import { Type } from '@sinclair/typebox';
import { trimBase, UpstreamError, type UpstreamHttp } from './http';
import { mavenChecksum } from './maven-checksum';
import type { ChecksumAlgorithm, InstallerFile } from './model';

/**
 * Forge's maven (`[software] forge_url`, maven.minecraftforge.net) and its promotions file
 * (`[software] forge_promotions_url`, files.minecraftforge.net):
 *
 *   GET /net/minecraftforge/forge/maven-metadata.xml     <versions><version>1.20.1-47.3.0</version>…
 *       (old builds carry the game version twice: 1.7.10-10.13.4.1614-1.7.10)
 *   GET /net/minecraftforge/forge/promotions_slim.json   {homepage, promos: {"1.20.1-latest": "47.3.0",
 *                                                        "1.20.1-recommended": "47.2.0", …}}
 *   GET /net/minecraftforge/forge/{mc}-{v}/forge-{mc}-{v}-installer.jar   (+ .sha1 on every build,
 *       .sha256 on recent ones; old builds keep the doubled game version: 1.7.10-10.13.4.1614-1.7.10)
 */

export const FORGE_MAVEN = 'Forge maven';
export const FORGE_PROMOTIONS = 'Forge promotions';

const PromotionsSchema = Type.Object({ promos: Type.Record(Type.String(), Type.String()) });
const VERSION_TAG = /<version>\s*([^<\s]+)\s*<\/version>/g;
/** Sidecars the Forge maven publishes next to an installer, strongest first. */
const FORGE_CHECKSUMS: readonly ChecksumAlgorithm[] = ['sha256', 'sha1'];

/** One Forge build: the game version it is for and its own version. */
export interface ForgeBuild {
  mcVersion: string;
  forgeVersion: string;
  /** The version as the maven spells it, its folder name (`1.20.1-47.3.0`, `1.7.10-10.13.4.1614-1.7.10`). */
  mavenVersion: string;
}

export class ForgeClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly mavenBase: () => string,
    private readonly promotionsBase: () => string,
  ) {}

  private root(): string {
    return `${trimBase(this.mavenBase())}/net/minecraftforge/forge`;
  }

  private promotionsUrl(): string {
    return `${trimBase(this.promotionsBase())}/net/minecraftforge/forge/promotions_slim.json`;
  }

  async builds(): Promise<ForgeBuild[]> {
    const xml = await this.http.text(FORGE_MAVEN, `${this.root()}/maven-metadata.xml`);
    const builds: ForgeBuild[] = [];
    for (const match of xml.matchAll(VERSION_TAG)) {
      const full = match[1]!;
      const dash = full.indexOf('-');
      if (dash <= 0) continue;
      const mcVersion = full.slice(0, dash);
      let forgeVersion = full.slice(dash + 1);
      if (forgeVersion.endsWith(`-${mcVersion}`)) forgeVersion = forgeVersion.slice(0, -mcVersion.length - 1);
      builds.push({ mcVersion, forgeVersion, mavenVersion: full });
    }
    return builds;
  }

  /** `{"1.20.1-latest": "47.3.0", "1.20.1-recommended": "47.2.0", …}`. */
  async promotions(): Promise<Record<string, string>> {
    const body = await this.http.json(FORGE_PROMOTIONS, this.promotionsUrl(), PromotionsSchema);
    return body.promos;
  }

  /**
   * The installer of Forge `forgeVersion` for `mcVersion`; blank picks the build promoted as
   * `<mc>-recommended`, else `<mc>-latest`. The maven metadata must list the build (it also
   * gives the folder name of old builds); the checksum is the one published next to the jar.
   */
  async installer(mcVersion: string, forgeVersion: string): Promise<InstallerFile> {
    let version = forgeVersion;
    let promoted = '';
    if (version === '') {
      const promos = await this.promotions();
      const recommended = promos[`${mcVersion}-recommended`];
      version = recommended ?? promos[`${mcVersion}-latest`] ?? '';
      if (version === '') throw new UpstreamError(FORGE_PROMOTIONS, this.promotionsUrl(), `it promotes no Forge build for Minecraft ${mcVersion}`, 404);
      promoted = recommended ? ' (recommended)' : ' (latest)';
    }
    const build = (await this.builds()).find((b) => b.mcVersion === mcVersion && b.forgeVersion === version);
    if (!build) throw new UpstreamError(FORGE_MAVEN, `${this.root()}/maven-metadata.xml`, `it lists no Forge ${version} for Minecraft ${mcVersion}`, 404);
    const fileName = `forge-${build.mavenVersion}-installer.jar`;
    const url = `${this.root()}/${encodeURIComponent(build.mavenVersion)}/${encodeURIComponent(fileName)}`;
    return {
      upstream: FORGE_MAVEN,
      url,
      label: `Forge ${version}${promoted} installer for Minecraft ${mcVersion}`,
      checksum: await mavenChecksum(this.http, FORGE_MAVEN, url, FORGE_CHECKSUMS),
      fileName,
      loaderVersion: version,
    };
  }
}
