/**
 * A STRICT parser of the Prometheus text exposition format 0.0.4, for tests. Stricter than
 * Prometheus itself: it accepts only what a well-behaved exporter writes, so a test that
 * parses `/api/metrics` with it proves the text is unambiguous for any scraper.
 *
 * Every line is one of
 *   - `# HELP <name> <text>`       text escapes only `\\` and `\n`
 *   - `# TYPE <name> <type>`       type: counter, gauge, histogram, summary, untyped
 *   - `<name>[{<label>="<value>",...}] <number>[ <timestamp>]`
 *   - empty
 * (free comments are rejected). Metric names match `[a-zA-Z_:][a-zA-Z0-9_:]*`, label names
 * `[a-zA-Z_][a-zA-Z0-9_]*` (not `__`-prefixed); label values escape only `\\`, `\"`, `\n`;
 * numbers are Go floats (decimal, exponent, NaN, +Inf, -Inf). HELP and TYPE appear at most
 * once per family and before its samples; a family's lines are contiguous; no series (name
 * plus label set) appears twice; the text ends with a line feed. Any violation throws an
 * {@link ExpositionError} naming the 1-based line.
 */

export const METRIC_TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  timestamp?: number;
  /** 1-based line number. */
  line: number;
}

export interface ParsedFamily {
  name: string;
  help?: string;
  type?: MetricType;
  samples: ParsedSample[];
}

export interface Exposition {
  /** In the order they appeared. */
  families: Map<string, ParsedFamily>;
  /** The one sample with exactly this name and label set. */
  sample(name: string, labels?: Record<string, string>): ParsedSample | undefined;
  /** Its value, or undefined when there is no such series. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

export class ExpositionError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'ExpositionError';
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INT = /^-?\d+$/;
const BLANK = /[ \t]/;

/** The label set as a key independent of label order. */
export function seriesKey(name: string, labels: Record<string, string>): string {
  return `${name}${JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;
}

export function parseNumber(text: string): number | undefined {
  if (text === 'NaN') return NaN;
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (!FLOAT.test(text)) return undefined;
  return Number(text);
}

export function parseExposition(text: string): Exposition {
  const families = new Map<string, ParsedFamily>();
  const series = new Map<string, ParsedSample>();
  const closed = new Set<string>();
  let current: string | undefined;

  const lines = text.split('\n');
  if (text.length > 0) {
    if (lines.at(-1) !== '') throw new ExpositionError(lines.length, 'the text must end with a line feed');
    lines.pop();
  }

  /** Moves to `name`'s family; a family that was left before cannot come back. */
  const enter = (name: string, lineNo: number, what: string): ParsedFamily => {
    if (current !== name) {
      if (closed.has(name)) throw new ExpositionError(lineNo, `${what} of family ${name} is not contiguous with its earlier lines`);
      if (current !== undefined) closed.add(current);
      current = name;
    }
    let family = families.get(name);
    if (!family) {
      family = { name, samples: [] };
      families.set(name, family);
    }
    return family;
  };

  /** The family a sample name belongs to: histogram and summary samples carry suffixes. */
  const familyOf = (sampleName: string): string => {
    if (families.get(sampleName)?.type) return sampleName;
    const m = /^(.*)_(bucket|sum|count)$/.exec(sampleName);
    if (m) {
      const base = families.get(m[1]!);
      if (base?.type === 'histogram') return m[1]!;
      if (base?.type === 'summary' && m[2] !== 'bucket') return m[1]!;
    }
    return sampleName;
  };

  lines.forEach((line, index) => {
    const lineNo = index + 1;
    if (line === '') return;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
      if (!meta) throw new ExpositionError(lineNo, `not a HELP or TYPE line: ${JSON.stringify(line)}`);
      const keyword = meta[1] as 'HELP' | 'TYPE';
      const name = meta[2]!;
      const rest = meta[3] ?? '';
      if (!METRIC_NAME.test(name)) throw new ExpositionError(lineNo, `invalid metric name ${JSON.stringify(name)}`);
      const family = enter(name, lineNo, keyword);
      if (family.samples.length > 0) throw new ExpositionError(lineNo, `${keyword} of ${name} after its samples`);
      if (keyword === 'HELP') {
        if (family.help !== undefined) throw new ExpositionError(lineNo, `second HELP for ${name}`);
        family.help = unescapeHelp(rest, lineNo);
      } else {
        if (family.type !== undefined) throw new ExpositionError(lineNo, `second TYPE for ${name}`);
        if (!(METRIC_TYPES as readonly string[]).includes(rest)) throw new ExpositionError(lineNo, `unknown TYPE ${JSON.stringify(rest)} for ${name}`);
        family.type = rest as MetricType;
      }
      return;
    }
    const sample = parseSample(line, lineNo);
    const family = enter(familyOf(sample.name), lineNo, 'sample');
    const key = seriesKey(sample.name, sample.labels);
    const earlier = series.get(key);
    if (earlier) throw new ExpositionError(lineNo, `duplicate series ${sample.name}${JSON.stringify(sample.labels)} (first on line ${earlier.line})`);
    series.set(key, sample);
    family.samples.push(sample);
  });

  return {
    families,
    sample: (name, labels = {}) => series.get(seriesKey(name, labels)),
    value: (name, labels = {}) => series.get(seriesKey(name, labels))?.value,
  };
}

function unescapeHelp(text: string, lineNo: number): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = text[i + 1];
    if (next === '\\') out += '\\';
    else if (next === 'n') out += '\n';
    else throw new ExpositionError(lineNo, `invalid escape in HELP text: \\${next ?? '(end of line)'}`);
    i++;
  }
  return out;
}

function parseSample(line: string, lineNo: number): ParsedSample {
  const nameMatch = /^[^{ \t]*/.exec(line)!;
  const name = nameMatch[0];
  if (!METRIC_NAME.test(name)) throw new ExpositionError(lineNo, `invalid metric name ${JSON.stringify(name)}`);
  let i = name.length;
  const labels: Record<string, string> = {};

  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const labelMatch = /^[^=}]*/.exec(line.slice(i))!;
      const label = labelMatch[0];
      if (!LABEL_NAME.test(label)) throw new ExpositionError(lineNo, `invalid label name ${JSON.stringify(label)}`);
      if (label.startsWith('__')) throw new ExpositionError(lineNo, `reserved label name ${label}`);
      if (Object.hasOwn(labels, label)) throw new ExpositionError(lineNo, `label ${label} given twice`);
      i += label.length;
      if (line[i] !== '=' || line[i + 1] !== '"') throw new ExpositionError(lineNo, `expected ="…" after label ${label}`);
      i += 2;
      let value = '';
      for (;;) {
        const ch = line[i];
        if (ch === undefined) throw new ExpositionError(lineNo, `unterminated value of label ${label}`);
        i++;
        if (ch === '"') break;
        if (ch === '\\') {
          const next = line[i];
          if (next === '\\') value += '\\';
          else if (next === '"') value += '"';
          else if (next === 'n') value += '\n';
          else throw new ExpositionError(lineNo, `invalid escape in value of label ${label}: \\${next ?? '(end of line)'}`);
          i++;
          continue;
        }
        value += ch;
      }
      labels[label] = value;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') throw new ExpositionError(lineNo, `expected , or } after the value of label ${label}`);
    }
    i++;
  }

  const rest = line.slice(i);
  if (!rest.length || !BLANK.test(rest[0]!)) throw new ExpositionError(lineNo, `expected a blank and a value after ${name}`);
  const fields = rest.slice(1).replace(/^[ \t]+/, '').split(/[ \t]+/);
  if (fields[0] === '') throw new ExpositionError(lineNo, `missing value after ${name}`);
  if (fields.at(-1) === '') throw new ExpositionError(lineNo, 'trailing blanks');
  if (fields.length > 2) throw new ExpositionError(lineNo, `unexpected text after the value: ${JSON.stringify(fields.slice(2).join(' '))}`);
  const value = parseNumber(fields[0]!);
  if (value === undefined) throw new ExpositionError(lineNo, `not a number: ${JSON.stringify(fields[0])}`);
  const sample: ParsedSample = { name, labels, value, line: lineNo };
  if (fields.length === 2) {
    if (!INT.test(fields[1]!)) throw new ExpositionError(lineNo, `not a timestamp: ${JSON.stringify(fields[1])}`);
    sample.timestamp = Number(fields[1]);
  }
  return sample;
}
