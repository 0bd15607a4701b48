/** `; did you mean "<candidate>"?` for a word within two edits of one of the candidates, else ''. */
export function suggest(word: string, candidates: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const d = word.length > 64 ? 99 : levenshtein(word, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best ? `; did you mean "${best}"?` : '';
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
