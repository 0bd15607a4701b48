/**
 * The players chart's part loaded when it is first shown (a dynamic import of this module):
 * uPlot and its stylesheet. Actual players (the hourly mean and peak of the last 24 hours) and
 * the predicted players of the next 6 hours on one time axis, in the schedule's zone; the
 * colours are read from the page's custom properties (light or dark), since a canvas cannot
 * use CSS variables.
 */
import uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css' with { type: 'file' };
import { loadStylesheet } from '../../stylesheet';
import type { HistoryHour, PredictedHour } from './model';

export interface ChartData {
  history: readonly HistoryHour[];
  predictions: readonly PredictedHour[];
}

export interface MountedChart {
  update(data: ChartData): void;
  resize(width: number): void;
  dispose(): void;
}

const HEIGHT = 240;

/** One time axis for both: every hour either answer has, the other's value null there. */
function columns({ history, predictions }: ChartData): uPlot.AlignedData {
  const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  const times = [...new Set([...history.map((h) => at(h.timestamp)), ...predictions.map((p) => at(p.timestamp))])].sort((a, b) => a - b);
  const mean = new Map(history.map((h) => [at(h.timestamp), h.playerCount]));
  const peak = new Map(history.map((h) => [at(h.timestamp), h.peakPlayerCount]));
  const predicted = new Map(predictions.map((p) => [at(p.timestamp), p.predictedPlayers]));
  return [times, times.map((t) => mean.get(t) ?? null), times.map((t) => peak.get(t) ?? null), times.map((t) => predicted.get(t) ?? null)];
}

export async function mountChart(container: HTMLElement, data: ChartData, timezone: string): Promise<MountedChart> {
  // When another part of the app imports the same file as CSS, the bundler hands over that
  // module (an object, not a URL) and the rules are in the page's stylesheet already.
  if (typeof uplotCss === 'string') await loadStylesheet(uplotCss);
  const style = getComputedStyle(container);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const muted = read('--muted', '#5d6068');
  const line = read('--line', '#d9dbe0');
  const actual = read('--sc-actual', '#2f6feb');
  const peak = read('--sc-peak', '#8aa9e8');
  const predicted = read('--sc-predicted', '#b7791f');
  const axis = (extra: uPlot.Axis = {}): uPlot.Axis => ({ stroke: muted, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 }, ...extra });
  let zoneOk = true;
  try {
    uPlot.tzDate(new Date(), timezone);
  } catch {
    zoneOk = false;
  }
  const chart = new uPlot(
    {
      width: Math.max(container.clientWidth, 200),
      height: HEIGHT,
      ...(zoneOk ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), timezone) } : {}),
      scales: {
        // The last 24 hours and the 6 ahead, however few hours have samples yet.
        x: { time: true, range: () => [Date.now() / 1000 - 24 * 3600, Date.now() / 1000 + 6 * 3600] },
        y: { range: (_u, _min, max) => [0, Math.max(5, Math.ceil((max || 0) * 1.15))] },
      },
      series: [
        {},
        { label: 'Players (hourly mean)', stroke: actual, width: 2, fill: 'rgba(47, 111, 235, 0.10)', spanGaps: false, points: { show: true, size: 5 } },
        { label: 'Peak', stroke: peak, width: 1, spanGaps: false, points: { show: false } },
        { label: 'Predicted', stroke: predicted, width: 2, dash: [6, 4], spanGaps: true, points: { show: true, size: 5 } },
      ],
      axes: [axis(), axis({ size: 44, label: 'players' })],
      legend: { live: true },
    },
    columns(data),
    container,
  );
  return {
    update: (next) => chart.setData(columns(next)),
    resize: (width) => chart.setSize({ width: Math.max(width, 200), height: HEIGHT }),
    dispose: () => chart.destroy(),
  };
}
