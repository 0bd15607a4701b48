import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ApiError } from '../../errors';
import type { Actor } from '../../events/catalogue';
import type { BackupKernel } from './uses';
import type { Logger } from '../../log';
import { LOCAL_NODE } from '../../core/services/registry';
import { RETENTION_CLASSES, type BackupConfig } from './config';
import type { BackupRow, TargetType } from './model';
import { planPrune } from './retention';
import { insideRoots } from './restore-paths';
import { defaultRestorePath, resolveUnits, restoreRoots, typesOf, type BackupUnit } from './sources';
import type { BackupStore } from './store';
import { monotonicNow, type Clock } from '../../core/time/monotonic';

/**
 * The archive writer and the restorer (tar, zstd, node streams, a worker each) load on the first
 * backup, verify or restore, not when the module starts.
 */
const archiveCode = () => import('./archive');
const restoreCode = () => import('./restore');

/** What starts a run. */
export interface RunRequest {
  types: TargetType[];
  single?: string;
  scheduleClass: string;
  scheduleName: string;
  triggeredBy: string;
  actor: Actor;
  /** Leave out targets already being backed up instead of refusing the run (the scheduler: the last run of a slow target is still going). */
  skipBusy?: boolean;
}

/** A simple counting semaphore: at most `limit()` archives at once, re-read on every acquire. */
class Permits {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: () => number) {}

  async acquire(): Promise<void> {
    if (this.active < this.limit()) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
  }

  release(): void {
    this.active--;
    while (this.waiting.length > 0 && this.active < this.limit()) this.waiting.shift()!();
  }
}

const keyOf = (u: Pick<BackupUnit, 'targetType' | 'targetName'>) => `${u.targetType}:${u.targetName.toLowerCase()}`;

/**
 * Runs backups: a trigger stores a RUNNING record per target and answers at once; the archives
 * are made in the background, one target after the other per trigger and at most
 * `maxConcurrent` at a time overall. A target already being backed up is refused
 * (BACKUP_IN_PROGRESS). Events follow each stored change.
 */
export class BackupManager {
  private readonly busy = new Set<string>();
  private readonly permits: Permits;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  private stopped = false;

  constructor(
    private readonly kernel: BackupKernel,
    private readonly store: BackupStore,
    private readonly config: () => BackupConfig,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    /** A run's length (BACKUP_COMPLETED's durationMs) is measured on it; the records keep wall-clock times. */
    private readonly mono: Clock = monotonicNow,
  ) {
    this.permits = new Permits(() => this.config().maxConcurrent);
  }

  /** The archive folder: `localDestination`, relative to the controller's folder unless absolute, read at each use. */
  destination(): string {
    const configured = this.config().localDestination;
    return isAbsolute(configured) ? configured : resolve(this.kernel.dir, configured);
  }

  activeJobs(): number {
    return this.busy.size;
  }

  /** Records of a controller that died mid-run become FAILED, and their temp archives go. */
  recover(): void {
    for (const row of this.store.running()) {
      this.store.finish(row.id, { status: 'FAILED', completedAt: this.now(), sizeBytes: 0, archivePath: '', archiveFile: '', checksum: '', errorMessage: 'the controller stopped while this backup ran' });
    }
    const dir = this.destination();
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.endsWith('.tar.zst.tmp') || name.startsWith('_staging-db-')) rmSync(join(dir, name), { recursive: true, force: true });
    }
  }

  /**
   * Starts a run and answers with its RUNNING records (201 on the route). Overlap with a run
   * still going on any of the same targets is refused before anything is stored.
   */
  trigger(request: RunRequest): BackupRow[] {
    return this.start(request).rows;
  }

  /** As trigger, with the run's end: the records as they finished (the scheduler logs their outcome). */
  start(request: RunRequest): { rows: BackupRow[]; done: Promise<BackupRow[]> } {
    if (this.stopped) throw new ApiError('SERVICE_UNAVAILABLE', 'the controller is stopping');
    const destination = this.destination();
    try {
      mkdirSync(destination, { recursive: true, mode: 0o750 });
    } catch (error) {
      throw new ApiError('SERVICE_UNAVAILABLE', `the backup folder ${destination} cannot be created (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); fix localDestination in backup.toml`);
    }
    const resolved = resolveUnits(this.kernel, request.types, request.single, destination, { includeAuthKey: this.config().includeAuthKey });
    if (resolved.length === 0) throw new ApiError('VALIDATION_FAILED', 'nothing to back up: no target of the asked types exists (is every type out of scope in backup.toml?)');
    const clashing = resolved.filter((u) => this.busy.has(keyOf(u)));
    const units = request.skipBusy ? resolved.filter((u) => !this.busy.has(keyOf(u))) : resolved;
    if (request.skipBusy && clashing.length > 0) this.log.warn({ targets: clashing.map(keyOf) }, 'left out of this run: still being backed up by an earlier one');
    if (clashing.length > 0 && (!request.skipBusy || units.length === 0)) {
      throw new ApiError('BACKUP_IN_PROGRESS', `a backup of ${clashing.map((u) => `${u.targetType.toLowerCase()} ${u.targetName}`).join(', ')} is already running; wait for it to finish`);
    }
    for (const u of units) this.busy.add(keyOf(u));
    const startedMono = this.mono();
    const started = units.map((u) => {
      const row = this.store.start({
        targetType: u.targetType,
        targetName: u.targetName,
        scheduleClass: request.scheduleClass,
        scheduleName: request.scheduleName,
        startedAt: this.now(),
        nodeId: u.nodeId ?? LOCAL_NODE,
        triggeredBy: request.triggeredBy,
      });
      this.kernel.bus.publish('BACKUP_STARTED', { id: String(row.id), targetType: row.targetType, targetName: row.targetName, triggeredBy: row.triggeredBy }, request.actor);
      return { unit: u, row };
    });
    const done = (async () => {
      const ended: BackupRow[] = [];
      for (const { unit, row } of started) {
        try {
          ended.push(await this.runOne(unit, row, request, startedMono));
        } finally {
          this.busy.delete(keyOf(unit));
        }
      }
      return ended;
    })();
    const work = done.then(() => undefined);
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
    return { rows: started.map((s) => s.row), done };
  }

  /** Resolves when every run started so far has ended (tests, the scheduler's status, shutdown). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** At shutdown: running archives are aborted (their records end FAILED, their temp files go). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const abort of this.aborts) abort.abort(new Error('the controller is stopping'));
    await this.settled();
  }

  private async runOne(unit: BackupUnit, row: BackupRow, request: RunRequest, startedMono: number): Promise<BackupRow> {
    const publishCompleted = (ended: BackupRow) =>
      this.kernel.bus.publish(
        'BACKUP_COMPLETED',
        { id: String(ended.id), targetName: ended.targetName, sizeBytes: String(ended.sizeBytes), durationMs: String(Math.max(0, Math.round(this.mono() - startedMono))), status: ended.status },
        request.actor,
      );
    if (unit.skip !== undefined) {
      const ended = this.store.finish(row.id, { status: 'PARTIAL', completedAt: this.now(), sizeBytes: 0, archivePath: '', archiveFile: '', checksum: '', errorMessage: `skipped: ${unit.skip}` })!;
      this.log.info({ backup: row.id, target: `${unit.targetType} ${unit.targetName}`, reason: unit.skip }, 'backup target skipped');
      publishCompleted(ended);
      return ended;
    }
    const abort = new AbortController();
    this.aborts.add(abort);
    await this.permits.acquire();
    const destination = this.destination();
    const { archiveName, createArchive } = await archiveCode();
    const file = join(destination, archiveName(destination, unit.targetType.toLowerCase(), unit.targetName, request.scheduleClass, new Date(this.now())));
    let prepared: { root: string; cleanup: () => void } | undefined;
    let quiesced = false;
    try {
      if (unit.quiesce && this.config().quiesceServices) quiesced = await this.quiesce(unit.quiesce);
      prepared = await unit.prepare?.();
      const root = prepared?.root ?? unit.root!;
      const config = this.config();
      const result = await createArchive(root, file, { level: config.compressionLevel, workers: config.compressionWorkers, excludes: [...config.excludes, ...(unit.excludes ?? [])], signal: abort.signal });
      const ended = this.store.finish(row.id, {
        status: 'SUCCESS',
        completedAt: this.now(),
        sizeBytes: result.sizeBytes,
        archivePath: relative(destination, file),
        archiveFile: file,
        checksum: result.checksum,
        errorMessage: result.skipped > 0 ? `${result.skipped} link(s) or special file(s) not archived` : null,
      })!;
      publishCompleted(ended);
      return ended;
    } catch (error) {
      // The archive folder itself may be what failed (gone, or a file now): cleaning up must not fail the record's ending.
      await rm(file, { force: true }).catch(() => undefined);
      const reason = (error as Error).message || String(error);
      this.log.error({ err: error, backup: row.id, target: `${unit.targetType} ${unit.targetName}` }, 'backup failed');
      const ended = this.store.finish(row.id, { status: 'FAILED', completedAt: this.now(), sizeBytes: 0, archivePath: '', archiveFile: '', checksum: '', errorMessage: reason })!;
      this.kernel.bus.publish('BACKUP_FAILED', { id: String(row.id), targetName: row.targetName, reason }, request.actor);
      return ended;
    } finally {
      if (quiesced) this.resume(unit.quiesce!);
      prepared?.cleanup();
      this.permits.release();
      this.aborts.delete(abort);
    }
  }

  /** `save-off`, `save-all flush`, then the configured wait: the world on disk stops changing. */
  private async quiesce(service: string): Promise<boolean> {
    try {
      this.kernel.manager.exec(service, 'save-off');
      this.kernel.manager.exec(service, 'save-all flush');
    } catch (error) {
      this.log.warn({ err: error, service }, 'could not pause world saving; archiving as it is');
      this.resume(service);
      return false;
    }
    const waitMs = this.config().quiesceWaitSeconds * 1000;
    if (waitMs > 0) await Bun.sleep(waitMs);
    return true;
  }

  /** `save-on`, always, even after a failed archive. */
  private resume(service: string): void {
    try {
      this.kernel.manager.exec(service, 'save-on');
    } catch (error) {
      this.log.warn({ err: error, service }, 'could not resume world saving (the service may have stopped)');
    }
  }

  get(id: number): BackupRow {
    const row = this.store.get(id);
    if (!row) throw new ApiError('BACKUP_NOT_FOUND', `no backup with id ${id}`);
    return row;
  }

  /** The archive file of a finished backup; 404 BACKUP_ARCHIVE_MISSING when it has none or it is gone. */
  archiveOf(row: BackupRow): string {
    if (row.archivePath === '') throw new ApiError('BACKUP_ARCHIVE_MISSING', `backup ${row.id} has no archive (${row.status}${row.errorMessage ? `: ${row.errorMessage}` : ''})`);
    const file = this.fileOf(row);
    if (!existsSync(file)) throw new ApiError('BACKUP_ARCHIVE_MISSING', `the archive of backup ${row.id} (${row.archivePath}) is no longer on disk`);
    return file;
  }

  /** Where a record's archive is: its own absolute path (records older than that column: under the destination). */
  private fileOf(row: BackupRow): string {
    return row.archiveFile !== '' ? row.archiveFile : resolve(this.destination(), row.archivePath);
  }

  async verify(id: number): Promise<{ valid: boolean; errors: string[] }> {
    const row = this.get(id);
    if (row.status === 'RUNNING') throw new ApiError('BACKUP_IN_PROGRESS', `backup ${id} is still running`);
    if (row.archivePath === '') return { valid: false, errors: [`Backup ${id} has no archive (${row.status})`] };
    const { verifyArchive } = await archiveCode();
    return verifyArchive(this.fileOf(row), row.checksum || undefined);
  }

  /**
   * Restores a backup into its place (or `targetPath`, which must lie inside the controller's
   * folders; never the live database). A running service is refused unless `force`.
   */
  async restore(id: number, options: { targetPath?: string; dryRun: boolean; force: boolean }, actor: Actor): Promise<{ id: number; dryRun: boolean; filesExtracted: number; files: string[]; targetPath: string }> {
    const row = this.get(id);
    if (row.status === 'RUNNING') throw new ApiError('BACKUP_IN_PROGRESS', `backup ${id} is still running`);
    const archive = this.archiveOf(row);
    const target = options.targetPath?.trim() ? resolve(this.kernel.dir, options.targetPath.trim()) : defaultRestorePath(this.kernel, row.targetType, row.targetName);
    const { restoreArchive } = await restoreCode();
    if (!insideRoots(target, restoreRoots(this.kernel))) {
      throw new ApiError('BACKUP_RESTORE_FAILED', `targetPath must lie inside the controller's services, dedicated, templates, config, state or restore folders (a restore never writes over the live database)`, 400);
    }
    if (restoreRoots(this.kernel).some((root) => resolve(root) === target) && options.targetPath?.trim()) {
      // A whole root replaced by one service's files would wipe every other service: only its own backup may do that.
      const own = defaultRestorePath(this.kernel, row.targetType, row.targetName);
      if (own !== target) throw new ApiError('BACKUP_RESTORE_FAILED', `targetPath ${relative(this.kernel.dir, target) || '.'} is a whole controller folder; restore into a folder inside it`, 400);
    }
    const live = (row.targetType === 'SERVICE' || row.targetType === 'DEDICATED') && this.kernel.services.get(row.targetName);
    if (live && ['READY', 'STARTING', 'DRAINING', 'PREPARING', 'PREPARED'].includes(live.state) && !options.dryRun && !options.force) {
      throw new ApiError('BACKUP_RESTORE_FAILED', `${row.targetName} is ${live.state}; stop it first, or restore with force`);
    }
    // Never extract an archive that is not the one written: a flipped bit would be restored as the truth.
    if (row.checksum !== '') {
      const actual = await sha256OfFile(archive);
      if (actual !== row.checksum) throw new ApiError('BACKUP_VERIFICATION_FAILED', `the archive of backup ${id} has changed since it was written (SHA-256 ${actual.slice(0, 12)}…, recorded ${row.checksum.slice(0, 12)}…); it is not restored`, 409);
    }
    // A service's supervisor files (its FIFO, pid, console log) belong to the live process, not to the backup.
    const keep = row.targetType === 'SERVICE' || row.targetType === 'DEDICATED' ? ['.svc'] : [];
    const outcome = await restoreArchive(archive, target, { dryRun: options.dryRun, keep });
    if (!options.dryRun) {
      this.kernel.bus.publish('BACKUP_RESTORED', { id: String(row.id), targetName: row.targetName, targetPath: relative(this.kernel.dir, target) || '.', triggeredBy: actor }, actor);
    }
    return { id: row.id, dryRun: options.dryRun, filesExtracted: outcome.filesExtracted, files: outcome.files, targetPath: relative(this.kernel.dir, target) || '.' };
  }

  /** Deletes the record and its archive. A running backup cannot be deleted (it would come back as a file). */
  async delete(id: number): Promise<void> {
    const row = this.get(id);
    if (row.status === 'RUNNING') throw new ApiError('BACKUP_IN_PROGRESS', `backup ${id} is still running; delete it when it has finished`);
    if (row.archivePath !== '') await rm(this.fileOf(row), { force: true });
    this.store.delete(id);
  }

  /** Retention: removes what the policy does not keep (or counts it with dryRun). */
  async prune(options: { dryRun: boolean; retentionClass?: string }, actor: Actor): Promise<{ deleted: number; freedBytes: number; errors: string[]; dryRun: boolean }> {
    if (options.retentionClass !== undefined && !(RETENTION_CLASSES as readonly string[]).includes(options.retentionClass.toLowerCase())) {
      throw new ApiError('VALIDATION_FAILED', `retentionClass must be one of ${RETENTION_CLASSES.join(', ')}, got "${options.retentionClass}"`);
    }
    const plan = planPrune(this.store.all(), this.config().retention, this.now(), options.retentionClass?.toLowerCase());
    if (options.dryRun) return { deleted: plan.remove.length, freedBytes: plan.freedBytes, errors: [], dryRun: true };
    const errors: string[] = [];
    let deleted = 0;
    let freed = 0;
    for (const row of plan.remove) {
      try {
        const file = row.archivePath === '' ? null : this.fileOf(row);
        const present = file !== null && existsSync(file);
        if (present) await rm(file, { force: true });
        this.store.delete(row.id);
        deleted++;
        // Only bytes that were on disk are freed; an archive already gone is named in the errors.
        if (present) freed += row.sizeBytes;
        else if (file !== null) errors.push(`backup ${row.id}: its archive ${row.archivePath} was already gone; the record is removed`);
      } catch (error) {
        errors.push(`backup ${row.id}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
    }
    if (deleted > 0) this.kernel.bus.publish('BACKUP_PRUNED', { count: String(deleted), freedBytes: String(freed), scheduleClass: options.retentionClass?.toLowerCase() ?? 'all' }, actor);
    return { deleted, freedBytes: freed, errors, dryRun: false };
  }

  /** Bytes the archives take, for the doctor. */
  archiveBytes(): number {
    const dir = this.destination();
    if (!existsSync(dir)) return 0;
    return readdirSync(dir)
      .filter((f) => f.endsWith('.tar.zst'))
      .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  }
}

/** SHA-256 of a file, streamed. */
async function sha256OfFile(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256');
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest('hex');
}

export { typesOf };
