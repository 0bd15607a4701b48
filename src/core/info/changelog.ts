export interface ChangelogEntry {
  version: string;
  title: string;
  body: string;
}

/**
 * The release sections of a CHANGELOG.md: each `## <version> (<when>)` heading starts an
 * entry; its title is the first line of prose under the heading (else the heading's remainder),
 * its body the section's markdown without the heading. Text before the first release heading
 * (the file's own preamble) is not an entry.
 */
export function parseChangelog(markdown: string): ChangelogEntry[] {
  const entries: ChangelogEntry[] = [];
  const sections = markdown.split(/^## /m).slice(1);
  for (const section of sections) {
    const newline = section.indexOf('\n');
    const heading = (newline === -1 ? section : section.slice(0, newline)).trim();
    const body = (newline === -1 ? '' : section.slice(newline + 1)).trim();
    const match = /^v?(\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?)\s*(.*)$/.exec(heading);
    if (!match) continue;
    const rest = match[2]!.replace(/^\((.*)\)$/, '$1').trim();
    const firstProse = body.split('\n').find((line) => line.trim() !== '' && !/^[-*#>]|^\s/.test(line));
    entries.push({ version: match[1]!, title: firstProse?.trim() ?? rest, body });
  }
  return entries;
}
