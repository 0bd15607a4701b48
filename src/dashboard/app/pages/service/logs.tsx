/**
 * A service's log tail (GET /api/services/{name}/logs), in two tabs: `app`, the server
 * software's own log file (logs/latest.log), and `stdout`, what the process printed. The last
 * LINES lines, fetched again every 15 s and on Refresh; colours are dropped (plain text).
 * The tabs follow the ARIA tabs pattern (← and → move between them).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { plainText } from '../../terminal/ansi';
import { logsKey, servicePath, type LogSource } from './model';

const LINES = 200;
const SOURCES: { source: LogSource; what: string }[] = [
  { source: 'app', what: 'The server’s own log file (logs/latest.log).' },
  { source: 'stdout', what: 'What the process printed (captured standard output).' },
];

export function Logs({ name, enabled }: { name: string; enabled: boolean }) {
  const [source, setSource] = useState<LogSource>('app');
  const logs = useQuery({
    queryKey: logsKey(name, source),
    queryFn: () => api<{ lines: string[] }>(servicePath(name, `/logs?source=${source}&lines=${LINES}`)),
    enabled,
    refetchInterval: 15_000,
  });
  const move = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const next = SOURCES[(SOURCES.findIndex((s) => s.source === source) + 1) % SOURCES.length]!.source;
    setSource(next);
    document.getElementById(`service-log-tab-${next}`)?.focus();
  };
  const lines = logs.data?.lines ?? [];
  const tail = useRef<HTMLPreElement>(null);
  // The newest lines are the ones wanted: the tail opens scrolled to its end.
  useEffect(() => {
    if (tail.current) tail.current.scrollTop = tail.current.scrollHeight;
  }, [logs.data]);
  return (
    <section class="service-panel service-logs" aria-labelledby="service-logs-title">
      <div class="service-panel-head">
        <h2 id="service-logs-title">Logs</h2>
        <button type="button" class="term-secondary" disabled={!enabled || logs.isFetching} onClick={() => void logs.refetch()}>
          {logs.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <div role="tablist" aria-label="Log source" class="service-tabs" onKeyDown={move}>
        {SOURCES.map((s) => (
          <button
            key={s.source}
            type="button"
            role="tab"
            id={`service-log-tab-${s.source}`}
            aria-selected={s.source === source}
            aria-controls="service-log-panel"
            tabIndex={s.source === source ? 0 : -1}
            onClick={() => setSource(s.source)}
          >
            {s.source}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="service-log-panel" aria-labelledby={`service-log-tab-${source}`} class="service-log-panel">
        <p class="service-muted">
          {SOURCES.find((s) => s.source === source)!.what} {logs.isSuccess && `${lines.length} line${lines.length === 1 ? '' : 's'}.`}
        </p>
        {logs.isError && (
          <p class="error" role="alert">
            The log could not be read: {logs.error.message}
          </p>
        )}
        {logs.isSuccess && lines.length === 0 && <p class="service-muted">Nothing written yet.</p>}
        {lines.length > 0 && (
          <pre ref={tail} class="service-log" tabIndex={0} aria-label={`${source} log lines`}>
            {lines.map(plainText).join('\n')}
          </pre>
        )}
      </div>
    </section>
  );
}
