/** The network-wide figures of GET /api/metrics/performance, then the same per group (a table that stacks on a phone). */
import { memory, seconds, type Performance } from './requests';

export function NetworkFigures({ p }: { p: Performance }) {
  const figures: [string, string, string?][] = [
    ['Players', String(p.networkPlayers)],
    ['Services ready', `${p.readyServiceCount} of ${p.serviceCount}`],
    ['Memory', `${memory(p.totalMemoryUsedMb)} of ${memory(p.totalMemoryMaxMb)}`],
    ['Uptime (24 h)', `${p.uptimePercent.toFixed(2)} %`, 'services up over up plus crashed and not back, sampled every 10 s'],
    ['Crashes', `${p.crashesLast24h} in 24 h · ${p.crashesLast7d} in 7 d`],
    ['Average startup', seconds(p.averageStartupSeconds), 'STARTING to READY, over the last 7 days'],
  ];
  return (
    <dl class="figures pf-figures">
      {figures.map(([name, value, title]) => (
        <div key={name} title={title}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function GroupTable({ p }: { p: Performance }) {
  return (
    <table class="stack pf-groups">
      <thead>
        <tr>
          <th>Group</th><th>Services ready</th><th>Players</th><th>TPS</th><th>Memory</th><th>Startup</th><th>Crashes (24 h)</th>
        </tr>
      </thead>
      <tbody>
        {p.groups.length === 0 && (
          <tr>
            <td colSpan={7} class="empty">No group or dedicated service yet.</td>
          </tr>
        )}
        {p.groups.map((g) => (
          <tr key={g.groupName}>
            <th scope="row">
              {g.groupName}
              {g.isDedicated && <span class="pf-tag">dedicated</span>}
            </th>
            <td data-label="Services ready">{g.readyServiceCount} of {g.serviceCount}</td>
            <td data-label="Players">{g.maxPlayers > 0 ? `${g.playerCount} / ${g.maxPlayers}` : g.playerCount}</td>
            <td data-label="TPS">{g.averageTps > 0 ? g.averageTps.toFixed(1) : '—'}</td>
            <td data-label="Memory">{g.serviceCount > 0 ? `${g.averageMemoryPercent.toFixed(0)} %` : '—'}</td>
            <td data-label="Startup">{seconds(g.averageStartupSeconds)}</td>
            <td data-label="Crashes (24 h)" class={g.crashesLast24h > 0 ? 'pf-bad' : undefined}>{g.crashesLast24h}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
