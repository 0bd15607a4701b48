import { useQuery } from '@tanstack/preact-query';
import { api } from '../api';
import { Broadcast } from './overview/broadcast';
import { Changelog } from './overview/changelog';
import { SystemCard } from './overview/system-card';
import './settings/shared.css';
import './overview/system.css';

interface Status {
  networkName: string;
  online: boolean;
  uptimeHuman: string;
  totalServices: number;
  totalPlayers: number;
  groups: { name: string; instances: number; maxInstances: number; players: number; maxPlayers: number; software: string; version: string; quarantined: boolean }[];
}

/**
 * The Overview: the network at a glance (GET /api/status), the controller and its machine, a
 * broadcast to the network or one group, the groups, and the release notes on request.
 */
export function Overview() {
  const status = useQuery({ queryKey: ['status'], queryFn: () => api<Status>('/api/status'), refetchInterval: 5_000 });
  if (status.isPending) return <p>Loading…</p>;
  if (status.isError) return <p role="alert">{status.error.message}</p>;
  const s = status.data;
  return (
    <div class="op-page ov-page">
      <h1>{s.networkName}</h1>
      <dl class="figures ov-figures">
        <div><dt>State</dt><dd>{s.online ? 'online' : 'no service is ready'}</dd></div>
        <div><dt>Services</dt><dd>{s.totalServices}</dd></div>
        <div><dt>Players</dt><dd>{s.totalPlayers}</dd></div>
        <div><dt>Uptime</dt><dd>{s.uptimeHuman}</dd></div>
      </dl>
      <SystemCard services={`${s.totalServices}:${s.groups.map((g) => g.instances).join(',')}`} />
      <section class="ov-status-groups" aria-labelledby="ov-groups">
        <h2 id="ov-groups">Groups</h2>
        <table class="stack">
          <thead><tr><th>Group</th><th>Instances</th><th>Players</th><th>Software</th></tr></thead>
          <tbody>
            {s.groups.length === 0 && (
              <tr>
                <td colSpan={4} class="empty">
                  No groups yet.
                </td>
              </tr>
            )}
            {s.groups.map((g) => (
              <tr key={g.name}>
                <th scope="row">{g.name}{g.quarantined && <span class="badge">quarantined</span>}</th>
                <td data-label="Instances">{g.instances} / {g.maxInstances}</td>
                <td data-label="Players">{g.players} / {g.maxPlayers}</td>
                <td data-label="Software">{g.software} {g.version}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <Broadcast groups={s.groups.map((g) => g.name)} />
      <Changelog />
    </div>
  );
}
