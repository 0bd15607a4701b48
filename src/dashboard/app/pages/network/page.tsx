/**
 * Network (/network): the network seen as one. Every online player across the proxies with the
 * server each is on, kept current by the proxy events (roster.ts; no polling), searched by name
 * and narrowed to a server in the browser; Send and Kick through the proxies with the API's
 * answer in words; each group's players against its capacity; the proxies, the server-list MOTD
 * and maintenance at a glance. With 1,000 players online only the rows in view are rendered.
 * Loaded when first shown (pages/network.tsx), with its own stylesheet.
 */
import { useMemo, useState } from 'preact/hooks';
import { hasFeature } from '../../login/features';
import { loadStylesheet } from '../../stylesheet';
import { SERVICES_KEY } from '../services/live';
import networkCss from './network.css' with { type: 'file' };
import { GroupCapacity } from './capacity';
import { MAINTENANCE_KEY, MaintenanceCard, MOTD_KEY, MotdCard, ProxiesCard, useMaintenance } from './glance';
import { NODES, useMay } from './grants';
import { STATUS_KEY, useNetworkLists } from './lists';
import { countByServer, filterPlayers, NO_FILTER, type OnlineEntry, type PlayerFilter } from './model';
import { NotLive } from './not-live';
import { PlayerActionDialog, type PlayerAction } from './player-actions';
import { PlayerTable } from './player-table';
import { ROSTER_KEY, useLiveRoster } from './roster';

export const ready = loadStylesheet(networkCss);

export function Page() {
  const may = useMay();
  if (!may) return <p class="notice">Loading…</p>;
  return <NetworkPage may={may} />;
}

function Lacks({ node, what }: { node: string; what: string }) {
  return (
    <p class="nw-muted">
      Your account may not read {what}: it needs the permission {node}.
    </p>
  );
}

function NetworkPage({ may }: { may: (node: string) => boolean }) {
  const { canStatus, canServices, status, services, groupOf, proxies, targets } = useNetworkLists(may);
  const canManage = may(NODES.manage);
  const canMaintenance = may(NODES.maintenance);
  const roster = useLiveRoster(groupOf);
  const maintenance = useMaintenance(canMaintenance);
  const [filter, setFilter] = useState<PlayerFilter>(NO_FILTER);
  const [action, setAction] = useState<PlayerAction | null>(null);

  const readyProxies = proxies?.filter((p) => p.state === 'READY') ?? [];
  const proxiesUnknown = !canServices
    ? `Your account may not list services: it needs the permission ${NODES.services}.`
    : !canStatus
      ? `Your account may not read the groups: it needs the permission ${NODES.status}.`
      : services.isError || status.isError
        ? `The proxies could not be read: ${(services.error ?? status.error)!.message}`
        : proxies === null
          ? 'Reading…'
          : null;
  // The proxy the controller names (its own credential reported the player); else the only one up.
  const proxyOf = (player: OnlineEntry) => player.proxy ?? (readyProxies.length === 1 ? readyProxies[0]!.name : '—');
  const withHistory = hasFeature('players');

  const all = roster.data?.list ?? [];
  const shown = filterPlayers(all, filter);
  const onlineOn = useMemo(() => countByServer(all), [roster.data]);
  const servers = useMemo(() => [...onlineOn.keys()].sort(), [onlineOn]);

  return (
    <section class="nw-page">
      <h1>Network</h1>
      {!may(NODES.events) && <NotLive keys={[ROSTER_KEY, STATUS_KEY, SERVICES_KEY, MOTD_KEY, MAINTENANCE_KEY]} />}
      <section class="nw-section" aria-labelledby="nw-glance-title">
        <h2 id="nw-glance-title">At a glance</h2>
        <div class="nw-cards">
          <ProxiesCard proxies={proxies} unknown={proxiesUnknown} />
          <MotdCard may={may(NODES.proxy)} maintenance={maintenance.data} />
          <MaintenanceCard may={canMaintenance} groups={status.data?.groups ?? []} state={{ data: maintenance.data, error: maintenance.error }} />
        </div>
      </section>

      <section class="nw-section" aria-labelledby="nw-players-title">
        <div class="nw-section-head">
          <h2 id="nw-players-title">Players online</h2>
          {roster.data && (
            <p class="nw-count" data-testid="online-count">
              <strong>{all.length}</strong> online{servers.length > 0 ? ` on ${servers.length} server${servers.length === 1 ? '' : 's'}` : ''}
            </p>
          )}
        </div>
        {roster.isPending && <p class="nw-muted">Loading…</p>}
        {roster.isError && (
          <p class="nw-error" role="alert">
            The online players could not be read: {roster.error.message}
          </p>
        )}
        {roster.data && (
          <>
            {roster.data.source === 'core' && (
              <p class="nw-muted">The players module does not run: this list is what the servers' own status answers named when the page was opened, moved by the proxies' reports since.</p>
            )}
            <div class="nw-filters" role="search" aria-label="Search players">
              <label>
                <span>Name</span>
                <input type="search" placeholder="Search by name" autoComplete="off" spellcheck={false} value={filter.text} onInput={(e) => setFilter({ ...filter, text: e.currentTarget.value })} />
              </label>
              <label>
                <span>Server</span>
                <select value={filter.server} onChange={(e) => setFilter({ ...filter, server: e.currentTarget.value })}>
                  <option value="">All servers</option>
                  {servers.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                  {filter.server !== '' && !servers.includes(filter.server) && <option value={filter.server}>{filter.server} (nobody now)</option>}
                </select>
              </label>
            </div>
            <p class="nw-muted" data-testid="shown-count">
              {shown.length} of {all.length} players shown
            </p>
            <PlayerTable
              label="Online players"
              players={shown}
              resetKey={`${filter.text}\u0000${filter.server}`}
              proxyOf={proxyOf}
              hrefOf={withHistory ? (p) => `/players?player=${encodeURIComponent(p.uuid)}` : undefined}
              onAction={canManage ? setAction : undefined}
              empty={all.length === 0 ? 'No player is online.' : 'No player matches.'}
            />
            {!canManage && <p class="nw-muted">Send and kick need the permission {NODES.manage}.</p>}
            <p class="nw-note">A proxy reporting with its own credential is named as the one carrying its players; a report with the shared service token names none (then, with one proxy READY, it is that one).</p>
          </>
        )}
      </section>

      <section class="nw-section" aria-labelledby="nw-groups-title">
        <h2 id="nw-groups-title">Groups against capacity</h2>
        {!canStatus && <Lacks node={NODES.status} what="the groups' totals" />}
        {status.isError && (
          <p class="nw-error" role="alert">
            The groups' totals could not be read: {status.error.message}
          </p>
        )}
        {status.data && <GroupCapacity groups={status.data.groups} maintenance={maintenance.data} />}
      </section>
      {action && <PlayerActionDialog action={action} targets={targets} onlineOn={onlineOn} onClose={() => setAction(null)} />}
    </section>
  );
}
