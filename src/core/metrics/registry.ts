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

  render(): string {
    const out: string[] = [];
    for (const family of this.families.values()) {
      out.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`);
      for (const sample of family.collect()) out.push(`${family.name}${renderLabels(sample.labels)} ${formatNumber(sample.value)}`);
    }
    return `${out.join('\n')}\n`;
  }

  names(): string[] {
    return [...this.families.keys()];
  }

  private add(family: Family): void {
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

function renderLabels(labels: Record<string, string> | undefined): string {
  if (!labels) return '';
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}
