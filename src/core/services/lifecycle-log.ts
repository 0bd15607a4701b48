import type { EventBus } from '../../events/bus';
import type { Logger } from '../../log';
import { LOCAL_NODE, type ServiceRegistry } from './registry';

/** The events these lines tell; the controller's own console shows the lines instead of the events. */
export const LOGGED_LIFECYCLE_EVENTS: ReadonlySet<string> = new Set(['SERVICE_STARTING', 'SERVICE_READY', 'SERVICE_STOPPING', 'SERVICE_STOPPED']);

/**
 * One log line per step of a service's life, whatever the terminal: under systemd there is no
 * console to show events on, so the journal (stdout) and svc.log must say when a service starts
 * (its port and pid), is ready, stops. Crashes (with their diagnosis), crash restarts and
 * quarantine are logged where they are decided (restarts.ts); recoveries where they happen.
 * Returns the unsubscribe.
 */
export function logServiceLifecycle(bus: EventBus, registry: ServiceRegistry, log: Logger): () => void {
  const startedAt = new Map<string, number>();
  return bus.subscribe((event) => {
    const service = event.data.service;
    if (typeof service !== 'string') return;
    switch (event.type) {
      case 'SERVICE_STARTING': {
        const record = registry.get(service);
        startedAt.set(service, performance.now());
        const where = record && record.nodeId !== LOCAL_NODE ? ` on node ${record.nodeId}` : '';
        log.info({ service, group: event.data.group, port: event.data.port, pid: record?.pid ?? undefined, node: where ? record?.nodeId : undefined }, `${service} starting on port ${event.data.port}${record?.pid ? ` (pid ${record.pid})` : ''}${where}`);
        return;
      }
      case 'SERVICE_READY': {
        const since = startedAt.get(service);
        startedAt.delete(service);
        const seconds = since === undefined ? undefined : Math.round((performance.now() - since) / 100) / 10;
        log.info({ service, group: event.data.group, startupSeconds: seconds }, `${service} is READY${seconds === undefined ? '' : ` after ${seconds} s`}`);
        return;
      }
      case 'SERVICE_STOPPING':
        log.info({ service, actor: event.actor }, `${service} stopping`);
        return;
      case 'SERVICE_STOPPED':
        startedAt.delete(service);
        log.info({ service }, `${service} stopped`);
        return;
      case 'SERVICE_CRASHED':
        startedAt.delete(service);
        return;
    }
  });
}
