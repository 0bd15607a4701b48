/** A value `setYamlValues` can write. */
export type YamlScalar = string | number | boolean;

type YamlMap = Record<string, unknown>;

/**
 * Sets scalar keys of one block mapping, found by its key path (`['proxies', 'velocity']`), in
 * YAML text, keeping every other line and comment; missing mappings and keys are added at the
 * end of their parent. Bun.YAML can parse and stringify, but stringify drops every comment,
 * and Paper's and Spigot's files are mostly comments and hand-tuned values, so edits are
 * made on the lines.
 *
 * The result is parsed and compared with the parsed input plus the requested values. When the
 * line edit cannot express the change (flow style, a scalar where a mapping is needed, odd
 * indentation), the document is re-rendered from the parsed data instead: comments are lost
 * then, but the values are right. Text that is not a YAML mapping throws.
 */
export function setYamlValues(text: string, path: readonly string[], values: Readonly<Record<string, YamlScalar>>): string {
  for (const value of Object.values(values)) {
    if (typeof value === 'string' && /[\r\n]/.test(value)) throw new Error('YAML values with line breaks are not supported');
  }
  const expected = withValues(parseMapping(text), path, values);
  const patched = patchLines(text, path, values);
  if (patched !== null && parsesTo(patched, expected)) return patched;
  return `${Bun.YAML.stringify(expected, null, 2)}\n`;
}

function parseMapping(text: string): YamlMap {
  const parsed = Bun.YAML.parse(text);
  if (parsed === null || parsed === undefined) return {};
  if (!isMap(parsed)) throw new Error('the YAML document is not a mapping');
  return parsed;
}

function isMap(value: unknown): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withValues(data: YamlMap, path: readonly string[], values: Readonly<Record<string, YamlScalar>>): YamlMap {
  const root = structuredClone(data);
  let node = root;
  for (const key of path) {
    const child = node[key];
    if (isMap(child)) node = child;
    else node = node[key] = {};
  }
  Object.assign(node, values);
  return root;
}

function parsesTo(text: string, expected: YamlMap): boolean {
  try {
    return Bun.deepEquals(parseMapping(text), expected, true);
  } catch {
    return false;
  }
}

// ---- line editing -------------------------------------------------------------------------

interface Lines {
  lines: string[];
  /** Indentation step for new levels: the file's own, else two spaces. */
  unit: number;
}

function patchLines(text: string, path: readonly string[], values: Readonly<Record<string, YamlScalar>>): string | null {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text === '' ? [] : text.split(/\r?\n/);
  const trailingNewline = lines.length === 0 || lines[lines.length - 1] === '';
  if (lines.length > 0 && trailingNewline) lines.pop();
  const doc: Lines = { lines, unit: detectUnit(lines) };
  for (const [key, value] of Object.entries(values)) {
    if (!setOne(doc, path, key, value)) return null;
  }
  return lines.join(eol) + (trailingNewline ? eol : '');
}

/** Sets one key under `path`, adding what is missing. False when the lines cannot express it. */
function setOne(doc: Lines, path: readonly string[], key: string, value: YamlScalar): boolean {
  const { lines } = doc;
  // The body of the current mapping: lines [start, end), whose keys sit deeper than parentIndent.
  let start = 0;
  let end = lines.length;
  let parentIndent = -1;
  for (let depth = 0; depth <= path.length; depth++) {
    const name = depth < path.length ? path[depth]! : key;
    const childIndent = bodyIndent(lines, start, end, parentIndent);
    const at = childIndent === null ? -1 : findKey(lines, start, end, childIndent, name);
    if (at === -1) {
      const indent = childIndent ?? (parentIndent < 0 ? 0 : parentIndent + doc.unit);
      const block = path.slice(depth).map((segment, i) => `${' '.repeat(indent + i * doc.unit)}${segment}:`);
      block.push(`${' '.repeat(indent + (path.length - depth) * doc.unit)}${key}: ${renderScalar(value)}`);
      lines.splice(insertionPoint(lines, start, end, parentIndent), 0, ...block);
      return true;
    }
    const { prefix, rest } = splitKeyLine(lines[at]!);
    const nestedEnd = blockEnd(lines, at + 1, childIndent!);
    const hasNested = bodyIndent(lines, at + 1, nestedEnd, childIndent!) !== null;
    const valueText = rest.trimStart();
    const holdsValue = valueText !== '' && !valueText.startsWith('#');
    if (depth < path.length) {
      // A mapping on the way down: must be a block mapping (or empty) to be edited in lines.
      if (holdsValue) return false;
      start = at + 1;
      end = nestedEnd;
      parentIndent = childIndent!;
      continue;
    }
    if (hasNested) return false;
    if (holdsValue && /^[&!|>*{[]/.test(valueText)) return false;
    const after = holdsValue ? valueText.slice(scalarEnd(valueText)) : valueText === '' ? '' : ` ${valueText}`;
    lines[at] = `${prefix} ${renderScalar(value)}${after}`;
    return true;
  }
  return false;
}

function isContent(line: string): boolean {
  const trimmed = line.trim();
  return trimmed !== '' && !trimmed.startsWith('#') && trimmed !== '---' && trimmed !== '...';
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Indentation of the first content line in the range, if it is deeper than the parent. */
function bodyIndent(lines: string[], start: number, end: number, parentIndent: number): number | null {
  for (let i = start; i < end; i++) {
    if (!isContent(lines[i]!)) continue;
    const indent = indentOf(lines[i]!);
    return indent > parentIndent ? indent : null;
  }
  return null;
}

/** First line from `from` on whose content is not deeper than `indent`: where a block ends. */
function blockEnd(lines: string[], from: number, indent: number): number {
  for (let i = from; i < lines.length; i++) {
    if (isContent(lines[i]!) && indentOf(lines[i]!) <= indent) return i;
  }
  return lines.length;
}

function findKey(lines: string[], start: number, end: number, indent: number, key: string): number {
  const pattern = keyPattern(key);
  for (let i = start; i < end; i++) {
    const line = lines[i]!;
    if (isContent(line) && indentOf(line) === indent && pattern.test(line)) return i;
  }
  return -1;
}

/** After the last content line of the body, so comments heading the next block stay with it. */
function insertionPoint(lines: string[], start: number, end: number, parentIndent: number): number {
  for (let i = end - 1; i >= start; i--) if (isContent(lines[i]!)) return i + 1;
  return parentIndent < 0 ? lines.length : start;
}

function keyPattern(key: string): RegExp {
  const k = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\s*(?:${k}|'${k}'|"${k}")\\s*:(?:\\s|$)`);
}

function splitKeyLine(line: string): { prefix: string; rest: string } {
  const match = /^(\s*(?:'[^']*'|"[^"]*"|[^\s'"#][^:#]*?)\s*:)(.*)$/.exec(line);
  return match ? { prefix: match[1]!, rest: match[2]! } : { prefix: line, rest: '' };
}

/** Index just past the scalar at the start of `text` (quoted, or plain up to ` #`). */
function scalarEnd(text: string): number {
  if (text.startsWith("'")) {
    for (let i = 1; i < text.length; i++) {
      if (text[i] !== "'") continue;
      if (text[i + 1] === "'") i++;
      else return i + 1;
    }
    return text.length;
  }
  if (text.startsWith('"')) {
    for (let i = 1; i < text.length; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '"') return i + 1;
    }
    return text.length;
  }
  const comment = text.search(/\s#/);
  return (comment === -1 ? text : text.slice(0, comment)).trimEnd().length;
}

function renderScalar(value: YamlScalar): string {
  return typeof value === 'string' ? `'${value.replace(/'/g, "''")}'` : String(value);
}

function detectUnit(lines: string[]): number {
  for (const line of lines) {
    if (isContent(line) && indentOf(line) > 0) return indentOf(line);
  }
  return 2;
}
