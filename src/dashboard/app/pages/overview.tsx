import { useQuery } from '@tanstack/preact-query';
import { api } from '../api';

interface Status {
  networkName: string;
  online: boolean;
  uptimeHuman: string;
  totalServices: number;
  totalPlayers: number;
  groups: { name: string; instances: number; maxInstances: number; players: number; maxPlayers: number; software: string; version: string; quarantined: boolean }[];
}

export function Overview() {
  const status = useQuery({ queryKey: ['status'], queryFn: () => api<Status>('/api/status'), refetchInterval: 5_000 });
  if (status.isPending) return <p>Loading…</p>;
  if (status.isError) return <p role="alert">{status.error.message}</p>;
  const s = status.data;
  return (
    <section>
      <h1>{s.networkName}</h1>
      <dl class="figures">
        <div><dt>State</dt><dd>{s.online ? 'online' : 'no service is ready'}</dd></div>
        <div><dt>Services</dt><dd>{s.totalServices}</dd></div>
        <div><dt>Players</dt><dd>{s.totalPlayers}</dd></div>
        <div><dt>Uptime</dt><dd>{s.uptimeHuman}</dd></div>
      </dl>
      <h2>Groups</h2>
      <table>
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
              <td>{g.name}{g.quarantined && <span class="badge">quarantined</span>}</td>
              <td>{g.instances} / {g.maxInstances}</td>
              <td>{g.players} / {g.maxPlayers}</td>
              <td>{g.software} {g.version}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
