import type { PackKind } from './inspect';
import type { PreparedPack } from './prepare';
import type { PackSourceName, PackVersion } from './source';

/** What kind of pack a look-up found, in the dashboard's words (the reference's ModpackSource). */
export const CLIENT_PACK_SOURCES = ['MODRINTH', 'CURSEFORGE_API', 'SERVER_PACK'] as const;
export type ClientPackSource = (typeof CLIENT_PACK_SOURCES)[number];

const BY_KIND: Record<PackKind, ClientPackSource> = { mrpack: 'MODRINTH', curseforge: 'CURSEFORGE_API', server: 'SERVER_PACK' };
const BY_HOST: Record<PackSourceName, ClientPackSource> = { modrinth: 'MODRINTH', curseforge: 'CURSEFORGE_API' };
const SOFTWARE_OF_LOADER: Record<string, string> = { fabric: 'FABRIC', forge: 'FORGE', neoforge: 'NEOFORGE', quilt: 'QUILT' };

/** The dashboard's ModpackInfo fields of a resolve answer (besides name). */
export interface PackSummary {
  source: ClientPackSource;
  version: string;
  mcVersion: string;
  /** The software a group or service runs it on: FABRIC, FORGE or NEOFORGE ('' when unknown). */
  modloader: string;
  modloaderVersion: string;
  /** Null when the pack file itself was not read (see `inspected`). */
  totalFiles: number | null;
  serverFiles: number | null;
}

/** From the pack file itself, as an import would judge it. */
export function summaryOfPack(prepared: PreparedPack): PackSummary {
  const { facts, counts } = prepared.inspection;
  const { runtime } = prepared;
  return {
    source: BY_KIND[facts.kind],
    version: facts.version,
    mcVersion: runtime.version,
    modloader: runtime.software,
    modloaderVersion: runtime.modloaderVersion,
    totalFiles: counts.total,
    serverFiles: counts.server,
  };
}

/** From what the host lists about the version alone, when its pack file could not be read. */
export function summaryOfListing(host: PackSourceName, version: PackVersion | undefined): PackSummary {
  const loader = version?.loaders[0];
  return {
    source: BY_HOST[host],
    version: version?.name ?? '',
    mcVersion: version?.gameVersions[0] ?? '',
    modloader: loader ? (SOFTWARE_OF_LOADER[loader] ?? loader.toUpperCase()) : '',
    modloaderVersion: '',
    totalFiles: null,
    serverFiles: null,
  };
}
