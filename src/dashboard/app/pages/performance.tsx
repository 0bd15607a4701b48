import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { useLiveRefresh } from '../live-refresh';
import { GroupTable, NetworkFigures } from './performance/figures';
import { PlayersChart } from './performance/players-chart';
import { getPerformance, getPlayerHistory, historyKey, PERFORMANCE_KEY } from './performance/requests';
import { LoadFailure } from './settings/outcome';
import './settings/shared.css';
import './performance/performance.css';

/** Read again every 5 s, and at once on the events that move these figures. */
const REFRESH_MS = 5_000;
/** The history gains a sample every 10 s. */
const HISTORY_REFRESH_MS = 10_000;
const MOVES_FIGURES = /^(SERVICE_(READY|CRASHED|STOPPED|STARTING)|PLAYER_(CONNECTED|DISCONNECTED)|GROUP_(CREATED|DELETED)|DEDICATED_(CREATED|DELETED))$/;
const RANGES = [60, 240, 1440];

/**
 * The Performance page: the controller's network figures (players, services ready, memory,
 * uptime, crashes, startup times) and the same per group, and the players over the last hour,
 * 4 hours or day as a chart.
 */
export function Performance() {
  const [minutes, setMinutes] = useState(60);
  const perf = useQuery({ queryKey: PERFORMANCE_KEY, queryFn: getPerformance, refetchInterval: REFRESH_MS });
  const history = useQuery({ queryKey: historyKey(minutes), queryFn: () => getPlayerHistory(minutes), refetchInterval: HISTORY_REFRESH_MS });
  useLiveRefresh([PERFORMANCE_KEY], (type) => MOVES_FIGURES.test(type));

  return (
    <div class="op-page">
      <h1>Performance</h1>
      <section class="op-card" aria-labelledby="pf-network">
        <h2 id="pf-network">Network</h2>
        {perf.isPending && <p>Loading…</p>}
        {perf.isError && <LoadFailure error={perf.error} />}
        {perf.data && (
          <>
            <NetworkFigures p={perf.data} />
            <p class="op-muted">Updated {new Date(perf.dataUpdatedAt).toLocaleTimeString()}, every {REFRESH_MS / 1000} s and when services or players change.</p>
          </>
        )}
      </section>
      <section class="op-card" aria-labelledby="pf-players">
        <div class="pf-head">
          <h2 id="pf-players">Players</h2>
          <label class="pf-range">
            Over the last
            <select value={minutes} onChange={(e) => setMinutes(Number((e.target as HTMLSelectElement).value))}>
              {RANGES.map((m) => (
                <option key={m} value={m}>
                  {m < 120 ? `${m} minutes` : `${m / 60} hours`}
                </option>
              ))}
            </select>
          </label>
        </div>
        {history.isPending && <p>Loading…</p>}
        {history.isError && <LoadFailure error={history.error} />}
        {history.data && history.data.samples.length < 2 && <p class="op-muted">Collecting samples (one every 10 s): the chart starts with the second.</p>}
        {history.data && history.data.samples.length >= 2 && <PlayersChart samples={history.data.samples} minutes={minutes} />}
      </section>
      <section class="op-card" aria-labelledby="pf-groups">
        <h2 id="pf-groups">Groups</h2>
        {perf.data && <GroupTable p={perf.data} />}
      </section>
    </div>
  );
}
