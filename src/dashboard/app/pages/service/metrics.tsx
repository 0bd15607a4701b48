/**
 * Memory and players of a service over the last 60 minutes (GET …/metrics/history?minutes=60,
 * one sample every 10 s), drawn with uPlot, which is loaded when the chart is first shown. The
 * samples are fetched again every 30 s (every 10 s while there are fewer than two). The chart is an image to assistive technology, named
 * with the newest values; uPlot's legend repeats the values under the cursor.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { formatMb } from '../services/model';
import type { MountedChart } from './chart-runtime';
import { metricsKey, servicePath, type MetricSample } from './model';

const MINUTES = 60;

export function Metrics({ name, enabled }: { name: string; enabled: boolean }) {
  const history = useQuery({
    queryKey: metricsKey(name),
    queryFn: () => api<{ samples: MetricSample[] }>(servicePath(name, `/metrics/history?minutes=${MINUTES}`)),
    enabled,
    // Every sample while there are too few to draw a line; then every third.
    refetchInterval: (query) => ((query.state.data?.samples.length ?? 0) < 2 ? 10_000 : 30_000),
  });
  const samples = history.data?.samples ?? [];
  const newest = samples[samples.length - 1];
  return (
    <section class="service-panel service-metrics" aria-labelledby="service-metrics-title">
      <h2 id="service-metrics-title">Memory and players</h2>
      <p class="service-muted">The last {MINUTES} minutes, a sample every 10 s.</p>
      {history.isError && (
        <p class="error" role="alert">
          The history could not be read: {history.error.message}
        </p>
      )}
      {history.isSuccess && samples.length === 0 && <p class="service-muted">No samples yet: the first comes within 10 s of the start.</p>}
      {newest && (
        <Chart
          samples={samples}
          summary={`Memory and players over the last ${MINUTES} minutes: ${samples.length} sample${samples.length === 1 ? '' : 's'}, newest ${formatMb(newest.memoryUsedMb)} of ${formatMb(newest.memoryMaxMb)} and ${newest.playerCount} players`}
        />
      )}
    </section>
  );
}

function Chart({ samples, summary }: { samples: MetricSample[]; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<MountedChart | null>(null);
  const latest = useRef(samples);
  latest.current = samples;
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    let alive = true;
    let resize: ResizeObserver | undefined;
    import('./chart-runtime')
      .then(({ mountChart }) => mountChart(box.current!, latest.current, MINUTES))
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
  }, []);

  useEffect(() => chart.current?.update(samples), [samples]);

  return (
    <>
      <div class="service-chart" ref={box} role="img" aria-label={summary} />
      {failure && (
        <p class="error" role="alert">
          The chart could not be loaded ({failure}): reload the page.
        </p>
      )}
    </>
  );
}
