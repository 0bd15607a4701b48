/**
 * The metrics chart's part loaded when first needed (a dynamic import of this module): uPlot and
 * its stylesheet (a `<link>`, so the first page's stylesheet does not carry it). Memory in MB on
 * the left axis, players on the right, the last `minutes` along the bottom; the colours are read from the
 * page's own (light or dark scheme), since a canvas cannot use CSS variables.
 */
import uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css' with { type: 'file' };
import { loadStylesheet } from '../../stylesheet';
import type { MetricSample } from './model';

export interface MountedChart {
  update(samples: readonly MetricSample[]): void;
  resize(width: number): void;
  dispose(): void;
}

const HEIGHT = 220;
const MEMORY = '#2f6feb';
const PLAYERS = '#1b8a3a';

function columns(samples: readonly MetricSample[]): uPlot.AlignedData {
  return [samples.map((s) => Date.parse(s.timestamp) / 1000), samples.map((s) => s.memoryUsedMb), samples.map((s) => s.playerCount)];
}

export async function mountChart(container: HTMLElement, samples: readonly MetricSample[], minutes: number): Promise<MountedChart> {
  // When another part of the app imports the same file as CSS, the bundler hands over that
  // module (an object, not a URL) and the rules are in the page's stylesheet already.
  if (typeof uplotCss === 'string') await loadStylesheet(uplotCss);
  const style = getComputedStyle(container);
  const muted = style.getPropertyValue('--muted').trim() || '#5d6068';
  const line = style.getPropertyValue('--line').trim() || '#d9dbe0';
  const axis = (extra: uPlot.Axis = {}): uPlot.Axis => ({ stroke: muted, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 }, ...extra });
  const chart = new uPlot(
    {
      width: Math.max(container.clientWidth, 200),
      height: HEIGHT,
      // The window is the last `minutes` up to now, however few samples there are yet.
      scales: { x: { time: true, range: () => [Date.now() / 1000 - minutes * 60, Date.now() / 1000] }, mb: { range: (_u, _min, max) => [0, Math.max(64, max * 1.1)] }, players: { range: (_u, _min, max) => [0, Math.max(5, Math.ceil(max * 1.2))] } },
      series: [
        {},
        { label: 'Memory (MB)', scale: 'mb', stroke: MEMORY, width: 2, fill: 'rgba(47, 111, 235, 0.12)', points: { show: samples.length < 30 } },
        { label: 'Players', scale: 'players', stroke: PLAYERS, width: 2, points: { show: samples.length < 30 } },
      ],
      axes: [axis(), axis({ scale: 'mb', label: 'MB', size: 56 }), axis({ scale: 'players', side: 1, label: 'players', size: 48, grid: { show: false } })],
      legend: { live: true },
    },
    columns(samples),
    container,
  );
  return {
    update: (next) => chart.setData(columns(next)),
    resize: (width) => chart.setSize({ width: Math.max(width, 200), height: HEIGHT }),
    dispose: () => chart.destroy(),
  };
}
