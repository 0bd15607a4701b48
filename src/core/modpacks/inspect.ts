import { ApiError } from '../../errors';
import type { SoftwareName } from '../software/kinds';
import { CURSEFORGE_MANIFEST, planCurseForge } from './curseforge-manifest';
import { MAX_INDEX_BYTES } from './limits';
import { MRPACK_INDEX, MRPACK_LAYERS, planMrpack, type PlannedDownload, type Skipped } from './mrpack';
import type { PackArchive } from './pack-archive';
import { detectServerPack } from './server-pack';

export type PackKind = 'mrpack' | 'curseforge' | 'server';

/** What a pack is and runs on, as far as the pack itself says. */
export interface PackFacts {
  kind: PackKind;
  name: string;
  version: string;
  /** Null when a server pack does not show it (the caller must then be told). */
  gameVersion: string | null;
  software: SoftwareName | null;
  loaderVersion: string;
}

/** A pack read and checked, before anything is downloaded or unpacked. */
export interface Inspection {
  facts: PackFacts;
  /** `.mrpack` files to download (client-only ones already skipped). */
  downloads: PlannedDownload[];
  /** CurseForge files to resolve through the API and download. */
  curseforgeFiles: { projectID: number; fileID: number }[];
  /** Folders of the archive unpacked into the server directory, in order (later ones win). */
  layers: string[];
  skipped: Skipped[];
  /**
   * Files the pack lists and how many of them a server takes: for a `.mrpack`, its index
   * entries and the ones not client-only; for a CurseForge pack, its manifest files and the
   * required ones (client-only ones are only known once resolved); for a server pack, the jars
   * in its mods/ folder (both).
   */
  counts: { total: number; server: number };
}

/**
 * Tells the three kinds apart by what the archive holds: `modrinth.index.json` (a `.mrpack`),
 * `manifest.json` (a CurseForge pack), else a server directory (a server pack). Anything else
 * is MODPACK_INVALID. Only the index or manifest is read; nothing is written.
 */
export async function inspectPack(archive: PackArchive, allowedHosts: ReadonlySet<string>): Promise<Inspection> {
  if (archive.has(MRPACK_INDEX)) {
    const plan = planMrpack(await archive.readJson(MRPACK_INDEX, MAX_INDEX_BYTES), allowedHosts);
    return {
      facts: { kind: 'mrpack', name: plan.name, version: plan.version, gameVersion: plan.gameVersion, ...plan.loader },
      downloads: plan.downloads,
      curseforgeFiles: [],
      layers: [...MRPACK_LAYERS],
      skipped: plan.skipped,
      counts: { total: plan.downloads.length + plan.skipped.length, server: plan.downloads.length },
    };
  }
  const server = detectServerPack(archive.files.map((f) => f.name));
  if (archive.has(CURSEFORGE_MANIFEST)) {
    try {
      const plan = planCurseForge(await archive.readJson(CURSEFORGE_MANIFEST, MAX_INDEX_BYTES));
      const skipped = plan.optional > 0 ? [{ path: CURSEFORGE_MANIFEST, reason: `${plan.optional} file(s) the pack marks as not required were left out` }] : [];
      return {
        facts: { kind: 'curseforge', name: plan.name, version: plan.version, gameVersion: plan.gameVersion, ...plan.loader },
        downloads: [],
        curseforgeFiles: plan.files,
        layers: [plan.overrides],
        skipped,
        counts: { total: plan.files.length + plan.optional, server: plan.files.length },
      };
    } catch (error) {
      // A server directory may hold some other manifest.json of its own.
      if (!server || !(error instanceof ApiError)) throw error;
    }
  }
  if (server) {
    const mods = `${server.prefix}mods/`;
    const jars = archive.files.filter((f) => f.name.startsWith(mods) && f.name.toLowerCase().endsWith('.jar')).length;
    return {
      facts: { kind: 'server', name: server.prefix.replace(/\/$/, '') || 'server pack', version: '', gameVersion: server.gameVersion, software: server.software, loaderVersion: server.loaderVersion },
      downloads: [],
      curseforgeFiles: [],
      layers: [server.prefix],
      skipped: [],
      counts: { total: jars, server: jars },
    };
  }
  throw new ApiError(
    'MODPACK_INVALID',
    `not a modpack: the archive has no ${MRPACK_INDEX} (Modrinth), no ${CURSEFORGE_MANIFEST} (CurseForge) and is no server directory (no mods/ folder or server jar at its top)`,
  );
}
