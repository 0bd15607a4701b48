/**
 * The groups and services a pack can be assigned to, for the pickers: GET /api/groups and GET
 * /api/services, asked only when the sign-in holds their nodes (a session without them types
 * the name instead). Read again when their events say they changed.
 */
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { useLiveRefresh } from '../../live-refresh';
import type { May } from './may';
import { NODE, PLACES_KEY } from './model';

export interface ServiceName {
  name: string;
  groupName: string;
}

export interface Places {
  /** The groups' names, or null when this sign-in cannot list them. */
  groups: string[] | null;
  /** The services now known, or null when this sign-in cannot list them. */
  services: ServiceName[] | null;
}

const GROUPS_KEY = [...PLACES_KEY, 'groups'] as const;
const SERVICES_KEY = [...PLACES_KEY, 'services'] as const;
const touchesPlaces = (type: string) => type.startsWith('GROUP_') || type === 'SERVICE_STARTING' || type === 'SERVICE_STOPPED' || type === 'SERVICE_RECOVERED' || type.startsWith('DEDICATED_') || type === 'CONFIG_RELOADED';

export function usePlaces(may: May): Places {
  const canGroups = may(NODE.groups);
  const canServices = may(NODE.services);
  useLiveRefresh([PLACES_KEY], touchesPlaces, 1000);
  const groups = useQuery({
    queryKey: GROUPS_KEY,
    queryFn: async () => (await api<{ groups: { name: string }[] }>('/api/groups')).groups.map((g) => g.name).sort((a, b) => a.localeCompare(b)),
    enabled: canGroups,
  });
  const services = useQuery({
    queryKey: SERVICES_KEY,
    queryFn: async () => (await api<{ services: ServiceName[] }>('/api/services')).services.map((s) => ({ name: s.name, groupName: s.groupName })).sort((a, b) => a.name.localeCompare(b.name)),
    enabled: canServices,
  });
  return { groups: canGroups ? (groups.data ?? []) : null, services: canServices ? (services.data ?? []) : null };
}
