/**
 * The network's groups (GET /api/status) and services (GET /api/services) as both player pages
 * need them: which services are proxies, where a player may be sent, a service's group. Read
 * again when events say they moved (refresh.ts), only when the sign-in holds their nodes.
 */
import { useMemo } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { SERVICES_KEY } from '../services/live';
import { NODES } from './grants';
import { proxyServices, sendTargets, type NetworkStatus, type ServiceRow } from './model';
import { useEventRefresh } from './refresh';

export const STATUS_KEY = ['network', 'status'] as const;

/** Group totals move with players and services: read again at most once a second while events come. */
const touchesStatus = (type: string) => type.startsWith('PLAYER_') || (type.startsWith('SERVICE_') && type !== 'SERVICE_MESSAGE') || type.startsWith('GROUP_') || type.startsWith('DEDICATED_') || type === 'CONFIG_RELOADED';
/** The services list (proxies, send targets) moves with services, not with players. */
const touchesServices = (type: string) => (type.startsWith('SERVICE_') && type !== 'SERVICE_MESSAGE') || type.startsWith('GROUP_') || type.startsWith('DEDICATED_');

export function useNetworkLists(may: (node: string) => boolean) {
  const canStatus = may(NODES.status);
  const canServices = may(NODES.services);
  useEventRefresh([STATUS_KEY], touchesStatus, 1000);
  useEventRefresh([SERVICES_KEY], touchesServices, 300);
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: () => api<NetworkStatus>('/api/status'), enabled: canStatus });
  const services = useQuery({ queryKey: SERVICES_KEY, queryFn: () => api<{ services: ServiceRow[] }>('/api/services'), enabled: canServices });
  const groupOf = useMemo(() => {
    const groups = new Map((services.data?.services ?? []).map((s) => [s.name, s.groupName]));
    return (service: string) => groups.get(service);
  }, [services.data]);
  const proxies = status.data && services.data ? proxyServices(services.data.services, status.data.groups) : null;
  /** Where a player may be sent; null when this sign-in cannot list services (the dialog asks for a name). */
  const targets = !canServices ? null : services.data ? sendTargets(services.data.services, proxies ?? []) : [];
  return { canStatus, canServices, status, services, groupOf, proxies, targets };
}
