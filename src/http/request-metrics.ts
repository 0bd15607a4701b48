import { DEFAULT_BUCKETS, type Histogram, type HistogramSeries, type MetricsRegistry } from '../core/metrics/registry';

/** The `route` label of a request no declared route answers (404 ROUTE_NOT_FOUND). */
export const UNMATCHED_ROUTE = 'unmatched';

export const REQUEST_DURATION_METRIC = 'svc_http_request_duration_seconds';

const CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/**
 * `svc_http_request_duration_seconds{route,status}`: every answered API request by its route
 * *template* (`/api/services/:name`, never the raw path, so the series stay bounded by the
 * routes declared) and status class. The series of a route and class is made at its first
 * request and kept in a small array per route: observing is one Map lookup on the interned
 * template string, an index and the histogram's bucket scan, with nothing allocated.
 */
export class RequestMetrics {
  private readonly histogram: Histogram;
  private readonly byRoute = new Map<string, (HistogramSeries | undefined)[]>();

  constructor(metrics: MetricsRegistry) {
    this.histogram = metrics.histogram(
      REQUEST_DURATION_METRIC,
      `seconds from a request's arrival to its response, by route template (${UNMATCHED_ROUTE} for paths no route answers) and status class (2xx, 3xx, 4xx, 5xx)`,
      DEFAULT_BUCKETS,
    );
  }

  /** Counts one request; statuses outside 200..599 (a 101 upgrade) are not. */
  observe(route: string, status: number, seconds: number): void {
    const index = ((status / 100) | 0) - 2;
    if (index < 0 || index > 3) return;
    let row = this.byRoute.get(route);
    if (row === undefined) {
      row = [undefined, undefined, undefined, undefined];
      this.byRoute.set(route, row);
    }
    let series = row[index];
    if (series === undefined) {
      series = this.histogram.series({ route, status: CLASSES[index]! });
      row[index] = series;
    }
    series.observe(seconds);
  }
}
