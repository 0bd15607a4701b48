/**
 * Keeps the services list current without polling: every event that changes a service (its
 * state, custom state, players, a group's quarantine) marks the list, and the groups with
 * their instance counts, stale and they are fetched again; a reconnected socket fetches it too, since events may have been missed meanwhile.
 * Events come in bursts (a restart is STOPPING, STOPPED, STARTING… within milliseconds), so
 * they are gathered for a moment and cause one fetch.
 */
import { useLiveRefresh } from '../../live-refresh';

export const SERVICES_KEY = ['services'] as const;
export const GROUPS_KEY = ['groups'] as const;

/** How long a burst of events is gathered before the one fetch it causes. */
const GATHER_MS = 150;

/** Whether an event changes what the Services page shows. */
export function touchesServices(type: string): boolean {
  if (type === 'SERVICE_MESSAGE') return false; // plugin-to-plugin messages: nothing about the service changes
  return type.startsWith('SERVICE_') || type.startsWith('PLAYER_') || type.startsWith('GROUP_') || type.startsWith('DEDICATED_');
}

export function useLiveServices(): void {
  // The group choice shows each group's instance count: the groups are read again too.
  useLiveRefresh([SERVICES_KEY, GROUPS_KEY], touchesServices, GATHER_MS);
}
