import { monotonicAt, monotonicNow } from '../time/monotonic';
import type { Group } from '../groups/model';
import type { Instance, InstanceTable } from './instances';
import type { ManagerDeps } from './manager-deps';
import type { ManagerTiming } from './manager-timing';

/** What an exit nobody asked for means (crash, clean stop, warm instance gone): the restart unit decides. */
export type UnexpectedExit = (instance: Instance, group: Group, code: number | null) => void;

/**
 * Watches a running process: its ready line (or the SDK's reports) makes it READY, or PREPARED
 * for a warm-pool instance; no ready line in time is a kill; an exit while no stop was asked
 * for goes to `onUnexpectedExit`.
 */
export class ProcessWatch {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'bus' | 'log'>,
    private readonly table: InstanceTable,
    private readonly timing: ManagerTiming,
    private readonly onUnexpectedExit: UnexpectedExit,
  ) {}

  /** READY by pattern, ready timeout, and what an exit means. */
  watch(instance: Instance, group: Group): void {
    const handle = instance.handle!;
    const { record, kind } = instance;
    // Judged once, now: a process started by an earlier controller keeps the age its wall-clock start gives it.
    record.startedMono = record.startedAt ? monotonicAt(record.startedAt.getTime()) : monotonicNow();
    const pattern = new RegExp(group.readyPattern || kind.readyPattern);
    const stopWatching = handle.onLine((line) => {
      if ((record.state !== 'STARTING' && record.state !== 'PREPARING') || !pattern.test(line)) return;
      this.bootFinished(instance);
    });
    instance.readyTimer = setTimeout(() => {
      if (record.state !== 'STARTING') return;
      record.diagnosis = `not READY within ${Math.round((this.timing.readyTimeoutMs ?? kind.readyTimeoutMs) / 1000)} s (no line matched ${pattern.source})`;
      this.deps.log.warn({ service: record.name }, record.diagnosis);
      handle.signal('SIGKILL');
    }, this.timing.readyTimeoutMs ?? kind.readyTimeoutMs);
    void handle.exited.then((exit) => {
      stopWatching();
      if (instance.readyTimer) clearTimeout(instance.readyTimer);
      if (!instance.stopping) this.onUnexpectedExit(instance, group, exit.code);
    });
  }

  /** The ready line came (or the SDK reported): READY, or PREPARED for a warm-pool instance. */
  bootFinished(instance: Instance): void {
    const { record } = instance;
    if (record.state === 'STARTING') return this.markReady(instance);
    if (record.state !== 'PREPARING' || !record.pooled || !instance.handle) return;
    if (!this.table.move(instance, 'PREPARED')) return;
    if (instance.readyTimer) clearTimeout(instance.readyTimer);
    instance.warming?.resolve();
    this.deps.bus.publish('SERVICE_PREPARED', { service: record.name, group: record.group });
  }

  /** READY: the pattern matched or the SDK said so. */
  markReady(instance: Instance): void {
    if (!this.table.move(instance, 'READY')) return;
    instance.record.readyAt = new Date();
    instance.record.readyMono = monotonicNow();
    if (instance.readyTimer) clearTimeout(instance.readyTimer);
    this.deps.bus.publish('SERVICE_READY', { service: instance.record.name, group: instance.record.group });
  }
}
