export interface ChangelogEntry {
  version: string;
  title: string;
  body: string;
}

/**
 * The release sections of a CHANGELOG.md: each `## <version> (<when>)` heading starts an
 * entry; its title is the first line of prose under the heading (else the version), followed
 * by ` (<when>)` when the release has a date — the dashboard turns a trailing "(date)" into a
 * "Released …" line, so an unreleased section carries none. Its body is the section's markdown
 * without the heading. Text before the first release heading (the file's own preamble) is not
 * an entry.
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
    const when = match[2]!.replace(/^\((.*)\)$/, '$1').trim();
    const firstProse = body.split('\n').find((line) => line.trim() !== '' && !/^[-*#>]|^\s/.test(line));
    const title = firstProse?.trim() ?? `svc ${match[1]!}`;
    const released = when !== '' && !/unreleased/i.test(when);
    entries.push({ version: match[1]!, title: released ? `${title} (${when})` : title, body });
  }
  return entries;
}
