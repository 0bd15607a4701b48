import { ApiError } from '../../errors';
import type { Actor } from '../../events/catalogue';
import type { Group } from '../groups/model';
import type { Instance, InstanceTable } from './instances';
import type { ManagerDeps } from './manager-deps';
import type { ManagerTiming } from './manager-timing';
import { LOCAL_NODE, type ServiceRecord } from './registry';
import type { CrashRestarts } from './restarts';
import type { StopHooks } from './stop-hooks';
import { monotonicNow } from '../time/monotonic';

/**
 * Stops asked for: drain, `stop` on stdin, a kill after the timeout, the stop hooks, clean-up.
 * Runs in the service's queue, so it never interleaves with a start; a kill goes around the
 * queue (see ServiceManager.kill) and the stop then sees the exit.
 */
export class Stopper {
  constructor(
    private readonly deps: Pick<ManagerDeps, 'bus' | 'log' | 'ports' | 'groups' | 'dedicated'>,
    private readonly table: InstanceTable,
    private readonly restarts: CrashRestarts,
    private readonly hooks: StopHooks,
    private readonly timing: ManagerTiming,
  ) {}

  /**
   * Graceful stop: drain (unless forced; always with `drain`, as a scale-down does, so the
   * proxies stop routing to it first), `stop` on stdin, kill after the timeout, clean up.
   */
  stop(name: string, actor: Actor, options: { force?: boolean; drain?: boolean } = {}): Promise<void> {
    const instance = this.table.require(name);
    // A stopped service stays stopped: a restart after its crash, still waiting out its backoff, is called off.
    if (this.restarts.cancelPendingRestartOf(name)) this.deps.log.info({ service: name }, 'stop: the restart scheduled after its crash is called off');
    return instance.queue.run(async () => {
      const { record } = instance;
      if (record.state === 'STOPPED' || record.state === 'CRASHED' || !instance.handle?.isAlive()) {
        await this.table.forget(name, { removeWorkDir: true });
        return;
      }
      const policy = this.policyOf(record);
      const drain = options.drain || record.playerCount > 0;
      if (!options.force && record.state === 'READY' && drain) await this.drain(instance, policy?.drainTimeout ?? 30, actor);
      await this.halt(instance, actor);
    });
  }

  /** The group, or the dedicated service seen as one, whose settings a service runs under. */
  policyOf(record: ServiceRecord): Group | undefined {
    return record.isDedicated ? this.deps.dedicated?.launchOf(record.name)?.policy : this.deps.groups.get(record.group);
  }

  private async drain(instance: Instance, timeoutSeconds: number, actor: Actor): Promise<void> {
    const { record } = instance;
    this.table.move(instance, 'DRAINING');
    this.deps.bus.publish('SERVICE_DRAINING', { service: record.name, group: record.group }, actor);
    const deadline = monotonicNow() + timeoutSeconds * 1000;
    while (record.playerCount > 0 && monotonicNow() < deadline && instance.handle?.isAlive()) {
      await new Promise((resolve) => setTimeout(resolve, this.timing.drainPollMs));
    }
  }

  private async halt(instance: Instance, actor: Actor): Promise<void> {
    const { record, kind } = instance;
    const handle = instance.handle!;
    instance.stopping = true;
    this.table.move(instance, 'STOPPING');
    this.deps.bus.publish('SERVICE_STOPPING', { service: record.name }, actor);
    try {
      handle.write(kind.stopCommand);
    } catch (error) {
      this.deps.log.warn({ service: record.name, err: error }, 'could not write the stop command');
    }
    const exited = await Promise.race([handle.exited.then(() => true), delay(this.timing.stopTimeoutMs).then(() => false)]);
    if (!exited) {
      this.deps.log.warn({ service: record.name }, `did not stop within ${this.timing.stopTimeoutMs} ms: killing it`);
      handle.signal('SIGKILL');
      const killed = await Promise.race([handle.exited.then(() => true), delay(this.timing.killTimeoutMs).then(() => false)]);
      if (!killed) {
        // Still there after a kill (a process stuck in the kernel, a node that does not answer):
        // the stop failed; the record stays STOPPING and the rest of the stop runs if it ever ends.
        const where = record.nodeId === LOCAL_NODE ? `pid ${record.pid ?? '?'}` : `node ${record.nodeId} did not confirm`;
        const reason = `${record.name} did not end within ${Math.round(this.timing.killTimeoutMs / 1000)} s of SIGKILL (${where})`;
        this.deps.log.error({ service: record.name }, reason);
        void handle.exited.then(() => this.finishHalt(instance)).catch((error: unknown) => this.deps.log.error({ service: record.name, err: error }, 'finishing a late stop failed'));
        throw new ApiError('SERVICE_STOP_FAILED', `${reason}; it is still STOPPING and finishes when the process ends (check the machine${record.nodeId === LOCAL_NODE ? '' : ' and the agent'})`);
      }
    }
    await this.finishHalt(instance);
  }

  /** The stop's tail once the process has ended: ports, the stop hooks, STOPPED, clean-up. */
  private async finishHalt(instance: Instance): Promise<void> {
    const { record } = instance;
    this.deps.ports.release(record.name);
    record.pid = null;
    instance.warming?.reject(new Error(`${record.name} was stopped before it was prepared`));
    await this.hooks.deployIfAsked(instance);
    await this.hooks.pushStateIfSynced(instance);
    this.table.move(instance, 'STOPPED');
    this.deps.bus.publish('SERVICE_STOPPED', { service: record.name });
    await this.table.cleanUp(instance);
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
