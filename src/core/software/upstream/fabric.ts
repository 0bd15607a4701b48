import { Type } from '@sinclair/typebox';
import { trimBase, UpstreamError, type UpstreamHttp } from './http';
import type { RemoteFile } from './model';

/**
 * Fabric meta v2 (https://meta.fabricmc.net, `[software] fabric_url`):
 *
 *   GET /v2/versions/game                      [{version, stable}] newest first (snapshots stable:false)
 *   GET /v2/versions/loader/{game}             [{loader: {version, stable}, intermediary, launcherMeta}] newest first
 *   GET /v2/versions/installer                 [{url, maven, version, stable}] newest first
 *   GET /v2/versions/loader/{game}/{loader}/{installer}/server/jar   the server launcher jar
 *
 * The server launcher downloads the game and libraries itself on first start. Fabric meta
 * publishes no checksum for it.
 */

export const FABRIC = 'Fabric meta';

const GameSchema = Type.Array(Type.Object({ version: Type.String(), stable: Type.Boolean() }));
const LoadersSchema = Type.Array(Type.Object({ loader: Type.Object({ version: Type.String(), stable: Type.Boolean() }) }));
const InstallersSchema = Type.Array(Type.Object({ version: Type.String(), stable: Type.Boolean() }));

export interface FabricLoader {
  version: string;
  stable: boolean;
}

export class FabricClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly base: () => string,
  ) {}

  private root(): string {
    return `${trimBase(this.base())}/v2/versions`;
  }

  async gameVersions(): Promise<{ version: string; stable: boolean }[]> {
    return this.http.json(FABRIC, `${this.root()}/game`, GameSchema);
  }

  /** Loader versions for one game version, newest first (empty for a game version Fabric does not know). */
  async loaders(gameVersion: string): Promise<FabricLoader[]> {
    const body = await this.http.json(FABRIC, `${this.root()}/loader/${encodeURIComponent(gameVersion)}`, LoadersSchema);
    return body.map((entry) => entry.loader);
  }

  /** The server launcher for `gameVersion` with `loader` (default: the newest stable loader) and the newest stable installer. */
  async serverJar(gameVersion: string, loader?: string): Promise<RemoteFile> {
    const loaders = await this.loaders(gameVersion);
    const chosen = loader?.trim() || (loaders.find((l) => l.stable) ?? loaders[0])?.version;
    if (!chosen) throw new UpstreamError(FABRIC, `${this.root()}/loader/${gameVersion}`, `it lists no Fabric loader for Minecraft ${gameVersion}`, 404);
    if (loader?.trim() && !loaders.some((l) => l.version === chosen)) {
      throw new UpstreamError(FABRIC, `${this.root()}/loader/${gameVersion}`, `it lists no Fabric loader ${chosen} for Minecraft ${gameVersion}`, 404);
    }
    const installers = await this.http.json(FABRIC, `${this.root()}/installer`, InstallersSchema);
    const installer = (installers.find((i) => i.stable) ?? installers[0])?.version;
    if (!installer) throw new UpstreamError(FABRIC, `${this.root()}/installer`, 'it lists no Fabric installer', 404);
    const e = encodeURIComponent;
    return {
      upstream: FABRIC,
      url: `${this.root()}/loader/${e(gameVersion)}/${e(chosen)}/${e(installer)}/server/jar`,
      label: `Fabric server for Minecraft ${gameVersion}, loader ${chosen}, installer ${installer}`,
      checksum: null,
    };
  }
}
