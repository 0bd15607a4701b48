import type { EventBus } from '../../events/bus';

export type ServiceOutcome = 'READY' | 'CRASHED' | 'STOPPED' | 'TIMEOUT';

/**
 * Resolves when a starting service is READY, crashed or stopped, or after `timeoutMs`.
 * The caller checks the current state first; this only waits for what comes next.
 */
export function waitForServiceOutcome(bus: EventBus, service: string, timeoutMs: number): Promise<ServiceOutcome> {
  return new Promise((resolve) => {
    const finish = (outcome: ServiceOutcome) => {
      clearTimeout(timer);
      unsubscribe();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish('TIMEOUT'), timeoutMs);
    const unsubscribe = bus.subscribe((event) => {
      if (event.data.service !== service) return;
      if (event.type === 'SERVICE_READY') finish('READY');
      else if (event.type === 'SERVICE_CRASHED') finish('CRASHED');
      else if (event.type === 'SERVICE_STOPPED') finish('STOPPED');
    });
  });
}
