/**
 * SHA256SUMS, as `sha256sum` writes it: `<64 hex>  <name>` (or ` *<name>` in binary mode), one
 * file per line. Blank lines and `#` comments are skipped; anything else is an error, so a
 * damaged file is never half-trusted.
 */
export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line);
    if (!match) throw new Error(`SHA256SUMS line ${index + 1} is not "<sha256>  <file>"`);
    sums.set(match[2]!.trim(), match[1]!.toLowerCase());
  }
  return sums;
}
