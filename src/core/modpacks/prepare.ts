import { ApiError } from '../../errors';
import type { CurseForgeSource } from './curseforge-source';
import { inspectPack, type Inspection } from './inspect';
import type { ArchiveLimits } from './limits';
import { PackArchive } from './pack-archive';
import { runtimeOf, type Runtime, type RuntimeOverrides } from './runtime';

/** A pack opened and judged: ready to be assembled. The caller closes the archive. */
export interface PreparedPack {
  archive: PackArchive;
  inspection: Inspection;
  runtime: Runtime;
}

export interface PrepareDeps {
  limits: ArchiveLimits;
  allowedHosts: ReadonlySet<string>;
  curseforge: CurseForgeSource;
}

/**
 * Everything that can be said about a pack without downloading or unpacking it: a readable
 * zip within the limits, of a known kind, a runtime svc can start, the CurseForge key present
 * when its files must be resolved, and what it lists within the size limit. Quick even for
 * a 1 GB pack (only the central directory and the index are read), so it runs before an
 * upload is accepted.
 */
export async function preparePack(path: string | readonly string[], overrides: RuntimeOverrides, deps: PrepareDeps, fallback: RuntimeOverrides = {}): Promise<PreparedPack> {
  const archive = await PackArchive.open(path, deps.limits);
  try {
    const inspection = await inspectPack(archive, deps.allowedHosts);
    const { facts } = inspection;
    // What the pack does not show, the fallback (an existing service's config) fills in.
    const runtime = runtimeOf({ ...facts, software: facts.software ?? fallback.software ?? null, gameVersion: facts.gameVersion ?? fallback.version ?? null }, overrides);
    if (inspection.curseforgeFiles.length > 0) deps.curseforge.requireKey();
    const listed = inspection.downloads.reduce((sum, d) => sum + (d.file.size ?? 0), 0);
    if (listed > deps.limits.maxUnpackedBytes) {
      throw new ApiError('MODPACK_INVALID', `the pack lists ${listed} bytes of files to download, over the limit of ${deps.limits.maxUnpackedBytes} bytes`);
    }
    return { archive, inspection, runtime };
  } catch (error) {
    await archive.close();
    throw error;
  }
}
