import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { relPathProblem } from '../files/rel-path';
import { ApiError } from '../../errors';
import type { CurseForgeFile, CurseForgeSource } from './curseforge-source';
import { download } from './download';
import { eachLimited } from './each-limited';
import type { Inspection } from './inspect';
import type { Skipped } from './mrpack';
import type { PackArchive } from './pack-archive';

export interface AssembleOptions {
  curseforge: CurseForgeSource;
  /** Per download (`[software] download_timeout`). */
  timeoutMs: number;
  /** Largest single download. */
  maxFileBytes: number;
  concurrency: number;
  signal?: AbortSignal;
}

export interface AssembleReport {
  downloaded: number;
  downloadedBytes: number;
  extracted: number;
  skipped: Skipped[];
}

/**
 * Builds the server directory of an inspected pack in `stage` (a fresh folder): the files it
 * lists downloaded and hash-checked, then its folders unpacked over them (overrides, then
 * server overrides). Any failure leaves `stage` half built: the caller removes it.
 */
export async function assemble(archive: PackArchive, inspection: Inspection, stage: string, options: AssembleOptions): Promise<AssembleReport> {
  await mkdir(stage, { recursive: true });
  const skipped = [...inspection.skipped];
  let downloadedBytes = 0;
  const fetchTo = async (path: string, file: Parameters<typeof download>[0], signal: AbortSignal) => {
    const dest = join(stage, ...path.split('/'));
    await mkdir(dirname(dest), { recursive: true });
    downloadedBytes += await download(file, dest, { timeoutMs: options.timeoutMs, maxBytes: options.maxFileBytes, signal });
  };

  await eachLimited(inspection.downloads, options.concurrency, (planned, signal) => fetchTo(planned.path, planned.file, signal), options.signal);

  // Two projects may ship a jar of the same name: the first one listed keeps it.
  const curseforgePaths = new Set<string>();
  await eachLimited(
    inspection.curseforgeFiles,
    options.concurrency,
    async ({ projectID, fileID }, signal) => {
      const file = await options.curseforge.modFile(projectID, fileID, signal);
      if (!file) throw new ApiError('MODPACK_INVALID', `manifest.json lists project ${projectID} file ${fileID}, which CurseForge does not know`);
      const why = serverSkipReason(file);
      if (why) return void skipped.push({ path: `mods/${file.fileName}`, reason: why });
      const problem = file.fileName.includes('/') ? 'the name contains a slash' : relPathProblem(file.fileName);
      if (problem) throw new ApiError('MODPACK_INVALID', `CurseForge names project ${projectID} file ${fileID} ${JSON.stringify(file.fileName.slice(0, 200))}: ${problem}`);
      if (curseforgePaths.has(`mods/${file.fileName}`)) return void skipped.push({ path: `mods/${file.fileName}`, reason: `another listed file has the same name (project ${projectID})` });
      curseforgePaths.add(`mods/${file.fileName}`);
      await fetchTo(`mods/${file.fileName}`, await options.curseforge.expected(file, `mods/${file.fileName}`, signal), signal);
    },
    options.signal,
  );

  let extracted = 0;
  for (const layer of inspection.layers) extracted += await archive.extract(archive.filesUnder(layer), stage, options.signal);
  return { downloaded: inspection.downloads.length + curseforgePaths.size, downloadedBytes, extracted, skipped };
}

/**
 * Why a file a CurseForge pack lists does not belong on a server, or null. CurseForge tags
 * files with the environments they run in ("Client", "Server") among their game versions; a
 * file tagged for the client only is left out, as are files that are not mod jars (resource
 * and shader packs: the client's business).
 */
function serverSkipReason(file: CurseForgeFile): string | null {
  const tags = new Set(file.gameVersions.map((v) => v.toLowerCase()));
  if (tags.has('client') && !tags.has('server')) return 'client-only (CurseForge tags it Client, not Server)';
  if (!file.fileName.toLowerCase().endsWith('.jar')) return 'not a mod jar (a resource or shader pack: client-side)';
  return null;
}
