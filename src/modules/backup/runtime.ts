import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { BackupKernel } from './uses';
import type { Logger } from '../../log';
import { loadBackupConfig, parseBackupConfig, saveBackupConfig, type BackupConfig } from './config';
import { BackupManager } from './manager';
import { holdsRestoreLeftovers } from './restore-folders';
import { BackupScheduler } from './scheduler';
import { restoreRoots } from './sources';
import { BackupStore } from './store';
import { resolveBackupsOnTimeline } from './timeline';
import { ApiError } from '../../errors';

/** Settings only the operator may change over the API (see updateConfig). */
const OPERATOR_FIELDS = ['localDestination', 'includeAuthKey'] as const satisfies readonly (keyof BackupConfig)[];

/**
 * One controller's backup module: its config file (config/modules/backup/backup.toml), the
 * records, the runner and the scheduler. A PUT of the config is in force at once: the runner
 * and the scheduler read it at every use.
 */
export class BackupRuntime {
  readonly store: BackupStore;
  readonly manager: BackupManager;
  readonly scheduler: BackupScheduler;
  readonly file: string;
  private current: BackupConfig;
  private problem: string | undefined;
  /** backup.toml did not exist: this start wrote the defaults, and says what they will do. */
  private readonly firstStart: boolean;
  /** Stops naming the services of backup events on the timeline. */
  private readonly stopTimeline: () => void;

  constructor(
    readonly kernel: BackupKernel,
    private readonly log: Logger,
    dir: string,
  ) {
    this.file = join(dir, 'backup.toml');
    this.firstStart = !existsSync(this.file);
    const loaded = loadBackupConfig(this.file);
    this.current = loaded.config;
    this.problem = loaded.problem;
    if (this.problem) log.warn({ file: this.file, problem: this.problem }, 'backup.toml cannot be used as it is; the defaults are in force until it is fixed or replaced with PUT /api/backups/config');
    this.store = new BackupStore(kernel.db);
    this.manager = new BackupManager(kernel, this.store, () => this.current, log);
    this.scheduler = new BackupScheduler(this.manager, this.store, () => this.current, log);
    this.stopTimeline = resolveBackupsOnTimeline(kernel.dashboardMetrics.timeline, (name) => kernel.services.get(name));
  }

  config(): BackupConfig {
    return this.current;
  }

  configProblem(): string | undefined {
    return this.problem;
  }

  /** Validates, writes atomically, and puts it in force (the scheduler's next tick reads it). */
  /**
   * `isAdmin`: whether the caller is the operator. Where archives are written (the controller
   * writes there as its own user, root on many hosts) and whether they carry the login key
   * (with it, a database archive gives every player's TOTP seed) are the operator's to change.
   */
  updateConfig(body: unknown, isAdmin: boolean): BackupConfig {
    const next = parseBackupConfig(body);
    const changed = OPERATOR_FIELDS.filter((field) => next[field] !== this.current[field]);
    if (!isAdmin && changed.length > 0) {
      throw new ApiError('FORBIDDEN', `${changed.map((f) => `"${f}"`).join(' and ')} ${changed.length === 1 ? 'is' : 'are'} the operator's to change (an admin token or an admin dashboard session); send the current value`);
    }
    saveBackupConfig(this.file, next);
    this.current = next;
    this.problem = undefined;
    this.log.info({ schedules: next.schedules.length, enabled: next.enabled }, 'backup configuration replaced');
    return next;
  }

  /** After recovery: ends what a dead controller left running, undoes half-done restores, starts the scheduler. */
  async ready(): Promise<void> {
    this.manager.recover();
    // Staging folders sit beside their target: inside a root (a service folder) or beside it (the templates folder).
    const parents = [...new Set(restoreRoots(this.kernel).flatMap((root) => [root, dirname(root)]))].filter(holdsRestoreLeftovers);
    if (parents.length > 0) {
      // The recovery's code loads only when an interrupted restore left something to undo.
      const { recoverInterruptedRestores } = await import('./restore-recovery');
      for (const parent of parents) for (const line of recoverInterruptedRestores(parent)) this.log.warn({ folder: parent }, line);
    }
    this.scheduler.start();
    this.announceSchedules();
  }

  /**
   * Says out loud what runs by itself: backups of every service on a schedule cost disk and
   * I/O, which an operator must not discover from a full disk. Every start, one line; the first
   * start (the defaults were just written), also where to change them.
   */
  private announceSchedules(): void {
    const config = this.current;
    const where = resolve(this.kernel.dir, config.localDestination);
    if (!config.enabled || config.schedules.length === 0) {
      this.log.info({ file: this.file }, `backups: no schedule runs (${config.enabled ? 'no schedules' : 'enabled = false'} in ${this.file}); \`backup now\` still backs up by hand`);
      return;
    }
    const keep: Record<string, number | undefined> = { hourly: config.retention.hourlyKeep, daily: config.retention.dailyKeep, weekly: config.retention.weeklyKeep, monthly: config.retention.monthlyKeep };
    const schedules = config.schedules.map((s) => `${s.name} (${s.cron}: ${s.targets.join(', ')}${keep[s.retentionClass] === undefined ? '' : `; keeps ${keep[s.retentionClass]}`})`);
    this.log.info({ destination: where, timezone: config.timezone, schedules: config.schedules.length }, `backups run on their own: ${schedules.join(', ')}, into ${where} (${config.timezone})`);
    if (this.firstStart) {
      this.log.warn({ file: this.file }, `first start: automatic backups of every service, dedicated service and the database are ON with the schedules above; change them in ${this.file} (enabled = false pauses them) or with PUT /api/backups/config`);
    }
  }

  async stop(): Promise<void> {
    this.stopTimeline();
    this.scheduler.stop();
    await this.manager.stop();
  }
}
