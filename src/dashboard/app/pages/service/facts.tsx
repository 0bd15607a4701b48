/**
 * A service's record as facts: state (with its custom state and quarantine), group, node, where
 * it listens, memory, players, uptime (counted up here every second), restarts, and the diagnosis
 * of its last failure.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { DOWN_STATES, formatMemory, formatUptime } from '../services/model';
import type { ServiceRecord } from './model';

function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function StateBadge({ record }: { record: ServiceRecord }) {
  return <span class={`svc-badge svc-${record.state.toLowerCase()}`}>{record.state}</span>;
}

export function Facts({ record }: { record: ServiceRecord }) {
  const now = useNow();
  const down = DOWN_STATES.has(record.state);
  const facts: [string, ComponentChildren][] = [
    [
      'State',
      <>
        <StateBadge record={record} />
        {record.customState !== null && <span class="service-muted"> {record.customState}</span>}
        {record.quarantined && <span class="badge">quarantined</span>}
      </>,
    ],
    ['Group', record.isDedicated ? 'dedicated' : record.groupName],
    ['Node', record.nodeId],
    ['Port', down ? '—' : `${record.host}:${record.port}`],
    ['Memory', down ? '—' : formatMemory(record.memoryUsedMb, record.memoryMaxMb)],
    ['Players', String(record.playerCount)],
    ['Uptime', down ? '—' : formatUptime(record.startedAt, now)],
    ['Restarts', String(record.restartCount)],
    ['PID', record.pid === null ? '—' : String(record.pid)],
  ];
  if (record.tps !== undefined) facts.push(['TPS', record.tps.toFixed(1)]);
  return (
    <>
      <dl class="service-facts">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p class={record.diagnosis ? 'service-diagnosis' : 'service-diagnosis service-muted'}>
        <strong>Diagnosis:</strong> {record.diagnosis ?? 'none: it has not failed'}
      </p>
    </>
  );
}
