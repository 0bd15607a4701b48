/**
 * Sets keys in Java properties text (`server.properties`, `eula.txt`), keeping every other
 * line, comment and blank as it was. Every occurrence of a key is set (Java keeps the last
 * one, so a duplicate left alone could win); a missing key is appended. Line ends (LF or
 * CRLF) and the trailing newline are kept; continuation lines of a replaced value go with it.
 */
export function setProperties(text: string, values: Readonly<Record<string, string>>): string {
  for (const [key, value] of Object.entries(values)) {
    if (!/^[A-Za-z0-9_.-]+$/.test(key)) throw new Error(`property key ${JSON.stringify(key)} needs escaping, which is not supported`);
    if (/[\\\r\n]/.test(value)) throw new Error(`property ${key}: value must not contain backslashes or line breaks`);
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text === '' ? [] : text.split(/\r?\n/);
  const trailingNewline = lines.length > 0 && lines[lines.length - 1] === '';
  if (trailingNewline) lines.pop();

  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const key = keyOf(line);
    let end = i;
    // A logical line continues while a physical line ends in an odd number of backslashes.
    if (key !== null) while (end + 1 < lines.length && continues(lines[end]!)) end++;
    if (key !== null && Object.hasOwn(values, key)) {
      out.push(`${key}=${values[key]}`);
      seen.add(key);
    } else {
      for (let j = i; j <= end; j++) out.push(lines[j]!);
    }
    i = end;
  }
  for (const [key, value] of Object.entries(values)) if (!seen.has(key)) out.push(`${key}=${value}`);
  return out.join(eol) + eol;
}

/** The unescaped key of a key/value line; null for blanks and comments. */
function keyOf(line: string): string | null {
  const body = line.replace(/^[ \t\f]+/, '');
  if (body === '' || body.startsWith('#') || body.startsWith('!')) return null;
  let key = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === '\\' && i + 1 < body.length) {
      key += body[++i];
      continue;
    }
    if (ch === '=' || ch === ':' || ch === ' ' || ch === '\t' || ch === '\f') break;
    key += ch;
  }
  return key;
}

function continues(line: string): boolean {
  const backslashes = /\\*$/.exec(line)?.[0].length ?? 0;
  return backslashes % 2 === 1;
}
