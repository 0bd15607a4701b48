import type { Actor } from '../../events/catalogue';
import type { Group } from '../groups/model';
import { SOFTWARE } from '../software/kinds';
import type { ManagerDeps } from './manager-deps';
import type { ServiceRecord } from './registry';
import { quarantineRefusal } from './quarantine';
import type { StartGate } from './start-gate';

/** The starts a boot makes, through the manager's own entry points. */
export interface BootStarts {
  start(groupName: string, actor: Actor): Promise<ServiceRecord>;
  startDedicated(name: string, actor: Actor): Promise<ServiceRecord>;
}

/** The controller's first starts: every group up to its minimum, then the dedicated services. */
export class GroupBoot {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'bus' | 'log' | 'registry' | 'groups' | 'dedicated'>,
    private readonly gate: StartGate,
    private readonly starts: BootStarts,
  ) {}

  /**
   * Brings every group up to its minInstances: proxies first, waiting (bounded) for them to be
   * READY, then backends. Failures are logged; they never stop the controller.
   */
  async bootGroups(proxyReadyTimeoutMs = 120_000): Promise<void> {
    const groups = this.deps.groups.list();
    const proxies = groups.filter((g) => SOFTWARE[g.software].isProxy);
    const backends = groups.filter((g) => !SOFTWARE[g.software].isProxy);
    const started = await this.fillToMinimum(proxies);
    await this.settled(started, proxyReadyTimeoutMs);
    await this.fillToMinimum(backends);
    for (const name of this.deps.dedicated?.names() ?? []) {
      if (this.gate.closed) break;
      if (this.skipQuarantined(name)) continue;
      await this.starts.startDedicated(name, 'system').catch((error: unknown) => this.deps.log.error({ service: name, err: error }, 'boot start of a dedicated service failed'));
    }
  }

  /** Resolves once none of `records` is still on its way up (READY, crashed, stopped), or after `timeoutMs`. */
  private settled(records: readonly ServiceRecord[], timeoutMs: number): Promise<void> {
    const pending = () => !this.gate.closed && records.some((r) => r.state === 'STARTING' || r.state === 'PREPARING');
    if (!pending()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        unsubscribe();
        clearTimeout(timer);
        resolve();
      };
      // Every way out of STARTING publishes an event (READY, CRASHED, STOPPING/STOPPED).
      const unsubscribe = this.deps.bus.subscribe(() => {
        if (!pending()) done();
      });
      const timer = setTimeout(done, timeoutMs);
    });
  }

  /** A quarantined group (or dedicated service) is not started at boot: said once, with how to lift it. */
  private skipQuarantined(name: string): boolean {
    const quarantine = this.gate.quarantines.get(name);
    if (!quarantine) return false;
    this.deps.log.warn({ group: name, since: quarantine.since }, `not started at boot: ${quarantineRefusal(quarantine)}`);
    return true;
  }

  private async fillToMinimum(groups: Group[]): Promise<ServiceRecord[]> {
    const started: ServiceRecord[] = [];
    for (const group of groups) {
      const missing = group.minInstances - this.deps.registry.runningInstances(group.name);
      if (missing > 0 && this.skipQuarantined(group.name)) continue;
      for (let i = 0; i < missing && !this.gate.closed; i++) {
        try {
          started.push(await this.starts.start(group.name, 'system'));
        } catch (error) {
          this.deps.log.error({ group: group.name, err: error }, 'boot start failed');
          break;
        }
      }
    }
    return started;
  }
}
