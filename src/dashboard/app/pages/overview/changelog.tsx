/**
 * The release notes of this build (GET /api/controller/changelog), asked for only when the
 * operator opens them: most visits to the Overview never need the ~50 KB. Each entry shows its
 * version and title (a trailing "(date)" becomes a "Released" line) and its markdown as elements.
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { LoadFailure } from '../settings/outcome';
import { Markdown } from './markdown';
import { CHANGELOG_KEY, getChangelog, type ChangelogEntry } from './requests';

export function Changelog() {
  const [open, setOpen] = useState(false);
  // The changelog is part of the binary: it never changes while the page is open.
  const changelog = useQuery({ queryKey: CHANGELOG_KEY, queryFn: getChangelog, enabled: open, staleTime: Infinity });
  return (
    <section class="op-card" aria-labelledby="ov-changelog">
      <div class="ov-head">
        <h2 id="ov-changelog">Changelog</h2>
        <button type="button" class="op-secondary" aria-expanded={open} aria-controls="ov-changelog-body" onClick={() => setOpen(!open)}>
          {open ? 'Hide release notes' : 'Show release notes'}
        </button>
      </div>
      <div id="ov-changelog-body" hidden={!open}>
        {open && changelog.isPending && <p>Loading…</p>}
        {changelog.isError && <LoadFailure error={changelog.error} />}
        {changelog.data && changelog.data.entries.length === 0 && <p class="op-muted">This build carries no release notes.</p>}
        {changelog.data && (
          <div class="ov-entries">
            {changelog.data.entries.map((entry, i) => (
              <Entry key={entry.version} entry={entry} first={i === 0} />
            ))}
          </div>
        )}
      </div>
    </section>
  );
}

/** "Title (2026-11-24)": the title and its date apart. */
function splitTitle(title: string): { title: string; released: string | null } {
  const match = /^(.*\S)\s*\(([^()]+)\)$/.exec(title);
  return match ? { title: match[1]!, released: match[2]! } : { title, released: null };
}

function Entry({ entry, first }: { entry: ChangelogEntry; first: boolean }) {
  const { title, released } = splitTitle(entry.title);
  const id = `ov-release-${entry.version.replace(/[^\w-]/g, '-')}`;
  return (
    <article class="ov-entry" aria-labelledby={id}>
      <h3 id={id}>
        <span class="op-pill op-pill-good">v{entry.version}</span> <span class="ov-entry-title">{title}</span>
      </h3>
      {released && <p class="op-muted">Released {released}</p>}
      {entry.body !== '' && (
        <details open={first}>
          <summary>What changed in {entry.version}</summary>
          <div class="ov-notes" tabIndex={0} role="region" aria-label={`Release notes of ${entry.version}`}>
            <Markdown markdown={entry.body} under={3} />
          </div>
        </details>
      )}
    </article>
  );
}
