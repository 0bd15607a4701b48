/**
 * Bulk actions on the selected services: one service at a time, in the page's list order, the
 * stagger waited between one's answer and the next one's request (a network's players move off
 * a restarting lobby onto the others, so they must not all go at once). A failure is recorded
 * on its service and the run goes on; Cancel leaves the services not yet reached alone.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import { SERVICES_KEY } from './live';
import { DOWN_STATES, messageOf, type ActionAnswer, type Service, type ServiceList } from './model';

export type BulkAction = 'start' | 'stop' | 'restart';
export type StepStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

export interface Step {
  name: string;
  status: StepStatus;
  message: string;
}

export interface BulkRun {
  action: BulkAction;
  stagger: number;
  steps: Step[];
  finished: boolean;
}

export const ACTION_WORD: Record<BulkAction, string> = { start: 'Start', stop: 'Stop', restart: 'Restart' };

const path = (name: string) => encodeURIComponent(name);

/**
 * One service's share of a run; the answer's message, or null when there is nothing to do.
 *
 * Start brings back a service that has no process, under its own name where it can: the API
 * starts groups, not services, so a CRASHED one is restarted (its dead record goes, any restart
 * its crash scheduled is called off, and its group starts the instance again in that slot), a
 * STOPPED dedicated service is started as itself, and a STOPPED group instance starts its group
 * once. A service that is up, or on its way up or down, is left alone: starting a group for it
 * would add an instance the operator did not ask for.
 */
export async function runStep(action: BulkAction, service: Service): Promise<string | null> {
  if (action === 'stop') return (await api<ActionAnswer>(`/api/services/${path(service.name)}/stop`, { method: 'POST' })).message;
  if (action === 'restart') return (await api<ActionAnswer>(`/api/services/${path(service.name)}/restart`, { method: 'POST' })).message;
  if (!DOWN_STATES.has(service.state)) return null;
  if (service.state === 'CRASHED') return (await api<ActionAnswer>(`/api/services/${path(service.name)}/restart`, { method: 'POST' })).message;
  if (service.isDedicated) return (await api<ActionAnswer>(`/api/dedicated/${path(service.name)}/start`, { method: 'POST' })).message;
  return (await api<ActionAnswer>(`/api/services/${path(service.groupName)}/start`, { method: 'POST' })).message;
}

/** The run in progress or the last one, and how to begin, cancel and dismiss one. */
export function useBulkRun() {
  const queries = useQueryClient();
  const [run, setRun] = useState<BulkRun | null>(null);
  // Set by Cancel and by leaving the page: the loop stops before its next service.
  const cancelled = useRef<(() => void) | null>(null);
  useEffect(() => () => cancelled.current?.(), []);

  const update = (index: number, status: StepStatus, message = '') =>
    setRun((r) => r && { ...r, steps: r.steps.map((s, i) => (i === index ? { ...s, status, message } : s)) });

  async function begin(action: BulkAction, services: Service[], stagger: number): Promise<void> {
    let stop = false;
    let wake = () => {};
    cancelled.current = () => {
      stop = true;
      wake();
    };
    setRun({ action, stagger, steps: services.map((s) => ({ name: s.name, status: 'pending', message: '' })), finished: false });
    for (const [index, snapshot] of services.entries()) {
      if (stop) break;
      // The state as it is now, not as it was when the run began (a crashed service may be back).
      const service = queries.getQueryData<ServiceList>(SERVICES_KEY)?.services.find((s) => s.name === snapshot.name) ?? snapshot;
      update(index, 'running');
      try {
        const message = await runStep(action, service);
        if (message === null) update(index, 'skipped', `${service.state}: already running, left alone`);
        else update(index, 'done', message);
      } catch (error) {
        update(index, 'failed', messageOf(error));
      }
      void queries.invalidateQueries({ queryKey: SERVICES_KEY });
      if (index < services.length - 1 && stagger > 0 && !stop) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, stagger * 1000);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
    cancelled.current = null;
    setRun((r) => r && { ...r, finished: true, steps: r.steps.map((s) => (s.status === 'pending' ? { ...s, status: 'skipped', message: 'cancelled' } : s)) });
  }

  return {
    run,
    begin: (action: BulkAction, services: Service[], stagger: number) => void begin(action, services, stagger),
    cancel: () => cancelled.current?.(),
    dismiss: () => setRun(null),
  };
}
