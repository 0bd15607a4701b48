import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../../errors';
import type { CurseForgeSource } from './curseforge-source';
import { download } from './download';
import { MAX_PACK_BYTES, type ArchiveLimits } from './limits';
import type { ResolveAnswer, ResolveBody } from './model';
import type { ModrinthSource } from './modrinth-source';
import { packRefOf, type NamedPack } from './pack-ref';
import { summaryOfListing, summaryOfPack, type PackSummary } from './pack-summary';
import { preparePack } from './prepare';
import type { PackProject, PackSource, PackSourceName } from './source';

export interface LookupDeps {
  modrinth: ModrinthSource;
  curseforge: CurseForgeSource;
  /** Scratch space for the pack files a look-up reads (removed after each). */
  workDir: string;
  downloadTimeoutMs: () => number;
  allowedHosts: () => Set<string>;
  limits: () => ArchiveLimits;
}

/**
 * Finding packs on the two hosts: a project by what a request names (pack-ref.ts), and the
 * look-up POST /api/modpacks/resolve answers, which also reads the pack file of the chosen
 * version (downloaded, hash-checked and judged as an import would) within a time budget.
 */
export class PackLookup {
  constructor(private readonly deps: LookupDeps) {}

  sourceOf(name: PackSourceName): PackSource {
    return name === 'modrinth' ? this.deps.modrinth : this.deps.curseforge;
  }

  /**
   * The project `ref` names. PACKHOST_API_KEY_MISSING for CurseForge without a key, before any
   * request. A bare name Modrinth does not know is looked up on CurseForge when a key is set.
   */
  async findProject(ref: NamedPack, signal?: AbortSignal): Promise<PackProject> {
    const { curseforge } = this.deps;
    if (ref.source === 'curseforge') curseforge.requireKey();
    try {
      return await this.sourceOf(ref.source).project(ref.project, signal);
    } catch (error) {
      if (!ref.guessed || !curseforge.hasKey() || !(error instanceof ApiError) || error.errorCode !== 'MODPACK_NOT_FOUND') throw error;
      return await curseforge.project(ref.project, signal).catch((second: unknown) => {
        if (second instanceof ApiError && second.errorCode === 'MODPACK_NOT_FOUND') {
          throw new ApiError('MODPACK_NOT_FOUND', `neither Modrinth nor CurseForge has a modpack "${ref.project}" (${error.message}; ${second.message})`);
        }
        throw second;
      });
    }
  }

  /**
   * The answer of POST /api/modpacks/resolve. The pack file is read when it can be within
   * `budgetMs`; a pack that turns out unusable is refused now (MODPACK_INVALID), as its import
   * would be. Host trouble or the budget running out leaves the listing to answer alone.
   */
  async resolve(body: ResolveBody, budgetMs: number): Promise<ResolveAnswer> {
    const deadline = performance.now() + budgetMs;
    const ref = packRefOf(body);
    const project = await this.findProject(ref);
    const chosen = ref.version === undefined ? project.versions[0] : project.versions.find((v) => v.id === ref.version || v.name === ref.version);
    if (ref.version !== undefined && !chosen) throw new ApiError('MODPACK_NOT_FOUND', `${project.name} has no version "${ref.version}"`);
    const read = chosen ? await this.inspect(project, chosen.id, deadline - performance.now()) : { summary: null, note: `${project.name} has no published version` };
    return {
      success: true,
      ...(read.summary ?? summaryOfListing(project.source, chosen)),
      host: project.source,
      projectId: project.projectId,
      slug: project.slug,
      name: project.name,
      summary: project.summary,
      inspected: read.summary !== null,
      ...(read.note === undefined ? {} : { note: read.note }),
      gameVersion: chosen?.gameVersions[0] ?? null,
      loader: chosen?.loaders[0] ?? null,
      versions: project.versions.slice(0, 50),
    };
  }

  /** Downloads one version's pack file to scratch space and judges it; the file is removed after. */
  private async inspect(project: PackProject, versionId: string, budgetMs: number): Promise<{ summary: PackSummary | null; note?: string }> {
    const seconds = Math.round(budgetMs / 1000);
    if (budgetMs <= 0) return { summary: null, note: 'the pack file was not read: the look-up took the whole time budget' };
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), budgetMs);
    const work = join(this.deps.workDir, `resolve-${randomBytes(8).toString('hex')}`);
    try {
      await mkdir(work, { recursive: true });
      const { file } = await this.sourceOf(project.source).packFile(project, versionId, abort.signal);
      const path = join(work, 'pack.zip');
      await download(file, path, { timeoutMs: Math.min(budgetMs, this.deps.downloadTimeoutMs()), maxBytes: MAX_PACK_BYTES, signal: abort.signal });
      const prepared = await preparePack(path, {}, { limits: this.deps.limits(), allowedHosts: this.deps.allowedHosts(), curseforge: this.deps.curseforge });
      try {
        return { summary: summaryOfPack(prepared) };
      } finally {
        await prepared.archive.close();
      }
    } catch (error) {
      if (error instanceof ApiError && error.errorCode === 'MODPACK_INVALID') throw error;
      if (abort.signal.aborted) return { summary: null, note: `the pack file was not read within ${seconds} s (a large pack); its files are counted when it is imported` };
      if (error instanceof ApiError) return { summary: null, note: `the pack file was not read: ${error.message}` };
      throw error;
    } finally {
      clearTimeout(timer);
      await rm(work, { recursive: true, force: true });
    }
  }
}
