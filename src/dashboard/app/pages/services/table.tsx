/**
 * The services table: one row per service with its selection box, facts and own actions; the
 * header's box selects every service shown (the filters decide which). Below 640 px each row
 * becomes a card (styles.css, "Services page"), the cells labelled by their data-label.
 */
import { useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { DOWN_STATES, formatMemory, formatUptime, type Service } from './model';
import { RowActions } from './row-actions';

/** The current time, moved on every second: uptimes count up without asking the API again. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

interface TableProps {
  services: Service[];
  selected: ReadonlySet<string>;
  onSelect: (names: string[], on: boolean) => void;
}

export function ServicesTable({ services, selected, onSelect }: TableProps) {
  const now = useNow();
  const allShown = services.length > 0 && services.every((s) => selected.has(s.name));
  return (
    <table class="svc-table">
      <thead>
        <tr>
          <th>
            <input type="checkbox" aria-label="Select all shown" checked={allShown} disabled={services.length === 0} onChange={(e) => onSelect(services.map((s) => s.name), e.currentTarget.checked)} />
          </th>
          <th>Name</th>
          <th>Group</th>
          <th>State</th>
          <th>Players</th>
          <th>Memory</th>
          <th>Uptime</th>
          <th>Node</th>
          <th>
            <span class="svc-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {services.length === 0 && (
          <tr>
            <td colSpan={9} class="empty">
              No services match.
            </td>
          </tr>
        )}
        {services.map((s) => (
          <tr key={s.name} data-state={s.state}>
            <td class="svc-select">
              <input type="checkbox" aria-label={`Select ${s.name}`} checked={selected.has(s.name)} onChange={(e) => onSelect([s.name], e.currentTarget.checked)} />
            </td>
            <th scope="row" class="svc-name">
              <Link href={`/services/${encodeURIComponent(s.name)}`}>{s.name}</Link>
            </th>
            <td data-label="Group">{s.isDedicated ? <span class="svc-tag">dedicated</span> : s.groupName}</td>
            <td data-label="State" class="svc-state">
              <span class={`svc-badge svc-${s.state.toLowerCase()}`}>{s.state}</span>
              {s.customState !== null && <span class="svc-custom">{s.customState}</span>}
              {s.quarantined && <span class="badge">quarantined</span>}
              {s.state === 'CRASHED' && <p class="svc-diagnosis">{s.diagnosis ?? 'It ended without a known reason.'}</p>}
            </td>
            <td data-label="Players">{s.playerCount}</td>
            <td data-label="Memory">{formatMemory(s.memoryUsedMb, s.memoryMaxMb)}</td>
            <td data-label="Uptime">{DOWN_STATES.has(s.state) ? '—' : formatUptime(s.startedAt, now)}</td>
            <td data-label="Node">{s.nodeId}</td>
            <td class="svc-actions">
              <RowActions service={s} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
