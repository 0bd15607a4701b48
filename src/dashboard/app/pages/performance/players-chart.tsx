/**
 * Players on the network over time (GET /api/metrics/players/history: a sample every 10 s), in
 * total and per group, drawn with uPlot, which is loaded only when the chart first shows. The
 * plot is made again when the set of groups changes and otherwise only given new data; it
 * follows its box's width. The figure's accessible name says what the lines show.
 */
import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { PlayerSample } from './requests';

const HEIGHT = 260;
const PALETTE = ['#2f6feb', '#1b8a3a', '#b7791f', '#9c27b0', '#00838f', '#c62828', '#6b7280', '#ef6c00'];

function columns(samples: PlayerSample[], groups: string[]): uPlot.AlignedData {
  return [samples.map((s) => Date.parse(s.timestamp) / 1000), samples.map((s) => s.totalPlayers), ...groups.map((g) => samples.map((s) => s.byGroup[g] ?? 0))];
}

export function PlayersChart({ samples, minutes }: { samples: PlayerSample[]; minutes: number }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const groups = [...new Set(samples.flatMap((s) => Object.keys(s.byGroup)))].sort();
  const latest = useRef<uPlot.AlignedData>([]);
  latest.current = columns(samples, groups);

  useEffect(() => {
    let gone = false;
    let observer: ResizeObserver | undefined;
    void import('uplot').then(({ default: UPlot }) => {
      const element = box.current;
      if (gone || !element) return;
      const axis = getComputedStyle(element).color;
      const grid = getComputedStyle(document.documentElement).getPropertyValue('--line').trim() || '#d9dbe0';
      const axes = { stroke: axis, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
      plot.current = new UPlot(
        {
          width: element.clientWidth,
          height: HEIGHT,
          scales: { y: { range: (_u, _min, max) => [0, Math.max(5, Math.ceil(max * 1.1))] } },
          axes: [axes, { ...axes, size: 40 }],
          series: [
            {},
            { label: 'All players', stroke: PALETTE[0], width: 2, fill: 'rgba(47,111,235,0.08)' },
            ...groups.map((g, i) => ({ label: g, stroke: PALETTE[(i + 1) % PALETTE.length], width: 1.5 })),
          ],
        },
        latest.current,
        element,
      );
      observer = new ResizeObserver(() => plot.current?.setSize({ width: element.clientWidth, height: HEIGHT }));
      observer.observe(element);
    });
    return () => {
      gone = true;
      observer?.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [groups.join('\n')]);

  useEffect(() => plot.current?.setData(latest.current), [samples]);

  const now = samples.at(-1)?.totalPlayers ?? 0;
  const peak = samples.reduce((m, s) => Math.max(m, s.totalPlayers), 0);
  return (
    <figure class="pf-chart" aria-label={`Players over the last ${minutes} minutes: ${now} now, at most ${peak}`}>
      <div ref={box} class="pf-plot" />
      <figcaption class="op-muted">
        {samples.length} sample(s); {now} player(s) now, at most {peak}.
      </figcaption>
    </figure>
  );
}
