import type { Logger } from '../../log';
import type { BackupConfig } from './config';
import { firesAt, nextRun } from './cron';
import type { BackupManager } from './manager';
import { typesOf } from './sources';
import type { BackupStore } from './store';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Runs the configured schedules: a tick at the start of every minute fires each schedule whose
 * cron expression matches that minute (in the config's time zone), once; a minute the
 * controller was down is not caught up. Retention runs hourly. The config is read at every
 * tick, so a PUT takes effect at the next minute.
 */
export class BackupScheduler {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastMinute = -1;
  private lastPrune = 0;

  constructor(
    private readonly manager: BackupManager,
    private readonly store: BackupStore,
    private readonly config: () => BackupConfig,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.lastPrune = this.now() - HOUR + MINUTE; // the first prune a minute after start
    this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    const now = this.now();
    // A little past the boundary, so the tick's minute is the new one even on a slow timer.
    this.timer = setTimeout(() => {
      this.tick(new Date(this.now()));
      this.arm();
    }, MINUTE - (now % MINUTE) + 50);
    this.timer.unref();
  }

  /** One minute's work (public for tests, which pass the minute). Returns the schedules fired. */
  tick(at: Date): string[] {
    const minute = Math.floor(at.getTime() / MINUTE);
    if (minute === this.lastMinute) return [];
    this.lastMinute = minute;
    const config = this.config();
    const fired: string[] = [];
    if (config.enabled) {
      for (const schedule of config.schedules) {
        let due = false;
        try {
          due = firesAt(schedule.cron, at, config.timezone);
        } catch (error) {
          this.log.error({ err: error, schedule: schedule.name }, 'backup schedule has an unusable cron expression');
        }
        if (due) {
          fired.push(schedule.name);
          this.fire(schedule, at.getTime());
        }
      }
    }
    if (at.getTime() - this.lastPrune >= HOUR) {
      this.lastPrune = at.getTime();
      void this.manager.prune({ dryRun: false }, 'system').catch((error: unknown) => this.log.error({ err: error }, 'backup retention failed'));
    }
    return fired;
  }

  private fire(schedule: BackupConfig['schedules'][number], at: number): void {
    try {
      const { done } = this.manager.start({
        types: typesOf(schedule.targets, this.config().scope),
        scheduleClass: schedule.retentionClass,
        scheduleName: schedule.name,
        triggeredBy: 'scheduler',
        actor: 'system',
        skipBusy: true,
      });
      void done.then((rows) => {
        const status = rows.some((r) => r.status === 'FAILED') ? 'FAILED' : rows.some((r) => r.status === 'PARTIAL') ? 'PARTIAL' : 'SUCCESS';
        this.store.logSchedule(schedule.name, at, status);
      });
    } catch (error) {
      // Busy targets (the last run still going), nothing to back up: logged, and the log says so.
      this.log.warn({ err: error, schedule: schedule.name }, `backup schedule ${schedule.name} did not run`);
      this.store.logSchedule(schedule.name, at, 'FAILED');
    }
  }

  /** The schedules with their last and next runs, as GET /schedules and /status answer them. */
  views(): { name: string; cron: string; retentionClass: string; targets: string[]; lastRunAt: string | null; nextRunAt: string | null; lastStatus: string }[] {
    const config = this.config();
    const log = this.store.scheduleLog();
    const now = new Date(this.now());
    return config.schedules.map((s) => {
      const last = log.get(s.name);
      let next: Date | null = null;
      try {
        next = config.enabled ? nextRun(s.cron, now, config.timezone) : null;
      } catch {
        next = null;
      }
      return {
        name: s.name,
        cron: s.cron,
        retentionClass: s.retentionClass,
        targets: s.targets,
        lastRunAt: last ? new Date(last.lastRunAt).toISOString() : null,
        nextRunAt: next ? next.toISOString() : null,
        lastStatus: last?.lastStatus ?? '',
      };
    });
  }
}
