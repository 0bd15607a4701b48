/**
 * A group's players, actual against predicted, in one chart: the hourly figures of the last 24
 * hours (GET /api/scaling/history/{group}?hours=24: the mean and the peak of the per-minute
 * samples) and the 6 hours ahead (GET /api/scaling/predictions/{group}: the configured
 * percentile of the same weekday and hour over the last 4 weeks). uPlot is loaded when the chart
 * is first shown. The chart is an image to assistive technology, named with what it shows and
 * the samples behind it; the table under it (folded) has the same figures.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { getHistory, getPredictions, historyKey, HISTORY_HOURS, predictionsKey, type History, type PredictedHour, type Predictions } from './model';
import type { ChartData, MountedChart } from './chart-runtime';
import { clockText, DAY_SHORT } from './week';
import { plural, refusalText } from './words';

/** New samples come each minute; the predictions change with the hour. */
const HISTORY_REFRESH_MS = 60_000;
const PREDICTIONS_REFRESH_MS = 5 * 60_000;

export function summaryOf(group: string, history: History, predictions: Predictions | null): string {
  const hours = history.snapshots;
  const samples = hours.reduce((n, h) => n + h.samples, 0);
  const newest = hours[hours.length - 1];
  const peak = hours.reduce((m, h) => Math.max(m, h.peakPlayerCount), 0);
  const ahead = predictions?.predictions ?? [];
  const basis = ahead.reduce((n, p) => n + p.dataPoints, 0);
  const most = ahead.reduce((m, p) => Math.max(m, p.predictedPlayers), 0);
  const actual =
    hours.length === 0
      ? `no samples of actual players in the last ${HISTORY_HOURS} hours`
      : `actual players in ${plural(hours.length, 'hour')} of the last ${HISTORY_HOURS} from ${plural(samples, 'sample')} (latest hour ${newest!.playerCount}, peak ${peak})`;
  const predicted = predictions
    ? `predicted players for the next ${plural(ahead.length, 'hour')} from ${plural(basis, 'sample')} (p${predictions.percentile}), up to ${most}`
    : 'no prediction (the group’s file cannot be used)';
  return `Players of ${group}: ${actual}; ${predicted}.`;
}

/** `predictable`: the group's file can be used (the predictions route answers 404 otherwise). */
export function PlayersChart({ group, predictable, timezone }: { group: string; predictable: boolean; timezone: string }) {
  const history = useQuery({ queryKey: historyKey(group), queryFn: () => getHistory(group), refetchInterval: HISTORY_REFRESH_MS });
  const predictions = useQuery({ queryKey: predictionsKey(group), queryFn: () => getPredictions(group), refetchInterval: PREDICTIONS_REFRESH_MS, enabled: predictable });
  const ahead = predictable ? predictions.data : null;
  const zone = ahead?.timezone ?? timezone;
  return (
    <section class="sc-card" aria-labelledby="sc-chart-title">
      <h2 id="sc-chart-title">Players of {group}: actual and predicted</h2>
      <p class="sc-muted">The last {HISTORY_HOURS} hours as sampled each minute (hourly mean and peak), and the next 6 hours as predicted from the same weekday and hour of the last 4 weeks.</p>
      {(history.isPending || (predictable && predictions.isPending)) && <p class="sc-muted">Loading…</p>}
      {history.isError && (
        <p role="alert" class="sc-error">
          {refusalText(history.error, 'The history could not be read')}
        </p>
      )}
      {predictions.isError && (
        <p role="alert" class="sc-error">
          {refusalText(predictions.error, 'The predictions could not be read')}
        </p>
      )}
      {history.data && ahead !== undefined && (
        <>
          <Chart key={`${group}\n${zone}`} history={history.data.snapshots} predictions={ahead?.predictions ?? NONE} timezone={zone} summary={summaryOf(group, history.data, ahead)} />
          <Figures history={history.data} predictions={ahead} zone={zone} />
        </>
      )}
    </section>
  );
}

const NONE: readonly PredictedHour[] = [];

function Chart({ history, predictions, timezone, summary }: ChartData & { timezone: string; summary: string }) {
  const data: ChartData = { history, predictions };
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<MountedChart | null>(null);
  const latest = useRef(data);
  latest.current = data;
  const [failure, setFailure] = useState<string | null>(null);
  // A canvas takes its colours when drawn: a change of the light or dark scheme draws it again.
  const [scheme, setScheme] = useState(0);
  useEffect(() => {
    const query = matchMedia('(prefers-color-scheme: dark)');
    const changed = () => setScheme((n) => n + 1);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, []);

  useEffect(() => {
    let alive = true;
    let resize: ResizeObserver | undefined;
    import('./chart-runtime')
      .then(({ mountChart }) => mountChart(box.current!, latest.current, timezone))
      .then((mounted) => {
        if (!alive) return mounted.dispose();
        chart.current = mounted;
        mounted.update(latest.current);
        resize = new ResizeObserver(() => box.current && box.current.clientWidth > 0 && mounted.resize(box.current.clientWidth));
        resize.observe(box.current!);
      })
      .catch((error: unknown) => alive && setFailure(error instanceof Error ? error.message : String(error)));
    return () => {
      alive = false;
      resize?.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, [scheme]);

  useEffect(() => chart.current?.update(data), [history, predictions]);

  return (
    <>
      <div class="sc-chart" ref={box} role="img" aria-label={summary} />
      {failure && (
        <p class="sc-error" role="alert">
          The chart could not be loaded ({failure}): reload the page.
        </p>
      )}
    </>
  );
}

/** The chart's figures as a table, folded: for reading them exactly, and for assistive technology. */
function Figures({ history, predictions, zone }: { history: History; predictions: Predictions | null; zone: string }) {
  const hourOf = (iso: string) => {
    try {
      return new Date(iso).toLocaleString(undefined, { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    } catch {
      return iso;
    }
  };
  return (
    <details class="sc-figures">
      <summary>The figures</summary>
      <div class="sc-figure-tables">
        <table class="sc-small">
          <caption>Actual, last {HISTORY_HOURS} hours ({zone})</caption>
          <thead>
            <tr>
              <th scope="col">Hour</th>
              <th scope="col">Players</th>
              <th scope="col">Peak</th>
              <th scope="col">Servers</th>
              <th scope="col">Samples</th>
            </tr>
          </thead>
          <tbody>
            {history.snapshots.length === 0 && (
              <tr>
                <td colSpan={5} class="sc-muted">
                  No samples yet: one comes each minute.
                </td>
              </tr>
            )}
            {history.snapshots.map((h) => (
              <tr key={h.timestamp}>
                <th scope="row">{hourOf(h.timestamp)}</th>
                <td>{h.playerCount}</td>
                <td>{h.peakPlayerCount}</td>
                <td>{h.serviceCount}</td>
                <td>{h.samples}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {predictions && (
        <table class="sc-small">
          <caption>Predicted, next 6 hours (p{predictions.percentile})</caption>
          <thead>
            <tr>
              <th scope="col">Hour</th>
              <th scope="col">Players</th>
              <th scope="col">Instances</th>
              <th scope="col">Samples</th>
            </tr>
          </thead>
          <tbody>
            {predictions.predictions.map((p) => (
              <tr key={p.timestamp}>
                <th scope="row">
                  {DAY_SHORT[p.dayOfWeek]} {clockText(p.hour * 60)}
                </th>
                <td>{p.predictedPlayers}</td>
                <td>{p.predictedInstances}</td>
                <td>{p.dataPoints}</td>
              </tr>
            ))}
          </tbody>
        </table>
        )}
      </div>
    </details>
  );
}
