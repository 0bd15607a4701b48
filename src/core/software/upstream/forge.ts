import { Type } from '@sinclair/typebox';
import { trimBase, type UpstreamHttp } from './http';

/**
 * Forge's maven (`[software] forge_url`, maven.minecraftforge.net) and its promotions file
 * (`[software] forge_promotions_url`, files.minecraftforge.net):
 *
 *   GET /net/minecraftforge/forge/maven-metadata.xml     <versions><version>1.20.1-47.3.0</version>…
 *       (old builds carry the game version twice: 1.7.10-10.13.4.1614-1.7.10)
 *   GET /net/minecraftforge/forge/promotions_slim.json   {homepage, promos: {"1.20.1-latest": "47.3.0",
 *                                                        "1.20.1-recommended": "47.2.0", …}}
 */

export const FORGE_MAVEN = 'Forge maven';
export const FORGE_PROMOTIONS = 'Forge promotions';

const PromotionsSchema = Type.Object({ promos: Type.Record(Type.String(), Type.String()) });
const VERSION_TAG = /<version>\s*([^<\s]+)\s*<\/version>/g;

/** One Forge build: the game version it is for and its own version. */
export interface ForgeBuild {
  mcVersion: string;
  forgeVersion: string;
}

export class ForgeClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly mavenBase: () => string,
    private readonly promotionsBase: () => string,
  ) {}

  async builds(): Promise<ForgeBuild[]> {
    const xml = await this.http.text(FORGE_MAVEN, `${trimBase(this.mavenBase())}/net/minecraftforge/forge/maven-metadata.xml`);
    const builds: ForgeBuild[] = [];
    for (const match of xml.matchAll(VERSION_TAG)) {
      const full = match[1]!;
      const dash = full.indexOf('-');
      if (dash <= 0) continue;
      const mcVersion = full.slice(0, dash);
      let forgeVersion = full.slice(dash + 1);
      if (forgeVersion.endsWith(`-${mcVersion}`)) forgeVersion = forgeVersion.slice(0, -mcVersion.length - 1);
      builds.push({ mcVersion, forgeVersion });
    }
    return builds;
  }

  /** `{"1.20.1-latest": "47.3.0", "1.20.1-recommended": "47.2.0", …}`. */
  async promotions(): Promise<Record<string, string>> {
    const body = await this.http.json(FORGE_PROMOTIONS, `${trimBase(this.promotionsBase())}/net/minecraftforge/forge/promotions_slim.json`, PromotionsSchema);
    return body.promos;
  }
}
