import type { Group } from '../groups/model';
import type { Instance, InstanceTable } from './instances';
import type { ManagerDeps } from './manager-deps';
import type { ServiceRecord } from './registry';
import type { CrashRestarts } from './restarts';
import type { StaleWatch } from './stale-watch';
import type { StartGate } from './start-gate';
import type { Stopper } from './stopper';

/** The controller's way out: no new starts, no restarts, every service stopped in order. */
export class Shutdown {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'log'>,
    private readonly table: InstanceTable,
    private readonly gate: StartGate,
    private readonly staleWatch: StaleWatch,
    private readonly restarts: CrashRestarts,
    private readonly stopper: Stopper,
  ) {}

  /**
   * Stops every service in the shutdown order (dedicated → stop-on-empty groups → other
   * backends → proxies, so players are never left on a proxy with nowhere to go), each class in
   * parallel; no orphans left.
   */
  async stopAll(reason: string): Promise<void> {
    this.gate.close();
    this.staleWatch.stop();
    this.restarts.cancelAll();
    // A service still PREPARING is included: its stop queues behind the launch, so no process it spawns outlives us.
    const running = [...this.table.all()].filter((i) => i.handle || i.record.state === 'PREPARING');
    this.deps.log.info({ reason, services: running.length }, 'stopping all services');
    const waves = new Map<number, Instance[]>();
    for (const instance of running) {
      const wave = shutdownWave(instance.record, this.stopper.policyOf(instance.record));
      waves.set(wave, [...(waves.get(wave) ?? []), instance]);
    }
    for (const wave of [...waves.keys()].sort((a, b) => a - b)) {
      await Promise.all(waves.get(wave)!.map((i) => this.stopper.stop(i.record.name, 'system', { force: true }).catch(() => i.handle?.signal('SIGKILL'))));
    }
    this.table.persistNow();
  }
}

/** The shutdown order: lower waves stop first (dedicated 0, stop-on-empty 1, other backends 2, proxies 3). */
export function shutdownWave(record: Pick<ServiceRecord, 'isDedicated' | 'isProxy'>, group: Pick<Group, 'stopOnEmpty'> | undefined): number {
  if (record.isProxy) return 3;
  if (record.isDedicated) return 0;
  if (group?.stopOnEmpty) return 1;
  return 2;
}
