/**
 * The proxies, the server-list MOTD and maintenance at a glance (GET /api/services with the
 * groups of GET /api/status, GET /api/proxy/motd, GET /api/maintenance), each read again when
 * an event says it changed. A card this sign-in may not read names the node it lacks.
 */
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { NODES } from './grants';
import { plainText, type GroupTotals, type Maintenance, type Motd, type ServiceRow } from './model';
import { useEventRefresh } from './refresh';

export const MOTD_KEY = ['network', 'motd'] as const;
export const MAINTENANCE_KEY = ['network', 'maintenance'] as const;

const touchesMotd = (type: string) => type === 'MOTD_UPDATED' || type === 'CONFIG_RELOADED';
const touchesMaintenance = (type: string) => type === 'MAINTENANCE_ENABLED' || type === 'MAINTENANCE_DISABLED' || type === 'CONFIG_RELOADED';

function Lacks({ node, what }: { node: string; what: string }) {
  return (
    <p class="nw-muted">
      Your account may not read {what}: it needs the permission {node}.
    </p>
  );
}

interface ProxiesProps {
  /** The proxy services; null when they cannot be known (the note says why). */
  proxies: readonly ServiceRow[] | null;
  /** Why the proxies are not known (a missing node, a failed read); null when they are. */
  unknown: string | null;
}

export function ProxiesCard({ proxies, unknown }: ProxiesProps) {
  const ready = proxies?.filter((p) => p.state === 'READY').length ?? 0;
  return (
    <section class="nw-card" aria-labelledby="nw-proxies-title">
      <h3 id="nw-proxies-title">Proxies</h3>
      {unknown !== null && <p class="nw-muted">{unknown}</p>}
      {proxies !== null && proxies.length === 0 && (
        <p class="nw-muted">No proxy runs under this controller. Players a proxy's bridge reports are listed; send and kick need a READY proxy.</p>
      )}
      {proxies !== null && proxies.length > 0 && (
        <>
          <p class="nw-figure">
            <strong>{ready}</strong> of {proxies.length} READY
          </p>
          <ul class="nw-proxy-list" aria-label="Proxy services">
            {proxies.map((p) => (
              <li key={p.name}>
                <span class="nw-proxy-name">{p.name}</span>
                <span class={`nw-state nw-state-${p.state.toLowerCase()}`}>{p.state}</span>
                <span class="nw-muted">{p.playerCount} online</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function MotdCard({ may, maintenance }: { may: boolean; maintenance: Maintenance | undefined }) {
  useEventRefresh([MOTD_KEY], touchesMotd, 300);
  const motd = useQuery({ queryKey: MOTD_KEY, queryFn: () => api<Motd>('/api/proxy/motd'), enabled: may });
  const inMaintenance = maintenance?.global.enabled === true;
  return (
    <section class="nw-card" aria-labelledby="nw-motd-title">
      <h3 id="nw-motd-title">Server list (MOTD)</h3>
      {!may && <Lacks node={NODES.proxy} what="the MOTD" />}
      {motd.isError && (
        <p class="nw-error" role="alert">
          The MOTD could not be read: {motd.error.message}
        </p>
      )}
      {motd.data && (
        <>
          <div class="nw-motd" aria-label="MOTD lines" role="group">
            <p data-testid="motd-line1">{plainText(motd.data.line1) || '(empty)'}</p>
            <p data-testid="motd-line2">{plainText(motd.data.line2) || '(empty)'}</p>
          </div>
          <dl class="nw-facts">
            <div>
              <dt>Slots shown</dt>
              <dd>{motd.data.maxPlayers < 0 ? 'the real maximum' : motd.data.maxPlayers}</dd>
            </div>
            <div>
              <dt>Count offset</dt>
              <dd>{motd.data.playerCountOffset >= 0 ? `+${motd.data.playerCountOffset}` : motd.data.playerCountOffset}</dd>
            </div>
          </dl>
          {inMaintenance && (
            <p class="nw-warning">
              Maintenance is on: the proxies show <q>{plainText(maintenance.global.motdLine1)}</q> / <q>{plainText(maintenance.global.motdLine2)}</q> instead.
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** The maintenance card; its query is the page's (the MOTD card reads it too). */
export function MaintenanceCard({ may, groups, state }: { may: boolean; groups: readonly GroupTotals[]; state: { data?: Maintenance; error: Error | null } }) {
  const data = state.data;
  const inGroups = data ? Object.entries(data.groups).filter(([, g]) => g.enabled) : [];
  const known = new Set(groups.map((g) => g.name));
  return (
    <section class="nw-card" aria-labelledby="nw-maintenance-title">
      <h3 id="nw-maintenance-title">Maintenance</h3>
      {!may && <Lacks node={NODES.maintenance} what="the maintenance state" />}
      {state.error && (
        <p class="nw-error" role="alert">
          The maintenance state could not be read: {state.error.message}
        </p>
      )}
      {data && (
        <>
          <p class="nw-figure" data-testid="maintenance-global">
            Network:{' '}
            <span class={`nw-pill ${data.global.enabled ? 'nw-pill-on' : 'nw-pill-off'}`}>{data.global.enabled ? 'On' : 'Off'}</span>
            {data.global.enabled && data.global.reason !== '' && <span class="nw-muted"> {data.global.reason}</span>}
          </p>
          {inGroups.length === 0 ? (
            <p class="nw-muted">No group is in maintenance.</p>
          ) : (
            <ul class="nw-plain-list" aria-label="Groups in maintenance">
              {inGroups.map(([name, g]) => (
                <li key={name}>
                  <strong>{name}</strong>
                  {!known.has(name) && <span class="nw-muted"> (no such group now)</span>}
                  {g.reason !== '' && <span class="nw-muted"> — {g.reason}</span>}
                </li>
              ))}
            </ul>
          )}
          <p class="nw-muted">
            {data.global.whitelist.length === 0 ? 'Nobody is whitelisted' : `${data.global.whitelist.length} whitelisted`} for maintenance.
          </p>
        </>
      )}
    </section>
  );
}

export function useMaintenance(may: boolean) {
  useEventRefresh([MAINTENANCE_KEY], touchesMaintenance, 300);
  return useQuery({ queryKey: MAINTENANCE_KEY, queryFn: () => api<Maintenance>('/api/maintenance'), enabled: may });
}
