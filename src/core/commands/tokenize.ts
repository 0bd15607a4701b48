/**
 * Splits a console line into words: whitespace separates, "double" or 'single' quotes keep
 * spaces inside one word, a backslash outside single quotes takes the next character as is.
 * An unclosed quote runs to the end of the line (what the operator most likely meant).
 */
export function tokenize(line: string): string[] {
  return scan(line).words;
}

/**
 * The words before the cursor and the partial word under it, for completion:
 * `"start lob|"` → `{ done: ['start'], partial: 'lob' }`; `"start |"` → partial ''.
 */
export function splitForCompletion(buffer: string, cursor: number): { done: string[]; partial: string } {
  const { words, endsInWord } = scan(buffer.slice(0, Math.max(0, Math.min(cursor, buffer.length))));
  if (!endsInWord) return { done: words, partial: '' };
  return { done: words.slice(0, -1), partial: words[words.length - 1] ?? '' };
}

function scan(line: string): { words: string[]; endsInWord: boolean } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return { words, endsInWord: inWord };
}
