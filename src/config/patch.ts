import { parse as parseToml } from 'smol-toml';

export interface TomlUpdate {
  section: string;
  key: string;
  value: string | boolean | number;
}

const SECTION_HEADER = /^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$/;

/**
 * Rewrites the values of a few top-level keys in TOML text, keeping every other line,
 * comment and blank byte-for-byte. Missing keys are added at the end of their section,
 * missing sections at the end of the file. The result is re-parsed and compared with the
 * input so that a patch can never change anything but the named keys.
 */
export function patchToml(text: string, updates: TomlUpdate[]): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  for (const update of updates) applyOne(lines, update, eol);
  const result = lines.join(eol);
  verify(text, result, updates);
  return result;
}

function applyOne(lines: string[], update: TomlUpdate, eol: string): void {
  const rendered = renderValue(update.value);
  let section: string | null = null;
  let lastLineOfSection = -1;
  // `[^]*` rather than `.*`: a value may hold U+2028/U+2029, which `.` does not match.
  const keyLine = new RegExp(`^([ \\t]*)(${escapeRegExp(update.key)}|"${escapeRegExp(update.key)}")([ \\t]*=[ \\t]*)([^]*)$`);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = SECTION_HEADER.exec(line);
    if (header) {
      section = header[1]!;
      if (section === update.section) lastLineOfSection = i;
      continue;
    }
    if (section !== update.section) continue;
    if (line.trim() !== '' && !line.trim().startsWith('#')) lastLineOfSection = i;
    const match = keyLine.exec(line);
    if (!match) continue;
    const rest = match[4]!;
    const valueEnd = scanValueEnd(rest);
    lines[i] = `${match[1]}${match[2]}${match[3]}${rendered}${rest.slice(valueEnd)}`;
    return;
  }
  const newLine = `${update.key} = ${rendered}`;
  if (lastLineOfSection >= 0) {
    lines.splice(lastLineOfSection + 1, 0, newLine);
    return;
  }
  // Section absent: append it, keeping a trailing newline if the file had one.
  const hadTrailingNewline = lines.length > 0 && lines[lines.length - 1] === '';
  if (hadTrailingNewline) lines.pop();
  lines.push('', `[${update.section}]`, newLine);
  if (hadTrailingNewline) lines.push('');
  void eol;
}

/** Index just past the TOML value at the start of `rest`; multi-line strings are refused. */
function scanValueEnd(rest: string): number {
  if (rest.startsWith('"""') || rest.startsWith("'''")) {
    throw new Error('multi-line string values cannot be patched in place');
  }
  return tomlValueEnd(rest);
}

/** Index just past the TOML value at the start of `rest` (a basic/literal string or a bare token). */
export function tomlValueEnd(rest: string): number {
  if (rest.startsWith('"')) {
    for (let i = 1; i < rest.length; i++) {
      if (rest[i] === '\\') i++;
      else if (rest[i] === '"') return i + 1;
    }
    return rest.length;
  }
  if (rest.startsWith("'")) {
    const end = rest.indexOf("'", 1);
    return end < 0 ? rest.length : end + 1;
  }
  const hash = rest.indexOf('#');
  return (hash < 0 ? rest : rest.slice(0, hash)).trimEnd().length;
}

function renderValue(value: string | boolean | number): string {
  return typeof value === 'string' ? tomlString(value) : String(value);
}

const NAMED_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };

/**
 * A TOML basic string. TOML forbids raw control characters (U+0000-U+001F but tab, and U+007F)
 * and cannot hold lone surrogates; line and paragraph separators are escaped for readability.
 */
export function tomlString(value: string): string {
  if (!value.isWellFormed()) throw new Error('text with a lone surrogate cannot be stored in TOML');
  const escaped = value.replace(/["\\\u0000-\u001f\u007f\u2028\u2029]/g, (ch) => NAMED_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`);
  return `"${escaped}"`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function verify(before: string, after: string, updates: TomlUpdate[]): void {
  const a = parseToml(before) as Record<string, Record<string, unknown>>;
  const b = parseToml(after) as Record<string, Record<string, unknown>>;
  for (const u of updates) {
    if (b[u.section]?.[u.key] !== u.value) throw new Error(`patch of [${u.section}] ${u.key} did not take`);
    a[u.section] ??= {};
    a[u.section]![u.key] = u.value;
  }
  if (!Bun.deepEquals(a, b, true)) throw new Error('patch changed keys it was not asked to change');
}
