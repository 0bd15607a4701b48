/**
 * The known words closest to a mistyped one, for "did you mean": within two edits (one for words
 * of three letters or fewer), a swap of two neighbouring letters counting as one, or the only
 * word that starts with it. Best first, at most three.
 */
export function closestWords(word: string, known: readonly string[]): string[] {
  const typed = word.toLowerCase();
  if (typed.length === 0 || typed.length > 64) return [];
  const limit = typed.length <= 3 ? 1 : 2;
  const scored = [...new Set(known)].map((candidate) => ({ candidate, distance: editDistance(typed, candidate.toLowerCase()) })).filter((s) => s.distance <= limit);
  if (scored.length === 0) {
    const prefixed = known.filter((candidate) => candidate.toLowerCase().startsWith(typed));
    return prefixed.length === 1 ? prefixed : [];
  }
  const best = Math.min(...scored.map((s) => s.distance));
  return scored
    .filter((s) => s.distance === best)
    .map((s) => s.candidate)
    .sort()
    .slice(0, 3);
}

/** `; did you mean "status"?` or `; did you mean "start" or "stats"?`, or '' when nothing is close. */
export function didYouMean(word: string, known: readonly string[]): string {
  const words = closestWords(word, known).map((w) => `"${w}"`);
  if (words.length === 0) return '';
  return `; did you mean ${words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`}?`;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
