/** One sample of a metric family: label values and the number. */
export interface Sample {
  labels?: Record<string, string>;
  value: number;
  /** Appended to the family name (a histogram's `_bucket`, `_sum`, `_count`). */
  suffix?: string;
}

interface Family {
  name: string;
  help: string;
  type: 'gauge' | 'counter' | 'histogram';
  collect: () => Sample[];
}

/** The Prometheus client libraries' default buckets (seconds), suited to request latencies. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * One labelled series of a histogram. Observing is a short scan of the bucket bounds and three
 * additions, with no allocation: cheap enough for every HTTP request. Counts are kept per bucket
 * and made cumulative when scraped.
 */
export class HistogramSeries {
  /** Observations per bucket (not cumulative); what lies above the last bound is only in `count`. */
  private readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    const n = bounds.length;
    let i = 0;
    while (i < n && value > bounds[i]!) i++;
    if (i < n) this.counts[i]!++;
    this.count++;
    this.sum += value;
  }

  /** `_bucket` (cumulative, ending in `le="+Inf"` = count), `_sum` and `_count`. */
  samples(): Sample[] {
    const out: Sample[] = [];
    let cumulative = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      cumulative += this.counts[i]!;
      out.push({ suffix: '_bucket', labels: { ...this.labels, le: formatNumber(this.bounds[i]!) }, value: cumulative });
    }
    out.push({ suffix: '_bucket', labels: { ...this.labels, le: '+Inf' }, value: this.count });
    out.push({ suffix: '_sum', labels: this.labels, value: this.sum });
    out.push({ suffix: '_count', labels: this.labels, value: this.count });
    return out;
  }
}

/**
 * A histogram family: its series are created on first use (`series`, which callers keep to
 * observe without a lookup) and rendered in the order they were created.
 */
export class Histogram {
  private readonly children = new Map<string, HistogramSeries>();
  readonly bounds: readonly number[];

  constructor(
    readonly name: string,
    buckets: readonly number[],
  ) {
    if (buckets.length === 0) throw new Error(`histogram ${name} needs at least one bucket`);
    for (let i = 0; i < buckets.length; i++) {
      if (!Number.isFinite(buckets[i]!)) throw new Error(`histogram ${name}: bucket bounds are finite numbers (+Inf is implied)`);
      if (i > 0 && buckets[i]! <= buckets[i - 1]!) throw new Error(`histogram ${name}: bucket bounds must increase`);
    }
    this.bounds = [...buckets];
  }

  /** The series with these labels (created at the first call; `le` is reserved). */
  series(labels: Record<string, string> = {}): HistogramSeries {
    const key = seriesKey(labels);
    let child = this.children.get(key);
    if (!child) {
      if (Object.hasOwn(labels, 'le')) throw new Error(`histogram ${this.name}: the label le is reserved for buckets`);
      child = new HistogramSeries({ ...labels }, this.bounds);
      this.children.set(key, child);
    }
    return child;
  }

  samples(): Sample[] {
    const out: Sample[] = [];
    for (const child of this.children.values()) out.push(...child.samples());
    return out;
  }
}

/**
 * Text exposition (Prometheus format) of the metric families registered by the parts of the
 * controller. A family is collected when scraped, so nothing is computed between scrapes.
 */
export class MetricsRegistry {
  private readonly families = new Map<string, Family>();

  gauge(name: string, help: string, collect: () => Sample[] | number): void {
    this.add({ name, help, type: 'gauge', collect: normalise(collect) });
  }

  counter(name: string, help: string, collect: () => Sample[] | number): void {
    this.add({ name, help, type: 'counter', collect: normalise(collect) });
  }

  /** A histogram family (`_bucket`, `_sum`, `_count`); observe through its series. */
  histogram(name: string, help: string, buckets: readonly number[] = DEFAULT_BUCKETS): Histogram {
    const histogram = new Histogram(name, buckets);
    this.add({ name, help, type: 'histogram', collect: () => histogram.samples() });
    return histogram;
  }

  /**
   * Text exposition format 0.0.4: per family one HELP and one TYPE line, then its samples.
   * A collector that yields an invalid label name or the same label set twice is a bug and
   * throws rather than serve text a scraper would reject whole.
   */
  render(): string {
    const out: string[] = [];
    for (const family of this.families.values()) {
      out.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
      const seen = new Set<string>();
      for (const sample of family.collect()) {
        const name = sample.suffix ? family.name + sample.suffix : family.name;
        const labels = renderLabels(family.name, sample.labels);
        const key = `${name}${seriesKey(sample.labels)}`;
        if (seen.has(key)) throw new Error(`metric ${name} yielded the series ${labels || '{}'} twice`);
        seen.add(key);
        out.push(`${name}${labels} ${formatNumber(sample.value)}`);
      }
    }
    return `${out.join('\n')}\n`;
  }

  names(): string[] {
    return [...this.families.keys()];
  }

  private add(family: Family): void {
    if (!METRIC_NAME.test(family.name)) throw new Error(`metric name "${family.name}" is not [a-zA-Z_:][a-zA-Z0-9_:]*`);
    if (family.type === 'counter' && !family.name.endsWith('_total')) throw new Error(`counter ${family.name} must end in _total`);
    if (this.families.has(family.name)) throw new Error(`metric ${family.name} registered twice`);
    this.families.set(family.name, family);
  }
}

function normalise(collect: () => Sample[] | number): () => Sample[] {
  return () => {
    const result = collect();
    return typeof result === 'number' ? [{ value: result }] : result;
  };
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
/** Label names starting with `__` are reserved for the scraper's own use. */
const LABEL_NAME = /^(?!__)[a-zA-Z_][a-zA-Z0-9_]*$/;

/** HELP text: one line, with `\` and line feeds escaped (a raw CR is folded to a space). */
function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\r\n|\n/g, '\\n').replace(/\r/g, ' ');
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** `{a="1",b="2"}` in the order the collector gave. */
function renderLabels(metric: string, labels: Record<string, string> | undefined): string {
  if (!labels) return '';
  const parts = Object.entries(labels).map(([k, v]) => {
    if (!LABEL_NAME.test(k)) throw new Error(`metric ${metric}: label name "${k}" is not [a-zA-Z_][a-zA-Z0-9_]* (or starts with __)`);
    return `${k}="${escapeLabelValue(String(v))}"`;
  });
  return parts.length ? `{${parts.join(',')}}` : '';
}

/** A label set independent of order, to spot the same series yielded twice. */
function seriesKey(labels: Record<string, string> | undefined): string {
  return JSON.stringify(Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}
