import type { Config } from '../../../config/schema';
import { FabricClient } from './fabric';
import { ForgeClient } from './forge';
import { HangarClient } from './hangar';
import { UpstreamHttp, userAgentFor } from './http';
import { LeafClient } from './leaf';
import { ModrinthClient } from './modrinth';
import { NeoForgeClient } from './neoforge';
import { PaperMcClient } from './papermc';
import { PufferfishClient } from './pufferfish';
import { PurpurClient } from './purpur';

/**
 * One client per upstream service, all sharing one HTTP client and its short cache. Base URLs
 * are read from `[software]` on every request, so a changed key applies without a restart.
 */
export class Upstreams {
  readonly papermc: PaperMcClient;
  readonly purpur: PurpurClient;
  readonly pufferfish: PufferfishClient;
  readonly leaf: LeafClient;
  readonly fabric: FabricClient;
  readonly forge: ForgeClient;
  readonly neoforge: NeoForgeClient;
  readonly modrinth: ModrinthClient;
  readonly hangar: HangarClient;

  constructor(
    config: () => Config['software'],
    readonly http: UpstreamHttp = new UpstreamHttp({ userAgent: () => userAgentFor(config().contact) }),
  ) {
    this.papermc = new PaperMcClient(http, () => config().papermc_url);
    this.purpur = new PurpurClient(http, () => config().purpur_url);
    this.pufferfish = new PufferfishClient(http, () => config().pufferfish_url);
    this.leaf = new LeafClient(http, () => config().leaf_url);
    this.fabric = new FabricClient(http, () => config().fabric_url);
    this.forge = new ForgeClient(http, () => config().forge_url, () => config().forge_promotions_url);
    this.neoforge = new NeoForgeClient(http, () => config().neoforge_url);
    this.modrinth = new ModrinthClient(http, () => config().modrinth_url);
    this.hangar = new HangarClient(http, () => config().hangar_url);
  }
}
