import type { SoftwareName } from './kinds';
import type { RemoteFile } from './upstream/model';
import type { Upstreams } from './upstream/upstreams';

/**
 * Kinds whose server jar svc fetches on start. FORGE and NEOFORGE are not among them: their
 * servers come from running the loader's installer (`--installServer`, with the group's Java),
 * which writes `libraries/` and the argument files; server-installs.ts does that on start
 * (installer-resolver.ts lists those kinds). CUSTOM has nothing to fetch.
 */
export const DOWNLOADABLE_SOFTWARE = ['PAPER', 'PURPUR', 'FOLIA', 'PUFFERFISH', 'LEAF', 'VELOCITY', 'FABRIC'] as const satisfies readonly SoftwareName[];
export type DownloadableSoftware = (typeof DOWNLOADABLE_SOFTWARE)[number];

export function isDownloadable(software: SoftwareName): software is DownloadableSoftware {
  return (DOWNLOADABLE_SOFTWARE as readonly string[]).includes(software);
}

/**
 * Which file to fetch for a group's software and version: the newest (stable) build of exactly
 * that version; for Fabric the server launcher with the group's loader version (newest stable
 * when blank). Throws UpstreamError.
 */
export function resolveServerJar(up: Upstreams, software: DownloadableSoftware, version: string, modloaderVersion: string): Promise<RemoteFile> {
  switch (software) {
    case 'PAPER':
      return up.papermc.latestBuild('paper', version);
    case 'FOLIA':
      return up.papermc.latestBuild('folia', version);
    case 'VELOCITY':
      return up.papermc.latestBuild('velocity', version);
    case 'PURPUR':
      return up.purpur.latestBuild(version);
    case 'PUFFERFISH':
      return up.pufferfish.latestBuild(version);
    case 'LEAF':
      return up.leaf.latestBuild(version);
    case 'FABRIC':
      return up.fabric.serverJar(version, modloaderVersion);
  }
}
