import { monotonicNow, type Clock } from '../time/monotonic';
import type { InstanceTable } from './instances';
import type { ManagerDeps } from './manager-deps';
import type { ManagerTiming } from './manager-timing';

/**
 * Hung servers: a READY service whose SDK reported a player count once and then fell silent
 * for `staleTimeoutMs` is killed, checked every `staleCheckMs` (never when the timeout is 0).
 * Silence is measured on the monotonic clock (`playersReportedMono`): a wall-clock step
 * forward never makes a server that reports look hung.
 */
export class StaleWatch {
  private readonly timer: ReturnType<typeof setInterval> | null;

  constructor(
    private readonly deps: Pick<ManagerDeps, 'log'>,
    private readonly table: InstanceTable,
    private readonly timing: ManagerTiming,
    private readonly now: Clock = monotonicNow,
  ) {
    this.timer = this.timing.staleTimeoutMs > 0 ? setInterval(() => this.killStale(this.now()), this.timing.staleCheckMs) : null;
    this.timer?.unref();
  }

  /** Shutdown: no more checks. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * The READY services whose SDK has reported a player count before but not within the stale
   * timeout at `now` (monotonic ms): their server is hung (a frozen main thread still holds
   * the process).
   */
  findStale(now: number): string[] {
    if (this.timing.staleTimeoutMs <= 0) return [];
    const stale: string[] = [];
    for (const { record, handle } of this.table.all()) {
      if (record.state !== 'READY' || record.playersReportedMono === null || !handle?.isAlive()) continue;
      if (now - record.playersReportedMono >= this.timing.staleTimeoutMs) stale.push(record.name);
    }
    return stale;
  }

  /** Kills every stale service; the exit counts as a crash with this diagnosis, and the restart policy decides what follows. */
  private killStale(now: number): void {
    for (const name of this.findStale(now)) {
      const { record, handle } = this.table.get(name)!;
      record.diagnosis = `stale: no player-count report for ${Math.round((now - record.playersReportedMono!) / 1000)} s (service_stale_timeout is ${Math.round(this.timing.staleTimeoutMs / 1000)} s); the server looks hung`;
      this.deps.log.warn({ service: name }, record.diagnosis);
      handle!.signal('SIGKILL');
    }
  }
}
