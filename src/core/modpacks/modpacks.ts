import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config/schema';
import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Paths } from '../../config/paths';
import type { Logger } from '../../log';
import type { DedicatedStore } from '../dedicated/store';
import type { GroupStore } from '../groups/store';
import { ACTIVE_STATES } from '../services/lifecycle';
import type { ServiceRegistry } from '../services/registry';
import { assemble } from './assemble';
import { ChunkedUploads, type ClaimedUpload, type UploadTarget, type UploadView } from './chunked-uploads';
import { CurseForgeSource } from './curseforge-source';
import { download } from './download';
import { checkDedicatedTarget, installIntoDedicated, installNewDedicated, type DedicatedInstallDeps } from './install-dedicated';
import { checkGroupTarget, installGroup } from './install-group';
import { GroupChanges } from '../groups/changes';
import { DedicatedChanges } from '../dedicated/changes';
import { ImportJobs, type JobView } from './jobs';
import {
  ANSWER_WITHIN_MS,
  DEFAULT_ARCHIVE_LIMITS,
  DOWNLOAD_CONCURRENCY,
  JOB_RETENTION_MS,
  MAX_CHUNK_BYTES,
  MAX_PACK_BYTES,
  RESOLVE_INSPECT_MS,
  UPLOAD_TTL_MS,
  type ArchiveLimits,
} from './limits';
import { PackLookup } from './lookup';
import type { Accepted, DedicatedFinalizeBody, FinalizeBody, ImportBody, ImportResult, ResolveAnswer, ResolveBody } from './model';
import { ModrinthSource } from './modrinth-source';
import { FORMAT_DOWNLOAD_HOSTS, hostOf } from './mrpack';
import { packRefOfImport, type NamedPack } from './pack-ref';
import { preparePack, type PreparedPack } from './prepare';
import { diskError, receiveToFile } from './receive-body';
import type { RuntimeOverrides } from './runtime';
import type { PackSourceName } from './source';
import { targetName, type ModpackTarget as Target } from './targets';

export interface ModpacksDeps {
  config: Config;
  paths: Paths;
  groups: GroupStore;
  dedicated: DedicatedStore;
  services: ServiceRegistry;
  bus: EventBus;
  log: Logger;
  /** Default UPLOAD_TTL_MS. */
  uploadTtlMs?: number;
}

/** What an import route answers: the outcome when the job ended in time, else 202 and the job. */
export type ImportAnswer = { status: 200 | 201; body: ImportResult } | { status: 202; body: Accepted };

/** A pack a request names: by id on a host, or the pack's own text in `source` (see packRefOfImport). */
export type PackRequest = Pick<ImportBody, 'source' | 'projectId' | 'slug' | 'versionId'>;
type PackOrigin = PackSourceName | 'upload';

/** Folders a job builds in, beside where they end up (a rename moves them): removed at start. */
const STAGE_PREFIX = '.modpack-import-';
const MAX_SKIPPED_LISTED = 500;

/**
 * Modpack imports: look-ups on the two hosts, imports by id or from an upload (one-shot or
 * chunked), into a new group, a new dedicated service or an existing dedicated directory.
 *
 * Every import is a job (see ImportJobs): the pack is judged first (quickly, before an upload
 * is accepted), then built in a staging folder beside its destination, files downloaded and
 * hash-checked, archive folders unpacked, and only then moved into place and registered. A
 * failure at any point leaves nothing: no group file, no template, no directory.
 */
export class Modpacks {
  readonly uploads: ChunkedUploads;
  /** Tests shorten the time an import is waited for before 202, a look-up reads its pack, and the archive limits. */
  readonly tuning: { answerWithinMs: number; resolveWithinMs: number; limits: ArchiveLimits } = {
    answerWithinMs: ANSWER_WITHIN_MS,
    resolveWithinMs: RESOLVE_INSPECT_MS,
    limits: { ...DEFAULT_ARCHIVE_LIMITS },
  };
  private readonly jobs: ImportJobs<ImportResult>;
  private readonly curseforge: CurseForgeSource;
  private readonly lookup: PackLookup;
  private readonly workDir: string;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly deps: ModpacksDeps) {
    const { config, paths, log } = deps;
    this.workDir = join(paths.data, 'modpacks', 'work');
    const ttlMs = deps.uploadTtlMs ?? UPLOAD_TTL_MS;
    this.uploads = new ChunkedUploads({ dir: join(paths.data, 'modpacks', 'uploads'), ttlMs, maxBytes: MAX_PACK_BYTES, maxChunkBytes: MAX_CHUNK_BYTES });
    this.jobs = new ImportJobs(JOB_RETENTION_MS, (error, view) => log.error({ err: error, job: view.jobId }, `modpack import for ${view.target} ${view.name} failed unexpectedly`));
    this.curseforge = new CurseForgeSource(
      () => config.software.curseforge_url,
      () => config.packhost.api_key,
    );
    this.lookup = new PackLookup({
      modrinth: new ModrinthSource(() => config.software.modrinth_url),
      curseforge: this.curseforge,
      workDir: this.workDir,
      downloadTimeoutMs: () => config.software.download_timeout * 1000,
      allowedHosts: () => this.allowedHosts(),
      limits: () => this.tuning.limits,
    });
  }

  /** Clears what an earlier run left (uploads do not survive a restart; half-built stages are removed) and starts expiring idle uploads. */
  start(): void {
    const { paths, log } = this.deps;
    this.uploads.reset();
    rmSync(this.workDir, { recursive: true, force: true });
    mkdirSync(this.workDir, { recursive: true });
    for (const root of [paths.templates, paths.dedicated]) {
      for (const entry of readdirSync(root)) if (entry.startsWith(STAGE_PREFIX)) rmSync(join(root, entry), { recursive: true, force: true });
    }
    const ttl = this.deps.uploadTtlMs ?? UPLOAD_TTL_MS;
    this.sweeper = setInterval(
      () => {
        this.uploads.sweep().then(
          (removed) => removed > 0 && log.info({ area: 'modpacks', removed }, 'removed abandoned chunked uploads'),
          (error: unknown) => log.warn({ area: 'modpacks', err: error }, 'sweeping chunked uploads failed'),
        );
      },
      Math.max(1000, Math.min(ttl / 4, 5 * 60_000)),
    );
    this.sweeper.unref();
  }

  /** Stops expiring uploads and aborts running imports (each removes its staging folder). */
  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.jobs.stop(5000);
  }

  // ---------------------------------------------------------------------------------------
  // Look-ups

  /** POST /api/modpacks/resolve: the host's listing, and the chosen version's pack file read when time allows (see PackLookup). */
  resolve(body: ResolveBody): Promise<ResolveAnswer> {
    return this.lookup.resolve(body, this.tuning.resolveWithinMs);
  }

  job(id: string): JobView<ImportResult> {
    const job = this.jobs.get(id);
    if (!job) throw new ApiError('MODPACK_NOT_FOUND', `no import job ${id} (unknown, or finished more than an hour ago)`);
    return job;
  }

  // ---------------------------------------------------------------------------------------
  // Imports by id

  /**
   * A pack named by id on a host (or by its own text in `source`) into `target`: POST
   * /api/modpacks/import (a new group), /api/dedicated/modpack/import (a new dedicated service)
   * and /api/dedicated/{name}/modpack/import (an existing one) are this one call.
   */
  async importFromHost(pack: PackRequest, target: Target, actor: Actor): Promise<ImportAnswer> {
    const ref = packRefOfImport(pack);
    this.checkTarget(target);
    return this.startSourceJob(ref, target, actor);
  }

  // ---------------------------------------------------------------------------------------
  // Uploads

  /** One-shot upload (raw body) into a new group, a new dedicated service or an existing one. */
  async upload(request: Request, target: Target, overrides: RuntimeOverrides, actor: Actor): Promise<ImportAnswer> {
    this.checkTarget(target);
    const path = join(this.workDir, `upload-${randomBytes(8).toString('hex')}.zip`);
    await mkdir(this.workDir, { recursive: true });
    await receiveToFile(request, path, MAX_PACK_BYTES);
    let prepared: PreparedPack;
    try {
      prepared = await this.prepare(path, target, overrides);
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return this.startArchiveJob(prepared, target, 'upload', actor, () => rm(path, { force: true }));
  }

  /** A chunked upload for `target`, or (null) for whichever finalize claims it. */
  async startUpload(target: UploadTarget | null, filename: string, expectedBytes: number | null, expectedChunks: number | null = null): Promise<UploadView> {
    return this.uploads.init(target, filename, expectedBytes, expectedChunks);
  }

  /** Finalizes a chunked upload; the upload is kept (to finalize again) when the pack or the parameters are refused. */
  async finalize(body: FinalizeBody | DedicatedFinalizeBody, target: Target, actor: Actor): Promise<ImportAnswer> {
    const claimed: ClaimedUpload = this.uploads.claim(body.uploadId, target.kind === 'group' ? 'group' : 'dedicated');
    let prepared: PreparedPack;
    try {
      this.checkTarget(target);
      const overrides = { software: body.software, version: body.version, modloaderVersion: 'modloaderVersion' in body ? body.modloaderVersion : undefined };
      prepared = await this.prepare(claimed.parts, target, overrides);
    } catch (error) {
      claimed.release();
      throw error;
    }
    const { dir } = claimed.take();
    return this.startArchiveJob(prepared, target, 'upload', actor, () => rm(dir, { recursive: true, force: true }));
  }

  // ---------------------------------------------------------------------------------------

  /** Refusals that need no pack: a taken name, an unknown or running service, an import of the same name under way. */
  private checkTarget(target: Target): void {
    const { groups, dedicated, paths } = this.deps;
    if (target.kind === 'group') {
      checkGroupTarget(target.group, { groups, dedicated, templatesRoot: paths.templates });
      this.jobs.refuseConcurrent('group', target.group.groupName);
    } else if (target.kind === 'dedicated') {
      checkDedicatedTarget(target.dedicated, { groups, dedicated });
      this.jobs.refuseConcurrent('dedicated', target.dedicated.name);
    } else {
      dedicated.require(target.name);
      this.refuseRunning(target.name);
      this.jobs.refuseConcurrent('dedicated-update', target.name);
    }
  }

  private refuseRunning(name: string): void {
    const record = this.deps.services.get(name);
    if (record?.isDedicated && ACTIVE_STATES.has(record.state)) throw new ApiError('DEDICATED_ALREADY_RUNNING', `dedicated service ${name} is ${record.state}: stop it before importing a modpack into it`);
  }

  private prepare(path: string | readonly string[], target: Target, overrides: RuntimeOverrides): Promise<PreparedPack> {
    const existing = target.kind === 'dedicated-update' ? this.deps.dedicated.require(target.name) : null;
    const fallback: RuntimeOverrides = existing ? { software: existing.software, version: existing.version } : {};
    return preparePack(path, overrides, { limits: this.tuning.limits, allowedHosts: this.allowedHosts(), curseforge: this.curseforge }, fallback);
  }

  /** The hosts the `.mrpack` format allows downloads from, and the configured Modrinth base (a mirror or a test fake). */
  private allowedHosts(): Set<string> {
    const hosts = new Set<string>(FORMAT_DOWNLOAD_HOSTS);
    const own = hostOf(this.deps.config.software.modrinth_url);
    if (own) hosts.add(own);
    return hosts;
  }

  private async startSourceJob(ref: NamedPack, target: Target, actor: Actor): Promise<ImportAnswer> {
    if (ref.source === 'curseforge') this.curseforge.requireKey();
    const view = this.jobs.start(target.kind, targetName(target), async ({ jobId, signal }) => {
      const work = join(this.workDir, jobId);
      await mkdir(work, { recursive: true });
      try {
        const found = await this.lookup.findProject(ref, signal);
        const { file } = await this.lookup.sourceOf(found.source).packFile(found, ref.version, signal);
        const packPath = join(work, 'pack.zip');
        await download(file, packPath, { timeoutMs: this.deps.config.software.download_timeout * 1000, maxBytes: MAX_PACK_BYTES, signal }).catch((error: unknown) => {
          throw diskError(error);
        });
        const prepared = await this.prepare(packPath, target, {});
        return await this.build(jobId, prepared, target, found.source, actor, signal);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    });
    return this.answer(view.jobId, target.kind === 'dedicated-update' ? 200 : 201);
  }

  private async startArchiveJob(prepared: PreparedPack, target: Target, origin: PackOrigin, actor: Actor, cleanup: () => Promise<void>): Promise<ImportAnswer> {
    let view: JobView<ImportResult>;
    try {
      view = this.jobs.start(target.kind, targetName(target), async ({ jobId, signal }) => {
        try {
          return await this.build(jobId, prepared, target, origin, actor, signal);
        } finally {
          await cleanup();
        }
      });
    } catch (error) {
      await prepared.archive.close();
      await cleanup();
      throw error;
    }
    return this.answer(view.jobId, target.kind === 'dedicated-update' ? 200 : 201);
  }

  /** Assembles a prepared pack beside its destination, then installs it there. */
  private async build(jobId: string, prepared: PreparedPack, target: Target, origin: PackOrigin, actor: Actor, signal: AbortSignal): Promise<ImportResult> {
    const { paths, groups, dedicated, bus, log, config } = this.deps;
    const stage = join(target.kind === 'group' ? paths.templates : paths.dedicated, `${STAGE_PREFIX}${jobId}`);
    try {
      const started = performance.now();
      const report = await assemble(prepared.archive, prepared.inspection, stage, {
        curseforge: this.curseforge,
        timeoutMs: config.software.download_timeout * 1000,
        maxFileBytes: MAX_PACK_BYTES,
        concurrency: DOWNLOAD_CONCURRENCY,
        signal,
      }).catch((error: unknown) => {
        throw diskError(error);
      });
      signal.throwIfAborted();
      const assembled = performance.now();
      /** Where the time went, for the log: building the directory, then moving it in and registering it. */
      const took = () => ({ assembleMs: Math.round(assembled - started), installMs: Math.round(performance.now() - assembled) });
      const { facts } = prepared.inspection;
      const { runtime } = prepared;
      const base = {
        success: true as const,
        jobId,
        groupName: targetName(target),
        filesDownloaded: report.downloaded,
        filesFailed: 0,
        pack: { source: origin, kind: facts.kind, name: facts.name, version: facts.version, gameVersion: runtime.version, software: runtime.software, loaderVersion: runtime.modloaderVersion },
        files: { downloaded: report.downloaded, downloadedBytes: report.downloadedBytes, extracted: report.extracted, skipped: report.skipped.slice(0, MAX_SKIPPED_LISTED) },
      };
      const counts = `${report.downloaded} file(s) downloaded, ${report.extracted} unpacked, ${report.skipped.length} skipped`;
      const packName = `${facts.name}${facts.version ? ` ${facts.version}` : ''}`;
      if (target.kind === 'group') {
        const changes = new GroupChanges({ groups, bus, dedicated });
        const group = await installGroup(stage, target.group, runtime, { groups, dedicated, templatesRoot: paths.templates, create: (body) => changes.create(body, actor) });
        log.info({ area: 'modpacks', group: group.name, job: jobId, ...took() }, `group ${group.name} created from modpack ${packName}: ${counts}`);
        return { ...base, message: `group ${group.name} created from ${packName} (${runtime.software} ${runtime.version}): ${counts}`, group };
      }
      // A dedicated config is written, and a new one announced, through DedicatedChanges.
      const changes = new DedicatedChanges({ dedicated, bus });
      const installDeps: DedicatedInstallDeps = { groups, dedicated, create: (body) => changes.create(body, actor), update: (name, patch) => changes.update(name, patch) };
      if (target.kind === 'dedicated') {
        const created = await installNewDedicated(stage, target.dedicated, runtime, installDeps);
        log.info({ area: 'modpacks', dedicated: created.name, job: jobId, ...took() }, `dedicated service ${created.name} created from modpack ${packName}: ${counts}`);
        const directory = dedicated.directoryOf(created.name);
        return { ...base, message: `dedicated service ${created.name} created in ${directory} from ${packName}: ${counts}`, dedicated: { ...created, directory, configUpdated: false } };
      }
      this.refuseRunning(target.name);
      const done = await installIntoDedicated(stage, target.name, runtime, target.replaceMods, installDeps);
      const directory = dedicated.directoryOf(target.name);
      log.info({ area: 'modpacks', dedicated: target.name, job: jobId, ...took() }, `modpack ${packName} laid into ${directory}: ${counts}`);
      return {
        ...base,
        files: { ...base.files, skipped: [...base.files.skipped, ...done.skipped].slice(0, MAX_SKIPPED_LISTED) },
        message: `${packName} installed into ${directory}${done.configUpdated ? ` (config now ${runtime.software} ${runtime.version})` : ''}: ${counts}`,
        dedicated: { ...done.config, directory, configUpdated: done.configUpdated },
      };
    } finally {
      await prepared.archive.close();
      await rm(stage, { recursive: true, force: true });
    }
  }

  private async answer(jobId: string, okStatus: 200 | 201): Promise<ImportAnswer> {
    const result = await this.jobs.settle(jobId, this.tuning.answerWithinMs);
    if (result) return { status: okStatus, body: result };
    const poll = `/api/modpacks/jobs/${jobId}`;
    return {
      status: 202,
      body: { success: true, message: `the import goes on in the background; poll GET ${poll} (or the group or dedicated list, where it appears once complete)`, jobId, state: 'running', poll },
    };
  }
}

