/** One sample of a metric family: label values and the number. */
export interface Sample {
  labels?: Record<string, string>;
  value: number;
}

interface Family {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  collect: () => Sample[];
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
        const labels = renderLabels(family.name, sample.labels);
        const key = seriesKey(sample.labels);
        if (seen.has(key)) throw new Error(`metric ${family.name} yielded the series ${labels || '{}'} twice`);
        seen.add(key);
        out.push(`${family.name}${labels} ${formatNumber(sample.value)}`);
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
