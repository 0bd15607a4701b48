import type { Logger } from '../../log';
import type { BackupConfig } from './config';
import { nextRun } from './cron';
import type { BackupManager } from './manager';
import { typesOf } from './sources';
import type { BackupStore } from './store';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A wall-clock change beyond this, either way, is the clock being set: started over from, not made up or waited out (cronie's 3 hours). */
const MAX_STEP = 3 * HOUR;

type Schedule = BackupConfig['schedules'][number];

const minutes = (ms: number): string => (ms >= 2 * HOUR ? `${(ms / HOUR).toFixed(1)} h` : `${Math.round(ms / MINUTE)} min`);

/**
 * Runs the configured schedules: a tick at the start of every minute runs each schedule with a
 * run due (its cron expression, in the config's time zone) since the last minute the scheduler
 * covered, once; a minute the controller was down is not caught up. Retention runs hourly. The
 * config is read at every tick, so a PUT takes effect at the next minute.
 *
 * Schedules are wall-clock times, and the wall clock can step (NTP, `date -s`, a VM resumed).
 * The timer is monotonic (setTimeout) and the steps are seen as ticks whose minute is not the
 * one after the last covered. With cronie's line between a step (up to 3 h) and the clock being
 * set, a schedule never runs twice for one due time and a run that does not happen is logged:
 * - forward up to 3 h (or a tick that late): each schedule with a run in the minutes jumped over
 *   runs once, at the first tick after the jump;
 * - back up to 3 h: the minutes already covered are not covered again: nothing runs until the
 *   clock is past the last covered minute;
 * - more than 3 h either way: the clock was set, and the scheduler starts over from the new time:
 *   the runs jumped over are not made up (each is logged), and after a step back the clock
 *   reaches times it has run before, which run again (logged).
 */
export class BackupScheduler {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The last minute (epoch ms of its start) the scheduler has run the schedules up to. */
  private covered: number | undefined;
  /** The clock is behind `covered` (a step back being waited out), already logged. */
  private behind = false;
  private lastPrune = 0;

  constructor(
    private readonly manager: BackupManager,
    private readonly store: BackupStore,
    private readonly config: () => BackupConfig,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    const now = this.now();
    this.lastPrune = now - HOUR + MINUTE; // the first prune a minute after start
    this.covered = Math.floor(now / MINUTE) * MINUTE;
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

  /** One minute's work (public for tests, which pass the minute). Returns the schedules run. */
  tick(at: Date): string[] {
    const minute = Math.floor(at.getTime() / MINUTE) * MINUTE;
    const covered = this.covered;
    if (minute === covered) return [];
    const config = this.config();
    const step = covered === undefined ? MINUTE : minute - covered;
    const fired: string[] = [];
    if (covered !== undefined && step < 0 && step >= -MAX_STEP) {
      if (!this.behind) {
        this.behind = true;
        this.log.warn({ stepMs: step }, `backup schedules: the clock went back ${minutes(-step)}; the minutes up to ${new Date(covered).toISOString()} have had their runs, so nothing runs again until the clock is past it`);
      }
    } else {
      this.behind = false;
      const reset = step > MAX_STEP || step < -MAX_STEP;
      // Runs due in (since, minute] run now: the minutes since the last covered one, or this minute alone after a reset.
      const since = reset || covered === undefined ? minute - MINUTE : covered;
      this.covered = minute;
      const madeUp: string[] = [];
      const missed: string[] = [];
      if (config.enabled) {
        for (const schedule of config.schedules) {
          let run: number | null = null;
          try {
            run = nextRun(schedule.cron, new Date(since), config.timezone)?.getTime() ?? null;
            if (reset && step > 0 && covered !== undefined) {
              const skipped = nextRun(schedule.cron, new Date(covered), config.timezone)?.getTime() ?? null;
              if (skipped !== null && skipped < minute) missed.push(`${schedule.name} (due ${new Date(skipped).toISOString()})`);
            }
          } catch (error) {
            this.log.error({ err: error, schedule: schedule.name }, 'backup schedule has an unusable cron expression');
          }
          if (run === null || run > minute) continue;
          if (run < minute) madeUp.push(`${schedule.name} (due ${new Date(run).toISOString()})`);
          fired.push(schedule.name);
          this.fire(schedule, at.getTime());
        }
      }
      this.logStep(step, reset, covered, madeUp, missed);
    }
    if (at.getTime() - this.lastPrune >= HOUR) {
      this.lastPrune = at.getTime();
      void this.manager.prune({ dryRun: false }, 'system').catch((error: unknown) => this.log.error({ err: error }, 'backup retention failed'));
    }
    return fired;
  }

  /** Says what a tick that was not the next minute did about the minutes in between. */
  private logStep(step: number, reset: boolean, covered: number | undefined, madeUp: string[], missed: string[]): void {
    if (covered === undefined || step === MINUTE) return;
    if (reset && step < 0) {
      this.log.warn({ stepMs: step }, `backup schedules: the clock was set back ${minutes(-step)}; schedules run by the new time from now, so a run already made for a time the clock shows again runs again`);
    } else if (reset) {
      const what = missed.length > 0 ? `not made up: ${missed.join(', ')}` : 'no schedule had a run in between';
      this.log.warn({ stepMs: step }, `backup schedules: the clock moved forward ${minutes(step)} (set, or the controller was suspended); runs in between are ${what}`);
    } else if (madeUp.length > 0) {
      this.log.warn({ stepMs: step }, `backup schedules: this tick came ${minutes(step)} after the last (a clock step forward or a stall); made up once: ${madeUp.join(', ')}`);
    }
  }

  private fire(schedule: Schedule, at: number): void {
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
    const now = this.now();
    // While a step back is waited out, the next run is the first after the last covered minute (as tick has it).
    const from = new Date(this.covered !== undefined && this.covered > now && this.covered - now <= MAX_STEP ? this.covered : now);
    return config.schedules.map((s) => {
      const last = log.get(s.name);
      let next: Date | null = null;
      try {
        next = config.enabled ? nextRun(s.cron, from, config.timezone) : null;
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
