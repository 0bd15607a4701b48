/**
 * What Tab does with the controller's candidates. The console socket completes the word under
 * the cursor (`complete` with the input up to the cursor; `completions` lists whole words that
 * start with it): one candidate replaces the word and adds a space; several extend the word to
 * what they share and are shown for the operator to pick from. Pure.
 */
export interface Completed {
  /** The input after completion. */
  text: string;
  /** Where the cursor goes. */
  cursor: number;
  /** Candidates to show (several), else none. */
  shown: string[];
}

export function applyCompletion(input: string, cursor: number, candidates: readonly string[]): Completed {
  const start = wordStart(input, cursor);
  const partial = input.slice(start, cursor);
  const rest = input.slice(cursor);
  const replace = (word: string, space: boolean): Completed => {
    const insert = word + (space && !rest.startsWith(' ') ? ' ' : '');
    return { text: input.slice(0, start) + insert + rest, cursor: start + insert.length + (space && rest.startsWith(' ') ? 1 : 0), shown: [] };
  };
  if (candidates.length === 0) return { text: input, cursor, shown: [] };
  if (candidates.length === 1) return replace(candidates[0]!, true);
  const shared = commonPrefix(candidates);
  const extended = shared.length > partial.length ? replace(shared, false) : { text: input, cursor, shown: [] };
  return { ...extended, shown: [...candidates] };
}

/** Where the word under the cursor begins (after the last space before it). */
export function wordStart(input: string, cursor: number): number {
  if (cursor <= 0) return 0;
  return input.lastIndexOf(' ', cursor - 1) + 1;
}

function commonPrefix(words: readonly string[]): string {
  let prefix = words[0] ?? '';
  for (const word of words) {
    let i = 0;
    while (i < prefix.length && i < word.length && prefix[i]!.toLowerCase() === word[i]!.toLowerCase()) i++;
    prefix = prefix.slice(0, i);
  }
  return prefix;
}
