import type { Instance } from './instances';
import type { ManagerDeps } from './manager-deps';
import { LOCAL_NODE } from './registry';

/**
 * What runs once a service's process has ended and before it counts as STOPPED, whether the
 * stop was asked for or the server stopped itself: deploy-on-stop, then the state push.
 * Neither ever fails the stop; a failure is an API_WARNING.
 */
export class StopHooks {
  constructor(private readonly deps: Pick<ManagerDeps, 'bus' | 'log' | 'groups' | 'deployBack' | 'stateSync'>) {}

  /**
   * Deploy-on-stop: a group instance that served (not a warm one, not a dedicated service)
   * copies its new and changed files back into the group's first template. A failure is
   * reported and leaves the template as it was; the stop goes on either way.
   */
  async deployIfAsked(instance: Instance): Promise<void> {
    const { record } = instance;
    if (record.isDedicated || record.pooled || record.nodeId !== LOCAL_NODE || !this.deps.deployBack) return;
    const group = this.deps.groups.get(record.group);
    if (!group?.deployOnStop) return;
    try {
      const filesChanged = await this.deps.deployBack(group, record.workDir);
      this.deps.log.info({ service: record.name, filesChanged }, 'deployed changed files back into the template');
      this.deps.bus.publish('SERVICE_DEPLOYED', { service: record.name, group: group.name, filesChanged });
    } catch (error) {
      const message = `deploy-on-stop of ${record.name} failed, the template is unchanged: ${(error as Error).message}`;
      this.deps.log.error({ service: record.name, err: error }, message);
      this.deps.bus.publish('API_WARNING', { message });
    }
  }

  /** A local static instance with state sync: its files become the canonical copy before it counts as stopped (a move may start it elsewhere next). */
  async pushStateIfSynced(instance: Instance): Promise<void> {
    const { record } = instance;
    if (!record.isStatic || record.isDedicated || record.nodeId !== LOCAL_NODE || !this.deps.stateSync) return;
    const group = this.deps.groups.get(record.group);
    if (!group?.syncEnabled) return;
    try {
      await this.deps.stateSync.push(record.name, record.workDir, group.syncExcludes);
    } catch (error) {
      const message = `state push of ${record.name} failed; the canonical copy is the previous one: ${(error as Error).message}`;
      this.deps.log.error({ service: record.name, err: error }, message);
      this.deps.bus.publish('API_WARNING', { message });
    }
  }
}
